"""Forum posts as ingested and screened."""

# Repeated on purpose: tables are declared column by column in SQLAlchemy's typed style (an id,
# the game it belongs to, who and when), so tables of the same kind share shape.

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from models.base import Base
from models.types import UTCDateTime, one_of, utcnow


class Thread(StrEnum):
    """Which of a game's threads a post was made in (``posts.thread``)."""

    DISCUSSION = "discussion"  # 讨论帖
    VOTE = "vote"  # 投票帖
    PROCESS = "process"  # 进程帖
    RULES = "rules"  # 规则帖


class Post(Base):
    """A forum post; ``(game_id, forum_post_id)`` is unique so a retried post is stored once."""

    __tablename__ = "posts"
    __table_args__ = (
        UniqueConstraint("game_id", "forum_post_id", name="uq_posts_game_forum_id"),
        one_of("thread", Thread),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    forum_post_id: Mapped[str] = mapped_column(String(64))
    author: Mapped[str] = mapped_column(String(64))
    thread: Mapped[str] = mapped_column(String(16))  # Thread
    day: Mapped[int] = mapped_column(Integer)
    body: Mapped[str] = mapped_column(Text)
    posted_at: Mapped[datetime] = mapped_column(UTCDateTime)
    is_water: Mapped[bool] = mapped_column(Boolean, default=False)
    counts_activity: Mapped[bool] = mapped_column(Boolean, default=True)
    zombie: Mapped[bool] = mapped_column(Boolean, default=False)
    findings: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    vote: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
