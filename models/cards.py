"""The review queue, the director's decisions and the card ledger (append-only)."""

# Repeated on purpose: tables are declared column by column in SQLAlchemy's typed style (an id,
# the game it belongs to, who and when), so tables of the same kind share shape.

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from game_rules.enums import CardColour, Category
from models.base import Base
from models.types import UTCDateTime, one_of, utcnow


class SuggestionKind(StrEnum):
    """What a suggestion came from (``suggestions.kind``)."""

    POST = "post"  # a screened post's findings
    ZOMBIE = "zombie"  # a post by a character already out (诈尸)
    ACTIVITY = "activity"  # the close's 潜水/未投票 yellows
    MANUAL = "manual"  # a card the director gave directly


class SuggestionStatus(StrEnum):
    """Whether the director has ruled on a suggestion."""

    PENDING = "pending"
    DECIDED = "decided"


class DecisionAction(StrEnum):
    """The director's ruling on a suggestion (``decisions.action``)."""

    CONFIRM = "confirm"
    CHANGE = "change"
    DISMISS = "dismiss"


class CardOrigin(StrEnum):
    """Where a stored card came from (``cards.source``; the core's ``CardSource``, other keys)."""

    DECISION = "decision"
    FIXED = "fixed"
    ESCALATION = "escalation"


class Suggestion(Base):
    """A card the referee suggests; the director decides it once (see :class:`Decision`)."""

    __tablename__ = "suggestions"
    __table_args__ = (
        one_of("kind", SuggestionKind),
        one_of("category", Category),
        one_of("colour", CardColour),
        one_of("status", SuggestionStatus),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    post_id: Mapped[int | None] = mapped_column(ForeignKey("posts.id"))
    character: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(16))  # SuggestionKind
    category: Mapped[str] = mapped_column(String(32))  # game_rules.enums.Category
    colour: Mapped[str] = mapped_column(String(8))  # game_rules.enums.CardColour
    reasons: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    day: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default=SuggestionStatus.PENDING.value)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    #: the director's ruling, once made
    decision: Mapped[Decision | None] = relationship(back_populates="suggestion", viewonly=True)


class Decision(Base):
    """The director's ruling on one suggestion; unique per suggestion, never edited."""

    __tablename__ = "decisions"
    __table_args__ = (one_of("action", DecisionAction), one_of("colour", CardColour))

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    suggestion_id: Mapped[int] = mapped_column(ForeignKey("suggestions.id"), unique=True)
    action: Mapped[str] = mapped_column(String(16))  # DecisionAction
    colour: Mapped[str] = mapped_column(String(8))
    note: Mapped[str] = mapped_column(Text, default="")
    faction_lost: Mapped[bool] = mapped_column(Boolean, default=False)
    decided_by: Mapped[str] = mapped_column(String(64))
    decided_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    suggestion: Mapped[Suggestion] = relationship(back_populates="decision", viewonly=True)


class Card(Base):
    """One card in a character's ledger: decided, fixed (lurking/no-vote) or from escalation."""

    __tablename__ = "cards"
    __table_args__ = (
        one_of("colour", CardColour),
        one_of("source", CardOrigin),
        one_of("category", Category),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    character: Mapped[str] = mapped_column(String(64))
    colour: Mapped[str] = mapped_column(String(8))
    source: Mapped[str] = mapped_column(String(16))  # CardOrigin
    category: Mapped[str | None] = mapped_column(String(32))
    decision_id: Mapped[int | None] = mapped_column(ForeignKey("decisions.id"))
    # For escalation cards: the ids of the cards that were merged into this one.
    escalated_from: Mapped[list[int]] = mapped_column(JSON, default=list)
    reason: Mapped[str] = mapped_column(Text)
    issued_by: Mapped[str] = mapped_column(String(64))
    day: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    #: what took the card out of its ledger, if anything did, and the appeal against it
    revocation: Mapped[CardRevocation | None] = relationship(
        back_populates="card", viewonly=True, foreign_keys="CardRevocation.card_id"
    )
    appeal: Mapped[CardAppeal | None] = relationship(back_populates="card", viewonly=True)


class RevocationKind(StrEnum):
    """Why a card no longer counts."""

    #: the director revoked it (given in error), with a reason
    DIRECTOR = "director"
    #: an escalation whose merged cards no longer all count (one of them was revoked)
    RECOMPUTED = "recomputed"


class CardRevocation(Base):
    """A card taken out of its ledger; the card row itself is never edited (append-only)."""

    __tablename__ = "card_revocations"
    __table_args__ = (one_of("kind", RevocationKind),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    card_id: Mapped[int] = mapped_column(ForeignKey("cards.id"), unique=True)
    kind: Mapped[str] = mapped_column(String(16))  # RevocationKind
    reason: Mapped[str] = mapped_column(Text)
    # for a recomputed escalation: the director's revocation that undid it
    cause_id: Mapped[int | None] = mapped_column(ForeignKey("card_revocations.id"))
    revoked_by: Mapped[str] = mapped_column(String(64))
    # whether the red card's ejection was withdrawn in the game with it
    ejection_withdrawn: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    card: Mapped[Card] = relationship(back_populates="revocation", viewonly=True)


class Ruling(StrEnum):
    """The director's or an admin's ruling on an appeal."""

    #: the card stands
    UPHELD = "upheld"
    #: the card was wrong (recorded with the card; the finished game is not replayed)
    OVERTURNED = "overturned"


class CardAppeal(Base):
    """A player's appeal against a card of their character, made after the game (one per card)."""

    __tablename__ = "card_appeals"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    card_id: Mapped[int] = mapped_column(ForeignKey("cards.id"), unique=True)
    character: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(Text)
    appealed_by: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    card: Mapped[Card] = relationship(back_populates="appeal", viewonly=True)
    ruling: Mapped[AppealRuling | None] = relationship(back_populates="appeal", viewonly=True)


class AppealRuling(Base):
    """The ruling on one appeal (once, never edited)."""

    __tablename__ = "appeal_rulings"
    __table_args__ = (one_of("ruling", Ruling),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    appeal_id: Mapped[int] = mapped_column(ForeignKey("card_appeals.id"), unique=True)
    ruling: Mapped[str] = mapped_column(String(16))  # Ruling
    note: Mapped[str] = mapped_column(Text)
    ruled_by: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    appeal: Mapped[CardAppeal] = relationship(back_populates="ruling", viewonly=True)
