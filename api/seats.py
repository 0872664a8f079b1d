"""Who played which character: seating a new game's players, 替补, results, card holders.

Every function here runs inside the caller's write transaction, so the registry changes exactly
when the game does (a game refused or rolled back seats nobody). Players are found by name
(:func:`find_player`); an unknown name becomes a new player, and two games creating the same new
player at once cannot make two of it: the name is unique and the loser of the race reads the
winner's row (:func:`player_for`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from game_rules.events import Event, Substituted
from game_rules.game import Game
from game_rules.names import nfkc_name
from models.cards import Card
from models.registry import CharacterResult, ForumPlayer, PlayerName, Seat
from models.types import utcnow


def registry_name(name: str) -> str:
    """The form a forum name is looked up by (NFKC, trimmed).

    >>> registry_name(" 张三 ")
    '张三'
    """
    return nfkc_name(name)


def find_player(session: Session, name: str) -> ForumPlayer | None:
    """The player known under ``name`` (display name or alias), or None."""
    player_id = session.scalar(
        select(PlayerName.player_id).where(PlayerName.name == registry_name(name))
    )
    return None if player_id is None else session.get(ForumPlayer, player_id)


def player_for(session: Session, name: str) -> ForumPlayer:
    """The player known under ``name``, created (with ``name`` as display name) when unknown."""
    found = find_player(session, name)
    if found is not None:
        return found
    key = registry_name(name)
    try:
        # A savepoint: losing the race on the unique name must not undo the caller's work.
        with session.begin_nested():
            player = ForumPlayer(name=key, created_at=utcnow())
            session.add(player)
            session.flush()
            session.add(PlayerName(name=key, player_id=player.id, created_at=utcnow()))
            session.flush()
        return player
    except IntegrityError:
        found = find_player(session, name)
        if found is None:  # pragma: no cover - the unique name exists, so it resolves
            raise
        return found


def seat_players(session: Session, game_id: str, players: Sequence[Mapping[str, Any]]) -> None:
    """Seat a new game's players (``players`` as :mod:`api.games` stores them)."""
    now = utcnow()
    for entry in players:
        player = player_for(session, str(entry.get("player") or entry["character"]))
        session.add(
            Seat(
                game_id=game_id,
                character=entry["character"],
                player_id=player.id,
                substitute=False,
                after_card_id=0,
                since=now,
            )
        )


def last_card_id(session: Session, game_id: str) -> int:
    """The largest card id of the game so far (0 without cards)."""
    return int(session.scalar(select(func.max(Card.id)).where(Card.game_id == game_id)) or 0)


def record_substitutions(session: Session, game_id: str, events: Iterable[Event]) -> list[Seat]:
    """A seat for every 替补 among ``events`` (just applied to the locked game), from now on."""
    seats = []
    for event in events:
        if not isinstance(event, Substituted):
            continue
        player = player_for(session, event.new_player)
        seat = Seat(
            game_id=game_id,
            character=event.character,
            player_id=player.id,
            substitute=True,
            after_card_id=last_card_id(session, game_id),
            since=utcnow(),
        )
        session.add(seat)
        seats.append(seat)
    session.flush()
    return seats


def record_results(session: Session, game_id: str, game: Game) -> None:
    """Each character's role and its faction's result, once, when the game has just ended.

    Called under the game's row lock when the log first holds the end, so a second finisher
    cannot exist; the unique (game, character) constraint says so once more.
    """
    if session.scalar(select(CharacterResult.id).where(CharacterResult.game_id == game_id)):
        return
    results = game.outcome().results
    for character in game.state.characters:
        view = game.character_view(character)
        session.add(
            CharacterResult(
                game_id=game_id,
                character=character,
                role=view.role,
                role_name=view.role_name,
                faction=view.faction,
                faction_name=view.faction_name,
                result=str(results.get(view.faction, "undecided")),
                created_at=utcnow(),
            )
        )


def holder(seats: Sequence[Seat], card_id: int) -> Seat | None:
    """Which of one character's ``seats`` held it when card ``card_id`` was issued: the latest
    seat that began before the card (a substitute inherits earlier cards in the game, but the
    record of who earned them stays with the player who did)."""
    found = None
    for seat in sorted(seats, key=lambda s: (s.after_card_id, s.id)):
        if seat.after_card_id < card_id:
            found = seat
    return found
