"""Loading and locking games: the per-process cache of rebuilt games, the exclusive lock of a
writer (:func:`locked_game`), the share lock of post ingestion (:func:`shared_game`) and reads.

Every function of the referee's work runs inside a write transaction in which the game row is
locked (see :mod:`api.store`) and takes a :class:`LockedGame`, except
:func:`api.ingest.ingest_unvoted_posts`, which only adds rows and reads the game, and so runs under
the share lock of :func:`shared_game`. They raise :class:`~api.errors.ApiError` subclasses to
reject a request; the caller's transaction then rolls back, so nothing is half-done.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from flask import current_app
from sqlalchemy import Connection
from sqlalchemy.orm import Session

from api.auth import Caller, refuse_if_revoked, refuse_revoked
from api.database import db
from api.errors import Conflict, NotFound
from api.gameplay import Game, GameCache, GameRuleError, events_to_dicts, rebuild_game
from api.ratelimit import consume, consume_reading_game, settle
from api.seats import record_results, record_substitutions
from api.store import append_events, game_version_shared, get_game, load_events, lock_game
from game_rules import actions as act
from game_rules.events import Event
from models.game import Game as GameRow


def cache() -> GameCache:
    """This process's cache of rebuilt games."""
    found: GameCache = current_app.extensions["bansha_games"]
    return found


@dataclass(frozen=True)
class GameMeta:
    """What never changes about a game: its ruleset and characters."""

    id: str
    ruleset: str
    characters: tuple[str, ...]


def game_meta(game_id: str) -> GameMeta:
    """The game's immutable facts through this process's cache (a read on a miss; 404)."""
    metas: dict[str, GameMeta] = current_app.extensions.setdefault("bansha_meta", {})
    found = metas.get(game_id)
    if found is None:
        with db().read() as session:
            row = get_game(session, game_id)
            found = GameMeta(row.id, row.ruleset, tuple(characters_of(row)))
        if len(metas) > 10_000:
            metas.clear()
        metas[game_id] = found
    return found


def characters_of(row: GameRow) -> list[str]:
    """The game's characters in seating order."""
    return [p["character"] for p in row.players]


def aliases_of(row: GameRow) -> dict[str, list[str]]:
    """Character -> aliases, as given at creation."""
    return {p["character"]: list(p.get("aliases", [])) for p in row.players}


def load_game(session: Session, row: GameRow) -> Game:
    """The game at ``row.version`` (from the cache when it holds exactly that version)."""
    game = cache().take(row.id, row.version)
    if game is None:
        events = load_events(session, row.id)[: row.version]
        game = rebuild_game(row.ruleset, row.seed, characters_of(row), events)
    return game


@dataclass
class LockedGame:
    """A locked game row and its rebuilt game; new events are collected and stored by flush."""

    session: Session
    row: GameRow
    game: Game
    pending: list[Event] = field(default_factory=list)

    @property
    def ruleset(self) -> str:
        """The ruleset id."""
        return self.row.ruleset

    def apply(self, action: act.Action) -> tuple[Event, ...]:
        """Apply ``action``; a rule violation becomes a 409 naming the rule."""
        try:
            events = self.game.apply(action)
        except GameRuleError as exc:
            raise Conflict(exc.message, rule=exc.rule) from exc
        self.pending.extend(events)
        # 替补: the registry seats the new player from now on (api.seats), in this transaction.
        record_substitutions(self.session, self.row.id, events)
        return events

    def flush(self) -> None:
        """Store the collected events in the log."""
        if self.pending:
            append_events(self.session, self.row, events_to_dicts(self.pending))
            self.pending = []
            if self.game.state.ended and not self.row.finished:
                self.row.finished = True
                # The registry's result for every character, with the end that decides it.
                record_results(self.session, self.row.id, self.game)


class RolledBack(Exception):
    """Raised inside :func:`locked_game` to end its transaction without committing, carrying
    ``value`` (what the change would have done): how a preview applies a change for real and
    keeps nothing."""

    def __init__(self, value: Any) -> None:
        super().__init__("preview")
        self.value = value


@contextmanager
def locked_game(game_id: str, caller: Caller | None = None) -> Iterator[tuple[Session, LockedGame]]:
    """A write transaction with ``game_id`` locked; the rebuilt game is cached after commit.

    With ``caller`` (identified through the token cache), its token is confirmed live under the
    lock: 401 ``token_revoked`` once it has been revoked.
    """
    with db().write() as session:
        row = lock_game(session, game_id)
        if caller is not None:
            refuse_revoked(session, caller)
        locked = LockedGame(session, row, load_game(session, row))
        yield session, locked
        locked.flush()
    cache().put(row.id, row.version, locked.game)


@contextmanager
def read_game(game_id: str) -> Iterator[tuple[Session, GameRow, Game]]:
    """A read transaction with the game rebuilt at its committed version."""
    with db().read() as session:
        row = get_game(session, game_id)
        game = load_game(session, row)
        yield session, row, game
    cache().put(row.id, row.version, game)


@contextmanager
def shared_game(
    game_id: str,
    caller: Caller,
    cost: int,
    limit: tuple[int, int],
    connection: Connection | None = None,
) -> Iterator[tuple[Connection, Game]]:
    """A write transaction in which ``game_id`` is share-locked: its game may be read, not changed.

    For work that adds rows but no game events (posts outside the vote thread): every writer that
    changes the game needs the exclusive lock, so the state read here stays current until commit,
    while concurrent share-lockers (other posts) do not queue behind each other on PostgreSQL.
    The game comes from this process's cache without being taken out of it (it is only read); a
    rebuilt one is offered to the cache after commit. Yields a Core connection (no ORM session:
    on the hottest path its bookkeeping costs more than the SQL).

    ``caller`` was identified through the token cache: the statement that share-locks the game
    also confirms its token is live (401 ``token_revoked`` once it has been revoked), and its
    posting rate limit is charged ``cost`` posts in the same transaction
    (:func:`api.ratelimit.consume`: 429 past ``limit``, after any 404 or 401). On SQLite, whose
    write transaction is exclusive anyway, one statement counts the posts and reads the version
    and the revocation; on PostgreSQL the count comes last, after the body, so that the window's
    row lock is held only for the commit. ``connection``: see
    :meth:`api.database.Database.write_connection`.
    """
    token_hash = caller.token_hash
    assert token_hash is not None
    with db().write_connection(connection) as connection:
        on_sqlite = connection.dialect.name == "sqlite"
        if on_sqlite:
            count, found, revoked, now = consume_reading_game(
                connection, token_hash, cost, limit, game_id
            )
            if found is None:
                raise NotFound(f"没有这场游戏：{game_id!r}")
            refuse_if_revoked(caller, revoked)
            settle(connection, token_hash, cost, limit, count, now)
            version = found
        else:
            version, revoked = game_version_shared(connection, game_id, token_hash)
            refuse_if_revoked(caller, revoked)
        game = cache().peek(game_id, version)
        rebuilt = game is None
        if game is None:
            with Session(bind=connection) as session:  # joins the transaction, never ends it
                row = get_game(session, game_id)
                events = load_events(session, game_id)[:version]
            game = rebuild_game(row.ruleset, row.seed, characters_of(row), events)
        yield connection, game
        if not on_sqlite:
            consume(connection, token_hash, cost, limit)
    if rebuilt:
        cache().put(game_id, version, game)
