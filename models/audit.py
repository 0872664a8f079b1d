"""The audit trail: who did what, when and why. Rows are only ever inserted."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from models.base import Base
from models.types import UTCDateTime, utcnow

# Tables whose rows may never change once written; the migration installs triggers enforcing it.
APPEND_ONLY_TABLES = ("audit_log", "cards", "decisions", "game_events", "labelled_examples")


class AuditEntry(Base):
    """One audited act (decision, card, escalation, ejection, game action, day close)."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    actor: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(32))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON)
