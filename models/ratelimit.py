"""Fixed-window request counters per token, shared by every worker through the database."""

from __future__ import annotations

from sqlalchemy import Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from models.base import Base


class RateWindow(Base):
    """How many posting requests one token made in one window (``window`` = epoch // length)."""

    __tablename__ = "rate_windows"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    window: Mapped[int] = mapped_column(Integer, primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)
