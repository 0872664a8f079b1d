"""Persistence for the referee service: SQLAlchemy 2 typed models and Alembic migrations.

Tables: :mod:`models.game` (games, event logs, tokens), :mod:`models.posts`, :mod:`models.cards`
(suggestions, decisions, cards, their revocations, appeals and rulings), :mod:`models.audit`,
:mod:`models.ratelimit`,
:mod:`models.labelled` (decisions as training examples, read by ``bansha train``),
:mod:`models.idempotency` (idempotency keys of game creation).
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

__all__ = [
    "AppealRuling",
    "AuditEntry",
    "Base",
    "Card",
    "CardAppeal",
    "CardRevocation",
    "Decision",
    "Game",
    "GameEvent",
    "IdempotencyKey",
    "LabelledExample",
    "LabelledExampleRow",
    "Post",
    "RateWindow",
    "Suggestion",
    "Token",
    "default_database_url",
    "load_labelled_examples",
    "make_engine",
]
