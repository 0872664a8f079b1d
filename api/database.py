"""The app's database handle: short transactions, one per request step.

Writes go through :meth:`Database.write` (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: a transaction in
which the game row is locked with ``SELECT ... FOR UPDATE`` by :func:`api.store.lock_game`), reads
through :meth:`Database.read`. Either rolls back on any exception, so a rejected request changes
nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from flask import current_app
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from models.database import is_sqlite, make_engine


class Database:
    """Engines and session factories for one database URL."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.write_engine: Engine = make_engine(url, write=True)
        self.read_engine: Engine = (
            make_engine(url, write=False) if is_sqlite(url) else self.write_engine
        )
        self._write = sessionmaker(self.write_engine, expire_on_commit=False)
        self._read = sessionmaker(self.read_engine, expire_on_commit=False)

    @property
    def is_sqlite(self) -> bool:
        """True when the backend is SQLite."""
        return is_sqlite(self.url)

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A read-write transaction, committed on success and rolled back on any error."""
        with self._write() as session, session.begin():
            yield session

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A read-only transaction (rolled back at the end)."""
        # Closing the session rolls its (auto-begun) transaction back.
        with self._read() as session:
            yield session

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.write_engine.dispose()
        if self.read_engine is not self.write_engine:
            self.read_engine.dispose()


def db() -> Database:
    """The current app's :class:`Database`."""
    database: Database = current_app.extensions["bansha_db"]
    return database
