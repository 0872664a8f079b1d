"""Backups of a SQLite database through SQLite's online backup API, and restoring one.

The backup API copies the database page by page inside SQLite's own locking, so a backup taken
while the service is writing is a consistent snapshot of one committed moment (a plain file copy
of a WAL database is not: the committed pages may still be in the ``-wal`` file). Restoring runs
the same API the other way, into the live file, so the running service's next transaction sees
the restored data; nothing is half-restored if it fails.

PostgreSQL is backed up with its own tools (``pg_dump`` / ``pg_restore``, see docs/api.md): they
are what its operators know, and a logical dump does not depend on this code's schema.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from models.database import is_sqlite, sqlite_path


class BackupError(Exception):
    """A backup or restore that cannot run; ``str()`` says why and what to do instead."""


@dataclass(frozen=True)
class Restored:
    """What a restore did: the schema revision restored and where the replaced data was kept."""

    revision: str | None
    kept: Path | None


def _database_file(url: str) -> Path:
    """The SQLite file behind ``url``; PostgreSQL and in-memory databases are refused."""
    if not is_sqlite(url):
        raise BackupError(
            "this database is not SQLite: back PostgreSQL up with pg_dump "
            "(pg_dump -Fc -f bansha.dump DBNAME) and restore it with pg_restore "
            "(pg_restore --clean --if-exists -d DBNAME bansha.dump)"
        )
    path = sqlite_path(url)
    if path is None:
        raise BackupError("an in-memory database has nothing to back up")
    return path


def _revision(connection: sqlite3.Connection) -> str | None:
    """The Alembic revision stored in a database, or None when it has no schema."""
    try:
        row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.DatabaseError:
        return None
    return None if row is None else str(row[0])


def _has_games(connection: sqlite3.Connection) -> bool:
    try:
        return connection.execute("SELECT 1 FROM games LIMIT 1").fetchone() is not None
    except sqlite3.DatabaseError:
        return False


def backup(url: str, target: Path) -> str | None:
    """Copy the live database at ``url`` to the new file ``target``; its schema revision.

    Refuses to overwrite an existing file (a backup must never replace another backup by mistake).
    """
    source_path = _database_file(url)
    if not source_path.is_file():
        raise BackupError(f"no database at {source_path}")
    if target.exists():
        raise BackupError(f"{target} already exists; choose a new file name")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    source = sqlite3.connect(source_path, timeout=30)
    try:
        revision = _revision(source)
        if revision is None:
            raise BackupError(f"{source_path} has no schema; run 'bansha db upgrade' first")
        copy = sqlite3.connect(partial)
        try:
            source.backup(copy)
            # A backup is one self-contained file: no -wal beside it.
            copy.execute("PRAGMA journal_mode=DELETE")
        finally:
            copy.close()
    finally:
        source.close()
    partial.replace(target)  # the name appears only once the copy is complete
    return revision


def restore(url: str, backup_file: Path, *, force: bool = False) -> Restored:
    """Replace the database at ``url`` with ``backup_file`` (a file :func:`backup` wrote).

    A database that already holds games is replaced only with ``force``, and then its current
    contents are first backed up beside it (``<name>.before-restore-<UTC time>``), so a restore
    over the wrong file loses nothing. The caller migrates the result to the code's schema.
    """
    target_path = _database_file(url)
    if not backup_file.is_file():
        raise BackupError(f"no backup file at {backup_file}")
    source = sqlite3.connect(f"file:{backup_file}?mode=ro", uri=True)
    try:
        if source.execute("PRAGMA integrity_check").fetchone() != ("ok",):
            raise BackupError(f"{backup_file} is damaged (integrity_check failed)")
        revision = _revision(source)
        if revision is None:
            raise BackupError(f"{backup_file} is not a Bansha database (no schema revision)")
        kept: Path | None = None
        if target_path.is_file():
            live = sqlite3.connect(target_path, timeout=30)
            try:
                occupied = _has_games(live)
            finally:
                live.close()
            if occupied and not force:
                raise BackupError(
                    f"{target_path} already holds games; restoring replaces them: "
                    "pass --force (the current data is kept in a backup beside it first)"
                )
            if occupied:
                stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
                kept = target_path.with_name(f"{target_path.name}.before-restore-{stamp}")
                backup(url, kept)
        target_path.parent.mkdir(parents=True, exist_ok=True)
        live = sqlite3.connect(target_path, timeout=30)
        try:
            source.backup(live)
        finally:
            live.close()
    finally:
        source.close()
    return Restored(revision, kept)
