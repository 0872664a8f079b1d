"""Engines for the referee's database: a SQLite file by default, PostgreSQL via ``DATABASE_URL``.

SQLite serialises writers with ``BEGIN IMMEDIATE`` (taken by the *write* engine) so that two
requests can never interleave a read-modify-write of the same ledger; PostgreSQL relies on
``SELECT ... FOR UPDATE`` on the game row (see :mod:`api.store`).

>>> normalise_url("postgres://u@h/db")
'postgresql+psycopg://u@h/db'
>>> normalise_url("sqlite:///x.db")
'sqlite:///x.db'
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.pool import NullPool

from models.driver import announce

DEFAULT_SQLITE_PATH = Path("var") / "bansha.sqlite3"


def default_database_url() -> str:
    """``DATABASE_URL`` if set, else the SQLite file ``var/bansha.sqlite3`` under the cwd."""
    url = os.environ.get("DATABASE_URL", "").strip()
    if url:
        return normalise_url(url)
    return f"sqlite:///{DEFAULT_SQLITE_PATH.resolve()}"


def normalise_url(url: str) -> str:
    """Map bare PostgreSQL URLs onto the installed psycopg 3 driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def is_sqlite(url: str) -> bool:
    """True for SQLite URLs.

    >>> is_sqlite("sqlite:///:memory:"), is_sqlite("postgresql+psycopg://h/db")
    (True, False)
    """
    return url.startswith("sqlite")


def sqlite_path(url: str) -> Path | None:
    """The file behind a SQLite URL, or None for in-memory databases and other backends."""
    if not is_sqlite(url):
        return None
    path = url.split(":///", 1)[1] if ":///" in url else ""
    if not path or path == ":memory:":
        return None
    return Path(path.split("?", 1)[0])


def make_engine(url: str | None = None, *, write: bool = True) -> Engine:
    """Create an engine for ``url`` (default :func:`default_database_url`).

    For SQLite, ``write=True`` makes every transaction ``BEGIN IMMEDIATE`` (one writer at a time,
    waiting up to 30 s for the lock) and ``write=False`` makes plain deferred read transactions;
    both use WAL so readers never block the writer. The file's directory is created if needed.
    """
    url = normalise_url(url or default_database_url())
    if not is_sqlite(url):
        return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)
    path = sqlite_path(url)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    kwargs: dict[str, Any] = {"connect_args": {"timeout": 30, "check_same_thread": False}}
    if path is None:
        kwargs["poolclass"] = NullPool
    engine = create_engine(url, **kwargs)
    begin_sql = "BEGIN IMMEDIATE" if write else "BEGIN"

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control away from pysqlite so that our BEGIN below is the only one.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        if path is not None:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    def _do_begin(dbapi_connection: Any) -> None:
        # What SQLAlchemy's documented "begin" listener for pysqlite does, one level lower: a
        # connection listener makes the engine dispatch events around every connection,
        # transaction and statement (tens of µs a transaction on the post path), while the
        # dialect's own begin step costs nothing. Cursor listeners are still told the BEGIN.
        cursor = dbapi_connection.cursor()
        announce(engine, cursor, begin_sql)
        cursor.execute(begin_sql)
        cursor.close()

    engine.dialect.do_begin = _do_begin  # type: ignore[method-assign]

    return engine
