"""closed sets: each string column holding a closed set accepts only that set's keys

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02

Before anything changes, every row is checked: a value outside its set stops the upgrade with a
message naming the table, the column, the values and how many rows hold each, and the database
is left as it was (fix or delete those rows, then upgrade again). On PostgreSQL each set is a
``CHECK`` constraint; SQLite cannot add one to an existing table without rebuilding it (which
would drop the append-only triggers of revisions 0002 and 0004 and trip the foreign keys that
point at it), so there the same rule is a pair of triggers (insert, and update of the column)
per column, refusing with the same constraint name.

The sets are written out here on purpose, as they stand at this revision: a migration must not
change what it did once when an enum in the code later grows (that takes a new revision).
``tests/api/test_migration_0007.py`` checks that they equal the models' constraints at head.
"""

# Repeated on purpose: a migration freezes the schema as it stood at its revision and never
# imports the models (they move on), so its table, column and trigger definitions resemble the
# models' and the other revisions' (duplicates lists them; they must not be merged).

from __future__ import annotations

from collections.abc import Iterator

import sqlalchemy as sa
from alembic import op

from models.migrate import MigrationRefused

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_CATEGORIES = (
    "insult", "oath", "vest", "director", "evidence", "real_life", "meta", "emotional", "font",
    "water", "zombie", "lurking", "no_vote", "missed_action", "multi_account", "cheating",
    "avatar", "off_site", "delete_post", "floor_reply", "other",
)  # fmt: skip
_COLOURS = ("green", "blue", "yellow", "red")
_AUDIT_ACTIONS = (
    "create_game", "decision", "card", "escalation", "ejection", "revocation",
    "ejection_withdrawn", "appeal", "appeal_ruling", "action", "close_day", "close_night",
    "revoke_token", "issue_token", "ban", "ban_override", "assistant", "announcement_posted",
    "forum_intake", "forum_account_mapped",
)  # fmt: skip

#: (table, column) -> the keys it may hold, at this revision (repeated on purpose, see above)
CLOSED_SETS: dict[tuple[str, str], tuple[str, ...]] = {
    ("tokens", "kind"): ("director", "player"),
    ("suggestions", "kind"): ("post", "zombie", "activity", "manual"),
    ("suggestions", "category"): _CATEGORIES,
    ("suggestions", "colour"): _COLOURS,
    ("suggestions", "status"): ("pending", "decided"),
    ("decisions", "action"): ("confirm", "change", "dismiss"),
    ("decisions", "colour"): _COLOURS,
    ("cards", "colour"): _COLOURS,
    ("cards", "source"): ("decision", "fixed", "escalation"),
    ("cards", "category"): _CATEGORIES,
    ("card_revocations", "kind"): ("director", "recomputed"),
    ("appeal_rulings", "ruling"): ("upheld", "overturned"),
    ("posts", "thread"): ("discussion", "vote", "process", "rules"),
    ("audit_log", "action"): _AUDIT_ACTIONS,
    ("audit_log", "actor_kind"): ("director", "player", "admin", "operator", "public"),
    ("character_results", "result"): ("win", "lose", "undecided"),
}


def _in_list(values: tuple[str, ...]) -> str:
    return ", ".join("'" + v.replace("'", "''") + "'" for v in values)


def _name(table: str, column: str) -> str:
    return f"ck_{table}_{column}"  # models.base.NAMING_CONVENTION


def out_of_set(connection: sa.Connection) -> Iterator[str]:
    """One line per (table, column) whose rows hold values outside its set."""
    for (table, column), values in CLOSED_SETS.items():
        rows = connection.execute(
            sa.text(
                f"SELECT {column}, COUNT(*) FROM {table} "
                f"WHERE {column} NOT IN ({_in_list(values)}) GROUP BY {column} ORDER BY {column}"
            )
        ).all()
        if rows:
            found = ", ".join(f"{value!r} ×{count}" for value, count in rows)
            yield f"{table}.{column}: {found} (allowed: {', '.join(values)})"


def upgrade() -> None:
    connection = op.get_bind()
    problems = list(out_of_set(connection))
    if problems:
        raise MigrationRefused(
            "数据库升级 0007 在改动任何内容之前停止：以下各行的取值不在该列允许的范围内，"
            "请改正或删除这些行后再运行 `bansha db upgrade`"
            "（revision 0007 changed nothing: rows hold values outside their column's set）:\n  "
            + "\n  ".join(problems)
        )
    dialect = connection.dialect.name
    for (table, column), values in CLOSED_SETS.items():
        name = _name(table, column)
        if dialect == "sqlite":
            refuse = f"SELECT RAISE(ABORT, 'CHECK constraint failed: {name}')"
            when = f"WHEN NEW.{column} NOT IN ({_in_list(values)})"
            op.execute(
                f"CREATE TRIGGER {name}_insert BEFORE INSERT ON {table} FOR EACH ROW "
                f"{when} BEGIN {refuse}; END"
            )
            op.execute(
                f"CREATE TRIGGER {name}_update BEFORE UPDATE OF {column} ON {table} FOR EACH ROW "
                f"{when} BEGIN {refuse}; END"
            )
        else:
            op.execute(
                f"ALTER TABLE {table} ADD CONSTRAINT {name} "
                f"CHECK ({column} IN ({_in_list(values)}))"
            )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    for table, column in reversed(list(CLOSED_SETS)):
        name = _name(table, column)
        if dialect == "sqlite":
            op.execute(f"DROP TRIGGER IF EXISTS {name}_insert")
            op.execute(f"DROP TRIGGER IF EXISTS {name}_update")
        else:
            op.execute(f"ALTER TABLE {table} DROP CONSTRAINT IF EXISTS {name}")
