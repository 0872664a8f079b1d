"""Rate limits per client, kept in the database so every worker shares one count.

Three budgets (:class:`Budget`): posts per director token, new games and other writes per client
(its token, else its address; :mod:`api.guard` names the client). Each is charged by
:func:`charge`, in a short transaction of its own *before* the request does any work (screening,
dealing, locking), so that a flood pays before it costs. A refused request (429) rolls its charge
back; a request refused later (400, 404, 409) has spent its units, as the work it caused was done.

Flask-Limiter was considered: it keeps its counters in memory, Redis, Memcached or MongoDB, none
of which this service runs; an in-process limiter would let N workers accept N times the limit,
and one more server to deploy only for counters is worse than one small table.

A fixed window: the counter row ``(token, epoch // seconds)`` is incremented with one atomic
``INSERT ... ON CONFLICT DO UPDATE ... RETURNING`` inside the request's own transaction, so the
count is exact across any number of processes and hosts, and a rejected request (which rolls
back) consumes nothing. An in-process limiter would let N workers accept N times the limit.
"""

from __future__ import annotations

import hashlib
import time
from enum import StrEnum
from typing import Any

from sqlalchemy import Connection, bindparam, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from api.database import Database
from api.errors import RateLimited
from models.driver import Prepared
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


# Run through models.driver.Prepared: on SQLite, compiled once and run on the driver's cursor.
_UPSERT = {
    "postgresql": Prepared(_upsert(postgresql.insert)),
    "sqlite": Prepared(_upsert(sqlite.insert)),
}

# SQLite only: the same upsert also returns the game's version and the token's revocation (scalar
# sub-selects in RETURNING), so that the post path's first statement does the work of two. SQLite's
# write transaction is exclusive from BEGIN IMMEDIATE on, so the order of the reads and the write
# does not matter there. Not on PostgreSQL: the game's share lock must come before any row lock.
_UPSERT_READING_GAME = Prepared(
    _upsert(sqlite.insert).returning(
        select(Game.version).where(Game.id == bindparam("game_id")).scalar_subquery(),
        select(Token.revoked_at)
        .where(Token.token_hash == bindparam("token_hash"))
        .scalar_subquery(),
    )
)


class Budget(StrEnum):
    """What a rate limit counts; the value keys the client's counter rows."""

    POSTS = "posts"
    GAMES = "games"
    WRITES = "writes"


#: what a client over each budget is told (``{allowed}``, ``{seconds}``, ``{retry}`` filled in)
REFUSALS = {
    Budget.POSTS: "提交帖子过于频繁：此令牌每{seconds}秒最多提交{allowed}条帖子，请{retry}秒后再试",
    Budget.GAMES: "新建游戏过于频繁：每{seconds}秒最多新建{allowed}场游戏，请{retry}秒后再试",
    Budget.WRITES: "请求过于频繁：每{seconds}秒最多{allowed}次写入请求，请{retry}秒后再试",
}


def counter_key(budget: Budget, client: str) -> str:
    """The counter row's key for ``client`` (a token hash or ``addr:<address>``) in ``budget``.

    Posts keep the bare token hash (the rows older versions wrote); the others are hashed with
    their budget's name, so that budgets never share a row and no address is stored in clear.

    >>> counter_key(Budget.POSTS, "ab" * 32) == "ab" * 32
    True
    >>> len(counter_key(Budget.GAMES, "addr:127.0.0.1"))
    64
    """
    if budget is Budget.POSTS:
        return client
    return hashlib.sha256(f"{budget.value}|{client}".encode()).hexdigest()


def charge(
    database: Database,
    budget: Budget,
    client: str,
    cost: int,
    limit: tuple[int, int],
    connection: Connection | None = None,
) -> int:
    """Charge ``cost`` units of ``budget`` to ``client`` in a transaction of its own, committed
    before the request's work starts; raise :class:`RateLimited` (429, the charge rolled back)
    past the limit. Returns the window's new count. ``connection``: see
    :meth:`Database.write_connection`."""
    with database.write_connection(connection) as connection:
        return consume(connection, counter_key(budget, client), cost, limit, budget=budget)


def consume(
    session: Session | Connection,
    token_hash: str,
    cost: int,
    limit: tuple[int, int],
    now: float | None = None,
    *,
    budget: Budget = Budget.POSTS,
) -> int:
    """Add ``cost`` units to the key's current window; raise :class:`RateLimited` past the limit.

    Returns the window's new count. A ``cost`` of 0 (the units were charged before, see
    :func:`charge`) runs nothing and returns 0.
    """
    if cost == 0:
        return 0
    now = time.time() if now is None else now
    window = int(now // limit[1])
    connection = session.connection() if isinstance(session, Session) else session
    params = {"token_hash": token_hash, "window": window, "cost": cost}
    (count,) = _UPSERT[connection.dialect.name].run(connection, params).fetchone()
    return settle(connection, token_hash, cost, limit, int(count), now, budget=budget)


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
    count, version, revoked_at = _UPSERT_READING_GAME.run(connection, params).fetchone()
    return int(count), None if version is None else int(version), revoked_at is not None, now


def settle(
    connection: Connection,
    token_hash: str,
    cost: int,
    limit: tuple[int, int],
    count: int,
    now: float,
    *,
    budget: Budget = Budget.POSTS,
) -> int:
    """The rest of :func:`consume` once the window holds ``count``: the token's old windows are
    dropped on its first request of a window, and :class:`RateLimited` is raised past the limit
    (never for a ``cost`` of 0: those units were charged, and admitted, before)."""
    allowed, seconds = limit
    window = int(now // seconds)
    if count == cost:
        # First request of a new window: old windows of this token are dead weight.
        connection.execute(
            delete(RateWindow).where(
                RateWindow.token_hash == token_hash, RateWindow.window < window
            )
        )
    if cost and count > allowed:
        retry = int(seconds - (now % seconds)) + 1
        raise RateLimited(
            REFUSALS[budget].format(allowed=allowed, seconds=seconds, retry=retry),
            retry_after=retry,
        )
    return count
