"""the forum's registry: players, seats (替补 included), results, bans, 场外助理

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01

Existing games are brought in: every ``players`` entry of a game becomes a seat of the player its
``player`` field names (the character's own name when nothing better is known; a player per
name), every 替补 in a game's log a seat of the new player from that event on, and every finished
game's roles and results are read from its log (the game rebuilt by the current game core; a log
that no longer rebuilds is logged and left without results). The backfill writes through frozen
copies of the tables as they are at this revision.
"""

# Repeated on purpose: a migration freezes the schema as it stood at its revision and never
# imports the models (they move on), so its table, column and trigger definitions resemble the
# models' and the other revisions' (duplicates lists them; they must not be merged).

from __future__ import annotations

import logging
import unicodedata
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")

NEW_TABLES = (
    "game_assistants",
    "ban_overrides",
    "player_bans",
    "character_results",
    "game_seats",
    "player_names",
    "forum_players",
)


def _fk(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    other = target.partition(".")[0]
    return sa.ForeignKeyConstraint([column], [target], name=op.f(f"fk_{table}_{column}_{other}"))


def _create_tables() -> None:
    op.create_table(
        "forum_players",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_forum_players")),
    )
    op.create_table(
        "player_names",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        _fk("player_names", "player_id", "forum_players.id"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_names")),
        sa.UniqueConstraint("name", name=op.f("uq_player_names_name")),
    )
    op.create_index(op.f("ix_player_names_player_id"), "player_names", ["player_id"])
    op.create_table(
        "game_seats",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("character", sa.String(length=64), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("substitute", sa.Boolean(), nullable=False),
        sa.Column("after_card_id", sa.Integer(), nullable=False),
        sa.Column("since", sa.DateTime(), nullable=False),
        _fk("game_seats", "game_id", "games.id"),
        _fk("game_seats", "player_id", "forum_players.id"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_seats")),
    )
    op.create_index(op.f("ix_game_seats_game_id"), "game_seats", ["game_id"])
    op.create_index(op.f("ix_game_seats_player_id"), "game_seats", ["player_id"])
    op.create_table(
        "character_results",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("character", sa.String(length=64), nullable=False),
        sa.Column("role", sa.String(length=32), nullable=False),
        sa.Column("role_name", sa.String(length=64), nullable=False),
        sa.Column("faction", sa.String(length=32), nullable=False),
        sa.Column("faction_name", sa.String(length=64), nullable=False),
        sa.Column("result", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        _fk("character_results", "game_id", "games.id"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_character_results")),
        sa.UniqueConstraint("game_id", "character", name="uq_character_results_seat"),
    )
    op.create_index(op.f("ix_character_results_game_id"), "character_results", ["game_id"])
    op.create_table(
        "player_bans",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.Integer(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("until", sa.DateTime(), nullable=True),
        sa.Column("games", sa.Integer(), nullable=True),
        sa.Column("banned_by", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        _fk("player_bans", "player_id", "forum_players.id"),
        _fk("player_bans", "card_id", "cards.id"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_bans")),
    )
    op.create_index(op.f("ix_player_bans_player_id"), "player_bans", ["player_id"])
    op.create_index(op.f("ix_player_bans_card_id"), "player_bans", ["card_id"])
    op.create_table(
        "ban_overrides",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("ban_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("overridden_by", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        _fk("ban_overrides", "ban_id", "player_bans.id"),
        _fk("ban_overrides", "game_id", "games.id"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ban_overrides")),
    )
    op.create_index(op.f("ix_ban_overrides_ban_id"), "ban_overrides", ["ban_id"])
    op.create_index(op.f("ix_ban_overrides_game_id"), "ban_overrides", ["game_id"])
    op.create_table(
        "game_assistants",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("character", sa.String(length=64), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("assistant_id", sa.Integer(), nullable=False),
        sa.Column("games_played", sa.Integer(), nullable=False),
        sa.Column("registered_by", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        _fk("game_assistants", "game_id", "games.id"),
        _fk("game_assistants", "player_id", "forum_players.id"),
        _fk("game_assistants", "assistant_id", "forum_players.id"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_assistants")),
        sa.UniqueConstraint("game_id", "character", "assistant_id", name="uq_game_assistants_pair"),
    )
    op.create_index(op.f("ix_game_assistants_game_id"), "game_assistants", ["game_id"])
    op.create_index(op.f("ix_game_assistants_player_id"), "game_assistants", ["player_id"])


# Frozen copies of the tables the backfill reads and writes.
_games = sa.table(
    "games",
    sa.column("id", sa.String),
    sa.column("ruleset", sa.String),
    sa.column("seed", sa.String),
    sa.column("players", sa.JSON),
    sa.column("version", sa.Integer),
    sa.column("finished", sa.Boolean),
    sa.column("created_at", sa.DateTime),
)
_events = sa.table(
    "game_events",
    sa.column("game_id", sa.String),
    sa.column("seq", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("payload", sa.JSON),
    sa.column("created_at", sa.DateTime),
)
_cards = sa.table(
    "cards",
    sa.column("id", sa.Integer),
    sa.column("game_id", sa.String),
    sa.column("created_at", sa.DateTime),
)
_players = sa.table(
    "forum_players",
    sa.column("id", sa.Integer),
    sa.column("name", sa.String),
    sa.column("created_at", sa.DateTime),
)
_names = sa.table(
    "player_names",
    sa.column("name", sa.String),
    sa.column("player_id", sa.Integer),
    sa.column("created_at", sa.DateTime),
)
_seats = sa.table(
    "game_seats",
    sa.column("game_id", sa.String),
    sa.column("character", sa.String),
    sa.column("player_id", sa.Integer),
    sa.column("substitute", sa.Boolean),
    sa.column("after_card_id", sa.Integer),
    sa.column("since", sa.DateTime),
)
_results = sa.table(
    "character_results",
    sa.column("game_id", sa.String),
    sa.column("character", sa.String),
    sa.column("role", sa.String),
    sa.column("role_name", sa.String),
    sa.column("faction", sa.String),
    sa.column("faction_name", sa.String),
    sa.column("result", sa.String),
    sa.column("created_at", sa.DateTime),
)


def _player_id(connection: sa.Connection, name: str, at: datetime, known: dict[str, int]) -> int:
    key = unicodedata.normalize("NFKC", name).strip()
    if key not in known:
        inserted = connection.execute(
            sa.insert(_players).values(name=key, created_at=at).returning(_players.c.id)
        )
        known[key] = int(inserted.scalar_one())
        connection.execute(sa.insert(_names).values(name=key, player_id=known[key], created_at=at))
    return known[key]


def _results_of(row: Any, events: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Each character's role and result, read by rebuilding the finished game."""
    from api.gameplay import rebuild_game

    characters = [p if isinstance(p, str) else p["character"] for p in row.players]
    game = rebuild_game(row.ruleset, row.seed, characters, events[: row.version])
    results = game.outcome().results
    out = []
    for character in characters:
        view = game.character_view(character)
        out.append(
            {
                "character": character,
                "role": view.role,
                "role_name": view.role_name,
                "faction": view.faction,
                "faction_name": view.faction_name,
                "result": str(results.get(view.faction, "undecided")),
            }
        )
    return out


def backfill(connection: sa.Connection) -> tuple[int, int, int]:
    """Seat every existing game's players; (games, seats, games with results)."""
    known: dict[str, int] = {}
    games = seats = finished = 0
    now = datetime.now(UTC).replace(tzinfo=None)
    for row in connection.execute(sa.select(_games).order_by(_games.c.created_at, _games.c.id)):
        games += 1
        for entry in row.players or []:
            character = entry if isinstance(entry, str) else entry["character"]
            name = character if isinstance(entry, str) else entry.get("player") or character
            connection.execute(
                sa.insert(_seats).values(
                    game_id=row.id,
                    character=character,
                    player_id=_player_id(connection, name, row.created_at, known),
                    substitute=False,
                    after_card_id=0,
                    since=row.created_at,
                )
            )
            seats += 1
        logged = connection.execute(
            sa.select(_events.c.kind, _events.c.payload, _events.c.created_at)
            .where(_events.c.game_id == row.id)
            .order_by(_events.c.seq)
        ).all()
        for kind, payload, at in logged:
            if kind != "substituted":
                continue
            before = connection.execute(
                sa.select(sa.func.max(_cards.c.id)).where(
                    _cards.c.game_id == row.id, _cards.c.created_at <= at
                )
            ).scalar()
            connection.execute(
                sa.insert(_seats).values(
                    game_id=row.id,
                    character=payload["character"],
                    player_id=_player_id(connection, payload["new_player"], at, known),
                    substitute=True,
                    after_card_id=int(before or 0),
                    since=at,
                )
            )
            seats += 1
        if not row.finished:
            continue
        try:
            results = _results_of(row, [p for _k, p, _a in logged])
        except Exception:  # a log the current core no longer rebuilds: keep its seats only
            log.warning("0006: game %s: could not rebuild its log; no results", row.id)
            continue
        for result in results:
            connection.execute(sa.insert(_results).values(game_id=row.id, created_at=now, **result))
        finished += 1
    return games, seats, finished


def upgrade() -> None:
    _create_tables()
    games, seats, finished = backfill(op.get_bind())
    log.info("0006: %d game(s) brought into the registry: %d seat(s), %d result set(s)",
             games, seats, finished)  # fmt: skip


def downgrade() -> None:
    for table in NEW_TABLES:
        op.drop_table(table)
