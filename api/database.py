"""The app's database handle: short transactions, one per request step.

Writes go through :meth:`Database.write` (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: a transaction in
which the game row is locked with ``SELECT ... FOR UPDATE`` by :func:`api.store.lock_game`), reads
through :meth:`Database.read`. Either rolls back on any exception, so a rejected request changes
nothing.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from flask import current_app
from sqlalchemy import Connection, Engine
from sqlalchemy.orm import Session, sessionmaker

from models.database import is_sqlite, make_engine, sqlite_path


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
        path = sqlite_path(url)
        self._lock_path = None if path is None else f"{path}.writer-lock"
        self._thread_lock = threading.Lock()
        self._lock_fd: tuple[int, int] | None = None  # (pid, fd)

    @property
    def is_sqlite(self) -> bool:
        """True when the backend is SQLite."""
        return is_sqlite(self.url)

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A read-write transaction, committed on success and rolled back on any error."""
        # The session hands its connection back to the pool after the writer's turn (see below).
        with self._write() as session, self._writer_turn(), session.begin():
            yield session

    @contextmanager
    def write_connection(self, connection: Connection | None = None) -> Iterator[Connection]:
        """:meth:`write` without the ORM: a Core connection in a read-write transaction.

        For the hottest path (post ingestion), where the ORM session's bookkeeping costs more
        than the SQL it runs. Same locking, same commit-or-roll-back. On SQLite every writer of
        every worker queues for the writer's turn, so only the transaction itself runs inside it:
        the connection is checked out of the pool before it and returned after it.

        ``connection``: one the caller checked out of :attr:`write_engine` (and returns), for a
        request that writes twice: a post's rate-limit charge and then its storing take one
        checkout instead of two.
        """
        if connection is not None:
            with self._writer_turn(), connection.begin():
                yield connection
            return
        with self.write_engine.connect() as connection, self._writer_turn(), connection.begin():
            yield connection

    @contextmanager
    def _writer_turn(self) -> Iterator[None]:
        """SQLite: queue writers on a lock file before ``BEGIN IMMEDIATE``.

        SQLite admits one writer; the others retry on a back-off of up to tens of milliseconds.
        Waiting on ``flock`` instead wakes the next writer as soon as the previous one is done,
        across every worker process on the host (a SQLite file is single-host anyway). Correctness
        does not depend on it: ``BEGIN IMMEDIATE`` still guards the database.
        """
        if self._lock_path is None:
            yield
            return
        with self._thread_lock:
            fd = self._fd()
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)

    def _fd(self) -> int:
        # One descriptor per process: a descriptor inherited across fork() would share the lock.
        pid = os.getpid()
        if self._lock_fd is None or self._lock_fd[0] != pid:
            assert self._lock_path is not None
            self._lock_fd = (pid, os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600))
        return self._lock_fd[1]

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A read-only transaction (rolled back at the end)."""
        # Closing the session rolls its (auto-begun) transaction back.
        with self._read() as session:
            yield session

    def dispose(self) -> None:
        """Close every pooled connection."""
        if self._lock_fd is not None and self._lock_fd[0] == os.getpid():
            os.close(self._lock_fd[1])
            self._lock_fd = None
        self.write_engine.dispose()
        if self.read_engine is not self.write_engine:
            self.read_engine.dispose()


def db() -> Database:
    """The current app's :class:`Database`."""
    database: Database = current_app.extensions["bansha_db"]
    return database
