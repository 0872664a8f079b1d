"""Posting rate limit per token, kept in the database so every worker shares one count.

A fixed window: the counter row ``(token, epoch // seconds)`` is incremented with one atomic
``INSERT ... ON CONFLICT DO UPDATE ... RETURNING`` inside the request's own transaction, so the
count is exact across any number of processes and hosts, and a rejected request (which rolls
back) consumes nothing. An in-process limiter would let N workers accept N times the limit.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Connection, bindparam, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from api.errors import RateLimited
from models.game import Game, Token
from models.ratelimit import RateWindow


def _upsert(insert: Any) -> Any:
    # Built once: constructing the statement per request costs more than running it.
    # The table, not the mapped class: a plain Core statement skips the ORM's bulk-insert path.
    values = insert(RateWindow.__table__).values(
        token_hash=bindparam("token_hash"), window=bindparam("window"), count=bindparam("cost")
    )
    return values.on_conflict_do_update(
        index_elements=["token_hash", "window"],
        set_={"count": RateWindow.__table__.c.count + bindparam("cost")},
    ).returning(RateWindow.__table__.c.count)


_UPSERT = {"postgresql": _upsert(postgresql.insert), "sqlite": _upsert(sqlite.insert)}

# SQLite only: the same upsert also returns the game's version and the token's revocation (scalar
# sub-selects in RETURNING), so that the post path's first statement does the work of two. SQLite's
# write transaction is exclusive from BEGIN IMMEDIATE on, so the order of the reads and the write
# does not matter there. Not on PostgreSQL: the game's share lock must come before any row lock.
_UPSERT_READING_GAME = _upsert(sqlite.insert).returning(
    select(Game.version).where(Game.id == bindparam("game_id")).scalar_subquery(),
    select(Token.revoked_at).where(Token.token_hash == bindparam("token_hash")).scalar_subquery(),
)


def consume(
    session: Session | Connection,
    token_hash: str,
    cost: int,
    limit: tuple[int, int],
    now: float | None = None,
) -> int:
    """Add ``cost`` posts to the token's current window; raise :class:`RateLimited` past the limit.

    Returns the window's new count.
    """
    now = time.time() if now is None else now
    window = int(now // limit[1])
    connection = session.connection() if isinstance(session, Session) else session
    stmt = _UPSERT[connection.dialect.name]
    count = int(
        connection.execute(
            stmt, {"token_hash": token_hash, "window": window, "cost": cost}
        ).scalar_one()
    )
    return settle(connection, token_hash, cost, limit, count, now)


def consume_reading_game(
    connection: Connection, token_hash: str, cost: int, limit: tuple[int, int], game_id: str
) -> tuple[int, int | None, bool, float]:
    """SQLite only: count ``cost`` posts like :func:`consume`, and read in the same statement the
    game's version (None: no such game) and whether the token is revoked.

    Returns ``(count, version, revoked, now)`` and raises nothing: the caller answers 404 and 401
    first (its transaction then rolls the count back), and only then calls :func:`settle`.
    """
    if connection.dialect.name != "sqlite":
        raise ValueError("consume_reading_game is for SQLite; use consume on other backends")
    now = time.time()
    window = int(now // limit[1])
    params = {"token_hash": token_hash, "window": window, "cost": cost, "game_id": game_id}
    count, version, revoked_at = connection.execute(_UPSERT_READING_GAME, params).one()
    return int(count), None if version is None else int(version), revoked_at is not None, now


def settle(
    connection: Connection,
    token_hash: str,
    cost: int,
    limit: tuple[int, int],
    count: int,
    now: float,
) -> int:
    """The rest of :func:`consume` once the window holds ``count``: the token's old windows are
    dropped on its first request of a window, and :class:`RateLimited` is raised past the limit."""
    allowed, seconds = limit
    window = int(now // seconds)
    if count == cost:
        # First request of a new window: old windows of this token are dead weight.
        connection.execute(
            delete(RateWindow).where(
                RateWindow.token_hash == token_hash, RateWindow.window < window
            )
        )
    if count > allowed:
        retry = int(seconds - (now % seconds)) + 1
        raise RateLimited(
            f"posting limit of {allowed} posts per {seconds} s reached for this token",
            retry_after=retry,
        )
    return count
