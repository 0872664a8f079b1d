"""card revocations, appeals and their rulings (append-only); the audit log's authenticated actor

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

# Repeated on purpose: a migration freezes the schema as it stood at its revision and never
# imports the models (they move on), so its table, column and trigger definitions resemble the
# models' and the other revisions' (duplicates lists them; they must not be merged).

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

NEW_TABLES = ("card_revocations", "card_appeals", "appeal_rulings")


def upgrade() -> None:
    op.create_table(
        "card_revocations",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("card_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("cause_id", sa.Integer(), nullable=True),
        sa.Column("revoked_by", sa.String(length=64), nullable=False),
        sa.Column("ejection_withdrawn", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_card_revocations_game_id_games")
        ),
        sa.ForeignKeyConstraint(
            ["card_id"], ["cards.id"], name=op.f("fk_card_revocations_card_id_cards")
        ),
        sa.ForeignKeyConstraint(
            ["cause_id"],
            ["card_revocations.id"],
            name=op.f("fk_card_revocations_cause_id_card_revocations"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_card_revocations")),
        sa.UniqueConstraint("card_id", name=op.f("uq_card_revocations_card_id")),
    )
    op.create_index(
        op.f("ix_card_revocations_game_id"), "card_revocations", ["game_id"], unique=False
    )
    op.create_table(
        "card_appeals",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("card_id", sa.Integer(), nullable=False),
        sa.Column("character", sa.String(length=64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("appealed_by", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_card_appeals_game_id_games")
        ),
        sa.ForeignKeyConstraint(
            ["card_id"], ["cards.id"], name=op.f("fk_card_appeals_card_id_cards")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_card_appeals")),
        sa.UniqueConstraint("card_id", name=op.f("uq_card_appeals_card_id")),
    )
    op.create_index(op.f("ix_card_appeals_game_id"), "card_appeals", ["game_id"], unique=False)
    op.create_table(
        "appeal_rulings",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("appeal_id", sa.Integer(), nullable=False),
        sa.Column("ruling", sa.String(length=16), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("ruled_by", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_appeal_rulings_game_id_games")
        ),
        sa.ForeignKeyConstraint(
            ["appeal_id"],
            ["card_appeals.id"],
            name=op.f("fk_appeal_rulings_appeal_id_card_appeals"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_appeal_rulings")),
        sa.UniqueConstraint("appeal_id", name=op.f("uq_appeal_rulings_appeal_id")),
    )
    op.create_index(op.f("ix_appeal_rulings_game_id"), "appeal_rulings", ["game_id"], unique=False)

    # Plain ADD COLUMN (no batch copy): a rebuilt audit_log would lose its append-only triggers.
    op.add_column("audit_log", sa.Column("actor_kind", sa.String(length=16), nullable=True))
    op.add_column("audit_log", sa.Column("actor_token_id", sa.Integer(), nullable=True))
    op.add_column("audit_log", sa.Column("actor_ref", sa.String(length=80), nullable=True))

    dialect = op.get_bind().dialect.name
    for table in NEW_TABLES:
        if dialect == "postgresql":  # bansha_append_only() is revision 0002's
            op.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION bansha_append_only()"
            )
        elif dialect == "sqlite":
            for verb in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
                )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    for table in NEW_TABLES:
        if dialect == "postgresql":
            op.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
        elif dialect == "sqlite":
            for verb in ("update", "delete"):
                op.execute(f"DROP TRIGGER IF EXISTS {table}_no_{verb}")
    if dialect == "sqlite":
        # SQLite drops a column by copying the table, which drops its triggers: take 0002's
        # append-only triggers off first and put them back on the copy.
        for verb in ("update", "delete"):
            op.execute(f"DROP TRIGGER IF EXISTS audit_log_no_{verb}")
        with op.batch_alter_table("audit_log", schema=None) as batch_op:
            for column in ("actor_ref", "actor_token_id", "actor_kind"):
                batch_op.drop_column(column)
        for verb in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER audit_log_no_{verb.lower()} BEFORE {verb} ON audit_log "
                "BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END"
            )
    else:
        for column in ("actor_ref", "actor_token_id", "actor_kind"):
            op.drop_column("audit_log", column)
    op.drop_index(op.f("ix_appeal_rulings_game_id"), table_name="appeal_rulings")
    op.drop_table("appeal_rulings")
    op.drop_index(op.f("ix_card_appeals_game_id"), table_name="card_appeals")
    op.drop_table("card_appeals")
    op.drop_index(op.f("ix_card_revocations_game_id"), table_name="card_revocations")
    op.drop_table("card_revocations")
