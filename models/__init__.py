"""Persistence for the referee service: SQLAlchemy 2 typed models and Alembic migrations.

Tables: :mod:`models.game` (games, event logs, tokens), :mod:`models.posts`, :mod:`models.cards`
(suggestions, decisions, cards, their revocations, appeals and rulings), :mod:`models.audit`,
:mod:`models.ratelimit`,
:mod:`models.labelled` (decisions as training examples, read by ``bansha train``),
:mod:`models.idempotency` (idempotency keys of game creation),
:mod:`models.registry` (players across games, seats, results, bans, 场外助理).
:mod:`models.database` makes engines (SQLite file by default, ``DATABASE_URL`` for PostgreSQL);
:mod:`models.migrate` runs the Alembic migrations programmatically, from any directory.
"""

from models.audit import AuditEntry
from models.base import Base
from models.cards import AppealRuling, Card, CardAppeal, CardRevocation, Decision, Suggestion
from models.database import default_database_url, make_engine
from models.game import Game, GameEvent, Token
from models.idempotency import IdempotencyKey
from models.labelled import LabelledExample, LabelledExampleRow, load_labelled_examples
from models.posts import Post
from models.ratelimit import RateWindow
from models.registry import (
    Assistant,
    Ban,
    BanOverride,
    CharacterResult,
    ForumPlayer,
    PlayerName,
    Seat,
)

__all__ = [
    "AppealRuling",
    "Assistant",
    "AuditEntry",
    "Ban",
    "BanOverride",
    "Base",
    "Card",
    "CardAppeal",
    "CardRevocation",
    "CharacterResult",
    "Decision",
    "ForumPlayer",
    "Game",
    "GameEvent",
    "IdempotencyKey",
    "LabelledExample",
    "LabelledExampleRow",
    "PlayerName",
    "Post",
    "RateWindow",
    "Seat",
    "Suggestion",
    "Token",
    "default_database_url",
    "load_labelled_examples",
    "make_engine",
]
