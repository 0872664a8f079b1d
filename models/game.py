"""Games, their append-only event logs and the access tokens that reach them."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from models.base import Base
from models.types import UTCDateTime, one_of, utcnow


class TokenKind(StrEnum):
    """Whose a token is (``tokens.kind``): a game's director's, or one character's player's."""

    DIRECTOR = "director"
    PLAYER = "player"


class Game(Base):
    """One running game. Its state is not stored: it is rebuilt by folding :class:`GameEvent` rows.

    ``version`` is the number of events in the log; it is bumped in the same transaction that
    appends events, so a process may cache a rebuilt game keyed by ``(id, version)`` and never
    serve a stale one.
    """

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(32))
    # Secret until the game ends (the commitment is published instead).
    seed: Mapped[str] = mapped_column(String(128))
    players: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    commitment: Mapped[str] = mapped_column(String(128))
    version: Mapped[int] = mapped_column(Integer, default=0)
    finished: Mapped[bool] = mapped_column(Boolean, default=False)
    # Days on which the process was accelerated (加速): no lurking/no-vote penalties for them.
    accelerated_days: Mapped[list[int]] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    #: the log, in order (``GameEvent.seq``), and the tokens that reach the game
    events: Mapped[list[GameEvent]] = relationship(
        back_populates="game", order_by="GameEvent.seq", viewonly=True
    )
    tokens: Mapped[list[Token]] = relationship(
        back_populates="game", order_by="Token.id", viewonly=True
    )


class GameEvent(Base):
    """One event of a game's log, serialised by the game core; never updated or deleted."""

    __tablename__ = "game_events"
    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_game_events_game_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(64))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    game: Mapped[Game] = relationship(back_populates="events", viewonly=True)


class Token(Base):
    """An access token, stored only as its SHA-256: a director's (whole game) or a player's.

    A token is never reassigned; revoking it sets ``revoked_at`` once (a trigger refuses any other
    update), and every request carrying it is refused from then on. A reissued token is a new row.
    """

    __tablename__ = "tokens"
    __table_args__ = (one_of("kind", TokenKind),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))  # TokenKind
    character: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    game: Mapped[Game] = relationship(back_populates="tokens", viewonly=True)
