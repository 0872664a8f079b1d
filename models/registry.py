"""The forum's record across games: players (forum accounts), who played which character of
which game and from when, each character's result, bans (禁赛) and 场外助理 registrations.

A *player* is a forum account and outlives games; a *character* (马甲) belongs to one game. The
link is :class:`Seat`: one row per player who held a character, the original player's from the
game's creation and a substitute's (替补) from the substitution on. Which cards a player earned is
not stored twice: a card of a character belongs to the seat that held the character when the card
was issued (:attr:`Seat.after_card_id`, see :mod:`api.seats`).
"""

# Repeated on purpose: tables are declared column by column in SQLAlchemy's typed style (an id,
# the game it belongs to, who and when), so tables of the same kind share shape.

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from game_rules.enums import Result
from models.base import Base
from models.types import UTCDateTime, one_of, utcnow


class ForumPlayer(Base):
    """A forum account (one person as far as the forum knows), under one or more names."""

    __tablename__ = "forum_players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    #: the name the record shows (the first one seen)
    name: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    #: every name that resolves to this player (the display name among them)
    names: Mapped[list[PlayerName]] = relationship(
        back_populates="player", order_by="PlayerName.id", viewonly=True
    )


class PlayerName(Base):
    """A name (the display name or an alias, NFKC-normalised) that resolves to one player."""

    __tablename__ = "player_names"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("forum_players.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    player: Mapped[ForumPlayer] = relationship(back_populates="names", viewonly=True)


class Seat(Base):
    """``player`` held ``character`` of ``game_id`` from ``since`` (替补: ``substitute``).

    ``after_card_id`` is the largest card id of the game when the seat began (0 for the original
    player): the game's cards are issued under its row lock, so every card issued to the character
    later has a larger id, whatever the clocks of the workers say.
    """

    __tablename__ = "game_seats"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    character: Mapped[str] = mapped_column(String(64))
    player_id: Mapped[int] = mapped_column(ForeignKey("forum_players.id"), index=True)
    substitute: Mapped[bool] = mapped_column(Boolean, default=False)
    after_card_id: Mapped[int] = mapped_column(Integer, default=0)
    since: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    player: Mapped[ForumPlayer] = relationship(viewonly=True)


class CharacterResult(Base):
    """A character's role and its faction's result, written once when the game ends."""

    __tablename__ = "character_results"
    __table_args__ = (
        UniqueConstraint("game_id", "character", name="uq_character_results_seat"),
        one_of("result", Result),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    character: Mapped[str] = mapped_column(String(64))
    role: Mapped[str] = mapped_column(String(32))
    role_name: Mapped[str] = mapped_column(String(64))
    faction: Mapped[str] = mapped_column(String(32))
    faction_name: Mapped[str] = mapped_column(String(64))
    #: game_rules.enums.Result
    result: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Ban(Base):
    """禁赛: the forum's admin bans a player after a game, citing the red card that earned it.

    Either ``until`` (a period) or ``games`` (the number of the forum's games, created after the
    ban, that the player sits out) is set, never both.
    """

    __tablename__ = "player_bans"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("forum_players.id"), index=True)
    card_id: Mapped[int] = mapped_column(ForeignKey("cards.id"), index=True)
    reason: Mapped[str] = mapped_column(Text)
    until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    games: Mapped[int | None] = mapped_column(Integer)
    banned_by: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class BanOverride(Base):
    """The admin let a banned player into a game anyway, on the record."""

    __tablename__ = "ban_overrides"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    ban_id: Mapped[int] = mapped_column(ForeignKey("player_bans.id"), index=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    reason: Mapped[str] = mapped_column(Text)
    overridden_by: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Assistant(Base):
    """场外助理: a director registered ``assistant_id`` for the player of ``character``, with the
    games that player had already played at that moment (the count the rule was checked on)."""

    __tablename__ = "game_assistants"
    __table_args__ = (
        UniqueConstraint("game_id", "character", "assistant_id", name="uq_game_assistants_pair"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    character: Mapped[str] = mapped_column(String(64))
    player_id: Mapped[int] = mapped_column(ForeignKey("forum_players.id"), index=True)
    assistant_id: Mapped[int] = mapped_column(ForeignKey("forum_players.id"))
    games_played: Mapped[int] = mapped_column(Integer)
    registered_by: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
