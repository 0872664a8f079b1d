"""append-only audit tables: refuse UPDATE and DELETE in the database itself

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

# Repeated on purpose: a migration freezes the schema as it stood at its revision and never
# imports the models (they move on), so its table, column and trigger definitions resemble the
# models' and the other revisions' (duplicates lists them; they must not be merged).

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

# The tables of this revision, written out: later revisions add their own (the list in
# models.audit grows with them, and a migration must not change what it did once).
APPEND_ONLY_TABLES = ("audit_log", "cards", "decisions", "game_events", "labelled_examples")


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute(
            "CREATE OR REPLACE FUNCTION bansha_append_only() RETURNS trigger AS $$ "
            "BEGIN RAISE EXCEPTION '% is append-only', TG_TABLE_NAME; END; $$ LANGUAGE plpgsql"
        )
        for table in APPEND_ONLY_TABLES:
            op.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION bansha_append_only()"
            )
    elif dialect == "sqlite":
        for table in APPEND_ONLY_TABLES:
            for verb in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
                )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    for table in APPEND_ONLY_TABLES:
        if dialect == "postgresql":
            op.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
        elif dialect == "sqlite":
            for verb in ("update", "delete"):
                op.execute(f"DROP TRIGGER IF EXISTS {table}_no_{verb}")
    if dialect == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS bansha_append_only()")
