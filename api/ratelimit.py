"""Posting rate limit per token, kept in the database so every worker shares one count.

A fixed window: the counter row ``(token, epoch // seconds)`` is incremented with one atomic
``INSERT ... ON CONFLICT DO UPDATE ... RETURNING`` inside the request's own transaction, so the
count is exact across any number of processes and hosts, and a rejected request (which rolls
back) consumes nothing. An in-process limiter would let N workers accept N times the limit.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Connection, bindparam, delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from api.errors import RateLimited
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
    allowed, seconds = limit
    now = time.time() if now is None else now
    window = int(now // seconds)
    connection = session.connection() if isinstance(session, Session) else session
    stmt = _UPSERT[connection.dialect.name]
    count = int(
        connection.execute(
            stmt, {"token_hash": token_hash, "window": window, "cost": cost}
        ).scalar_one()
    )
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
