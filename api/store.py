"""Database access for the service: loading and locking games, appending events, auditing.

Every mutation of a game runs in one write transaction that first calls :func:`lock_game`: on
PostgreSQL that is ``SELECT ... FOR UPDATE`` on the game row, which serialises every writer of that
game (across workers and hosts) until commit; on SQLite the write transaction is already
``BEGIN IMMEDIATE``. Everything a request reads after the lock is therefore current, which is what
keeps escalations from being lost or doubled. Work that only adds rows and reads the game (posts
outside the vote thread) calls :func:`game_version_shared` instead (``FOR SHARE``): it still waits
for, and holds off, every such writer, but not other share-lockers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from sqlalchemy import Connection, bindparam, select
from sqlalchemy.orm import Session

from api.actors import Principal, current_principal
from api.errors import NotFound
from models.audit import AuditEntry
from models.game import Game, GameEvent, Token
from models.types import utcnow


def get_game(session: Session, game_id: str) -> Game:
    """The game row, or 404."""
    game = session.get(Game, game_id)
    if game is None:
        raise NotFound(f"没有这场游戏：{game_id!r}")
    return game


class _OfAGame(Protocol):
    @property
    def game_id(self) -> str: ...


R = TypeVar("R", bound=_OfAGame)


def row_of_game(session: Session, model: type[R], number: int, game_id: str, missing: str) -> R:
    """Row ``number`` of ``model`` if it belongs to game ``game_id``; else :class:`NotFound`
    with ``missing`` (another game's row is as unknown here as one that does not exist)."""
    found = session.get(model, number)
    if found is None or found.game_id != game_id:
        raise NotFound(missing)
    return found


_LOCK_GAME = (
    select(Game)
    .where(Game.id == bindparam("game_id"))
    .with_for_update()
    .execution_options(populate_existing=True)
)


def lock_game(session: Session, game_id: str) -> Game:
    """The game row, locked for the rest of the transaction (``FOR UPDATE``), or 404."""
    game = session.scalars(_LOCK_GAME, {"game_id": game_id}).first()
    if game is None:
        raise NotFound(f"没有这场游戏：{game_id!r}")
    return game


# The caller's token is checked in the same statement (the post path's one round trip).
_GAME_VERSION_SHARED = (
    select(
        Game.version,
        select(Token.revoked_at)
        .where(Token.token_hash == bindparam("token_hash"))
        .scalar_subquery(),
    )
    .where(Game.id == bindparam("game_id"))
    .with_for_update(read=True, of=Game)
)


def game_version_shared(connection: Connection, game_id: str, token_hash: str) -> tuple[int, bool]:
    """The game's committed version, with the row share-locked for the rest of the transaction,
    and whether the token ``token_hash`` is revoked, in one statement: a request whose token came
    from the process cache confirms it is still live without another round trip.

    PostgreSQL: ``SELECT ... FOR SHARE`` waits for any writer holding ``FOR UPDATE`` (so the
    version read is the latest committed one) and keeps later writers out until commit, while
    other share-lockers (post ingestion) proceed side by side. SQLite: the write transaction is
    already ``BEGIN IMMEDIATE``, which excludes every other writer. A plain Core query: no ORM
    object, no JSON columns decoded. Raises 404 for an unknown game.
    """
    row = connection.execute(
        _GAME_VERSION_SHARED, {"game_id": game_id, "token_hash": token_hash}
    ).first()
    if row is None:
        raise NotFound(f"没有这场游戏：{game_id!r}")
    return int(row[0]), row[1] is not None


def load_events(session: Session, game_id: str) -> list[dict[str, Any]]:
    """The game's event log in order, as the JSON dicts the game core wrote."""
    rows = session.scalars(
        select(GameEvent.payload).where(GameEvent.game_id == game_id).order_by(GameEvent.seq)
    )
    return list(rows)


def append_events(session: Session, game: Game, events: Sequence[dict[str, Any]]) -> None:
    """Append ``events`` to the locked ``game``'s log and bump its version."""
    now = utcnow()
    for offset, payload in enumerate(events, start=1):
        session.add(
            GameEvent(
                game_id=game.id,
                seq=game.version + offset,
                kind=str(payload.get("type", "")),
                payload=payload,
                created_at=now,
            )
        )
    game.version += len(events)


def audit(
    session: Session,
    game_id: str,
    actor: str,
    action: str,
    detail: dict[str, Any],
    principal: Principal | None = None,
) -> None:
    """Append one audit entry (never updated, never deleted), with the authenticated identity.

    ``actor`` is who the act is attributed to, as the caller names it (``system`` for the rules'
    own consequences, or a director's signature); the identity that was proven is ``principal``
    or the current request's (:mod:`api.actors`): its kind, token row or admin fingerprint.
    """
    found = principal or current_principal()
    token_id = None
    if found is not None and found.token_hash is not None:
        token_id = session.scalar(select(Token.id).where(Token.token_hash == found.token_hash))
    session.add(
        AuditEntry(
            game_id=game_id,
            actor=actor,
            action=action,
            detail=detail,
            at=utcnow(),
            actor_kind=None if found is None else found.kind.value,
            actor_token_id=token_id,
            actor_ref=None if found is None else found.ref,
        )
    )
