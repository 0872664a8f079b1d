"""The director's decisions as labelled training examples for the post classifier.

Every decision on a post stores the post's text with the labels the director's ruling implies:
the suggestion's categories when a card was given, ``[]`` (clean) when it was dismissed as green.
``bansha train --include-decisions`` reads them with :func:`load_labelled_examples`.
"""

# Repeated on purpose: tables are declared column by column in SQLAlchemy's typed style (an id,
# the game it belongs to, who and when), so tables of the same kind share shape.

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Integer, String, Text, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from models.base import Base
from models.database import make_engine
from models.types import UTCDateTime, utcnow


class LabelledExampleRow(Base):
    """One decision's text and labels (append-only)."""

    __tablename__ = "labelled_examples"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    decision_id: Mapped[int] = mapped_column(ForeignKey("decisions.id"), unique=True)
    ruleset: Mapped[str] = mapped_column(String(32))
    text: Mapped[str] = mapped_column(Text)
    labels: Mapped[list[str]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


@dataclass(frozen=True)
class LabelledExample:
    """A text and the categories a director's decision gave it (``()`` = clean)."""

    text: str
    labels: tuple[str, ...]
    ruleset: str = ""
    id: str = ""


def load_labelled_examples(database_url: str | None = None) -> list[LabelledExample]:
    """Every labelled example at ``database_url`` (default: the service's DB), oldest first.

    Ids are ``decision-<n>`` so they never collide with corpus ids.
    """
    engine = make_engine(database_url, write=False)
    try:
        with Session(engine) as session:
            rows = session.scalars(select(LabelledExampleRow).order_by(LabelledExampleRow.id))
            return [
                LabelledExample(
                    text=row.text,
                    labels=tuple(row.labels),
                    ruleset=row.ruleset,
                    id=f"decision-{row.decision_id}",
                )
                for row in rows
            ]
    finally:
        engine.dispose()
