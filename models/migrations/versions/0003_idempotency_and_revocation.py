"""idempotency keys for game creation; token revocation (once, never undone)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

# Repeated on purpose: a migration freezes the schema as it stood at its revision and never
# imports the models (they move on), so its table, column and trigger definitions resemble the
# models' and the other revisions' (duplicates lists them; they must not be merged).

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

# A token row may change in one way only: ``revoked_at`` set once, so no bug can bring a revoked
# token back or hand a token to another holder. Reissuing adds a new row. (Deleting a row only
# makes its token unknown, which is refused as well.)
_SQLITE_TOKEN_TRIGGER = (
    "CREATE TRIGGER tokens_revoke_only BEFORE UPDATE ON tokens "
    "WHEN OLD.revoked_at IS NOT NULL OR NEW.revoked_at IS NULL "
    "OR NEW.id IS NOT OLD.id OR NEW.token_hash IS NOT OLD.token_hash "
    "OR NEW.game_id IS NOT OLD.game_id OR NEW.kind IS NOT OLD.kind "
    "OR NEW.character IS NOT OLD.character OR NEW.created_at IS NOT OLD.created_at "
    "BEGIN SELECT RAISE(ABORT, 'a token may only be revoked, once'); END"
)
_POSTGRES_TOKEN_FUNCTION = """
CREATE OR REPLACE FUNCTION bansha_tokens_revoke_only() RETURNS trigger AS $$
BEGIN
  IF OLD.revoked_at IS NOT NULL OR NEW.revoked_at IS NULL
     OR (NEW.id, NEW.token_hash, NEW.game_id, NEW.kind, NEW.character, NEW.created_at)
        IS DISTINCT FROM
        (OLD.id, OLD.token_hash, OLD.game_id, OLD.kind, OLD.character, OLD.created_at) THEN
    RAISE EXCEPTION 'a token may only be revoked, once';
  END IF;
  RETURN NEW;
END; $$ LANGUAGE plpgsql
"""


def upgrade() -> None:
    op.create_table(
        "idempotency_keys",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("scope", sa.String(length=80), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("response", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_idempotency_keys_game_id_games")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_idempotency_keys")),
        sa.UniqueConstraint("scope", "key_hash", name="uq_idempotency_keys_scope_key_hash"),
    )
    with op.batch_alter_table("idempotency_keys", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_idempotency_keys_game_id"), ["game_id"], unique=False)

    with op.batch_alter_table("tokens", schema=None) as batch_op:
        batch_op.add_column(sa.Column("revoked_at", sa.DateTime(), nullable=True))

    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute(_POSTGRES_TOKEN_FUNCTION)
        op.execute(
            "CREATE TRIGGER tokens_revoke_only BEFORE UPDATE ON tokens "
            "FOR EACH ROW EXECUTE FUNCTION bansha_tokens_revoke_only()"
        )
    elif dialect == "sqlite":
        op.execute(_SQLITE_TOKEN_TRIGGER)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS tokens_revoke_only ON tokens")
        op.execute("DROP FUNCTION IF EXISTS bansha_tokens_revoke_only()")
    elif dialect == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS tokens_revoke_only")

    with op.batch_alter_table("tokens", schema=None) as batch_op:
        batch_op.drop_column("revoked_at")

    with op.batch_alter_table("idempotency_keys", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_idempotency_keys_game_id"))
    op.drop_table("idempotency_keys")
