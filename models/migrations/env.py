"""Alembic environment: the URL comes from :func:`models.migrate.alembic_config`."""

from __future__ import annotations

from alembic import context

import models  # noqa: F401  (registers every table on Base.metadata)
from models.base import Base
from models.database import default_database_url, make_engine


def _url() -> str:
    url: str = context.config.attributes.get("database_url") or default_database_url()
    return url


def run_migrations_offline() -> None:
    """Emit SQL without a connection (``alembic upgrade --sql``)."""
    context.configure(url=_url(), target_metadata=Base.metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Apply migrations over a live connection."""
    url = _url()
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            context.configure(
                connection=connection,
                target_metadata=Base.metadata,
                render_as_batch=url.startswith("sqlite"),
            )
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


# Only when Alembic runs this file (importing it elsewhere, e.g. for doctests, does nothing).
if hasattr(context, "config"):
    if context.is_offline_mode():
        run_migrations_offline()
    else:
        run_migrations_online()
