"""Run the Alembic migrations programmatically (no alembic.ini, works from any directory).

>>> import tempfile, os
>>> from sqlalchemy import inspect
>>> d = tempfile.mkdtemp()
>>> url = f"sqlite:///{os.path.join(d, 'x.sqlite3')}"
>>> upgrade(url)
>>> "games" in inspect(make_engine(url)).get_table_names()
True
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from models.database import default_database_url, make_engine, normalise_url

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"

__all__ = ["MigrationRefused", "alembic_config", "current_revision", "make_engine", "upgrade"]


class MigrationRefused(RuntimeError):
    """A migration found rows it cannot carry over and stopped before changing anything.

    The message names the rows and what to do (shown by ``bansha db upgrade``).
    """


def alembic_config(database_url: str | None = None) -> Config:
    """An Alembic config pointing at ``models/migrations`` and ``database_url``."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # Stored in attributes, not the ini options, so '%' in passwords needs no escaping.
    config.attributes["database_url"] = normalise_url(database_url or default_database_url())
    return config


def upgrade(database_url: str | None = None, revision: str = "head") -> None:
    """Bring the database at ``database_url`` (default: the service's) up to ``revision``."""
    command.upgrade(alembic_config(database_url), revision)


def current_revision(database_url: str | None = None) -> str | None:
    """The revision the database is at, or None if it was never migrated."""
    from alembic.runtime.migration import MigrationContext

    engine = make_engine(database_url, write=False)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()
