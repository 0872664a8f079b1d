"""Idempotency keys for ``POST /api/games``: a retried creation answers with the first game.

One row per (scope, key): the key is stored only as its SHA-256, next to the fingerprint of the
request body it first came with and the response it got — without the tokens, which are kept
only sealed (encrypted and authenticated under a key derived from the service's secret, see
:mod:`api.idempotency`), so this table alone holds no usable token. Rows are kept at least 24
hours; nothing deletes them yet (a cleanup may delete rows older than a day at any time).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from models.base import Base
from models.types import UTCDateTime, utcnow


class IdempotencyKey(Base):
    """The first successful request made with one idempotency key in one caller scope."""

    __tablename__ = "idempotency_keys"
    # The unique key is what makes concurrent duplicates create one game: the second insert
    # waits for (PostgreSQL) or follows (SQLite) the first and finds the key taken.
    __table_args__ = (
        UniqueConstraint("scope", "key_hash", name="uq_idempotency_keys_scope_key_hash"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    # Who may replay: "public" or "admin:<sha256 of the admin token>", for POST /api/games.
    scope: Mapped[str] = mapped_column(String(80))
    key_hash: Mapped[str] = mapped_column(String(64))
    # SHA-256 of the canonical JSON of the request body the key was first used with.
    request_hash: Mapped[str] = mapped_column(String(64))
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    status: Mapped[int] = mapped_column(Integer)
    # The first response's body with the tokens left out.
    response: Mapped[dict[str, Any]] = mapped_column(JSON)
    # The first response's tokens, sealed (Fernet) under the service's secret; None for rows
    # from before revision 0005, whose tokens (derived from the key) that migration revoked.
    sealed_tokens: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
