"""The audit trail: who did what, when and why. Rows are only ever inserted."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from models.base import Base
from models.types import UTCDateTime, one_of, utcnow

# Tables whose rows may never change once written; the migrations install triggers enforcing it
# (0002 the first five, 0004 the revocations, appeals and rulings).
APPEND_ONLY_TABLES = (
    "audit_log",
    "cards",
    "decisions",
    "game_events",
    "labelled_examples",
    "card_revocations",
    "card_appeals",
    "appeal_rulings",
)


class AuditAction(StrEnum):
    """What an audit entry records (the ``action`` column)."""

    CREATE_GAME = "create_game"
    DECISION = "decision"
    CARD = "card"
    ESCALATION = "escalation"
    EJECTION = "ejection"
    REVOCATION = "revocation"
    EJECTION_WITHDRAWN = "ejection_withdrawn"
    APPEAL = "appeal"
    APPEAL_RULING = "appeal_ruling"
    ACTION = "action"
    CLOSE_DAY = "close_day"
    CLOSE_NIGHT = "close_night"
    REVOKE_TOKEN = "revoke_token"
    ISSUE_TOKEN = "issue_token"
    BAN = "ban"
    BAN_OVERRIDE = "ban_override"
    ASSISTANT = "assistant"
    #: the director marked a 公示 as posted on the forum (console; ``detail.unmarked`` undoes it)
    ANNOUNCEMENT_POSTED = "announcement_posted"
    #: posts imported from a saved forum page or a followed thread (forum intake)
    FORUM_INTAKE = "forum_intake"
    #: the director said which character a forum account plays (forum intake)
    FORUM_ACCOUNT_MAPPED = "forum_account_mapped"


class ActorKind(StrEnum):
    """The kinds of authenticated identity an audit entry can name (``audit_log.actor_kind``)."""

    DIRECTOR = "director"
    PLAYER = "player"
    #: the holder of BANSHA_ADMIN_TOKEN (creates games, rules on appeals)
    ADMIN = "admin"
    #: whoever runs ``bansha`` on the service's host (holds the database)
    OPERATOR = "operator"
    PUBLIC = "public"


class AuditEntry(Base):
    """One audited act (decision, card, escalation, ejection, game action, close, token change,
    revocation, appeal, ruling).

    ``actor`` is who the act is attributed to (``director``, ``player:<character>``, ``admin``,
    ``operator``, ``system`` for the rules' own consequences); ``actor_kind``, ``actor_token_id``
    and ``actor_ref`` are the *authenticated* identity of the request that caused it (the token
    row, or the admin token's fingerprint), never a name the client typed. Entries written before
    revision 0004 have no authenticated identity (NULL).
    """

    __tablename__ = "audit_log"
    __table_args__ = (one_of("action", AuditAction), one_of("actor_kind", ActorKind))

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    actor: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(32))
    actor_kind: Mapped[str | None] = mapped_column(String(16))  # ActorKind
    actor_token_id: Mapped[int | None] = mapped_column(Integer)
    actor_ref: Mapped[str | None] = mapped_column(String(80))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON)
