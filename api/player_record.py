"""A player's record across games, bans in force and 场外助理 eligibility (read side).

Nothing here is stored twice: games played are the player's seats (:class:`models.registry.Seat`),
cards are the games' own cards attributed to the seat that held the character when each was
issued (:func:`api.seats.holder`), and a ban's games served are the forum's games created since.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from sqlalchemy import func, not_, select
from sqlalchemy.orm import Session

from api import cardrules
from api.payloads import appeal_json, revocation_json
from api.registry_rules import Published, assistant_rule, separate_record
from api.seats import holder
from models.cards import AppealRuling, Card, CardAppeal, CardRevocation, Ruling
from models.game import Game as GameRow
from models.registry import Ban, BanOverride, CharacterResult, ForumPlayer, Seat
from models.types import utcnow


def names_of(session: Session, player_id: int) -> list[str]:
    """Every name the player is known under, display name first."""
    player = session.get(ForumPlayer, player_id)
    if player is None:
        return []
    names = [n.name for n in player.names]
    if player.name in names:
        names.remove(player.name)
        names.insert(0, player.name)
    return names


def games_played(session: Session, player_id: int, *, excluding: str | None = None) -> int:
    """How many games the player has taken part in (a 替补 seat counts), ``excluding`` one."""
    query = select(func.count(func.distinct(Seat.game_id))).where(Seat.player_id == player_id)
    if excluding is not None:
        query = query.where(Seat.game_id != excluding)
    return int(session.scalar(query) or 0)


def seated_in(session: Session, player_id: int, game_id: str) -> bool:
    """Whether the player held a character of ``game_id`` at any time."""
    return (
        session.scalar(
            select(Seat.id).where(Seat.player_id == player_id, Seat.game_id == game_id).limit(1)
        )
        is not None
    )


def current_holder(session: Session, game_id: str, character: str) -> Seat | None:
    """The seat that holds ``character`` now (the 替补's, after a substitution)."""
    return session.scalars(
        select(Seat)
        .where(Seat.game_id == game_id, Seat.character == character)
        .order_by(Seat.after_card_id.desc(), Seat.id.desc())
        .limit(1)
    ).first()


def seat_of_token(
    session: Session, game_id: str, character: str, issued: datetime | None
) -> Seat | None:
    """The seat a player token speaks for: the one that held the character when the token was
    issued (a token the director reissued to a 替补 is the 替补's)."""
    seats = list(
        session.scalars(
            select(Seat)
            .where(Seat.game_id == game_id, Seat.character == character)
            .order_by(Seat.id)
        )
    )
    if not seats:
        return None
    found = seats[0]
    for seat in seats[1:]:
        if issued is not None and seat.since <= issued:
            found = seat
    return found


# -- bans ---------------------------------------------------------------------------------------


def games_served(session: Session, ban: Ban, *, excluding: str | None = None) -> int:
    """The forum's games created since the ban without the banned player in them (``excluding``
    the game being created, whose players are not seated yet)."""
    with_player = select(Seat.game_id).where(Seat.player_id == ban.player_id)
    query = select(func.count(GameRow.id)).where(
        GameRow.created_at > ban.created_at, not_(GameRow.id.in_(with_player))
    )
    if excluding is not None:
        query = query.where(GameRow.id != excluding)
    return int(session.scalar(query) or 0)


def in_force(session: Session, ban: Ban, *, excluding: str | None = None) -> bool:
    """Whether ``ban`` still keeps its player out of new games."""
    if ban.until is not None:
        return utcnow() < ban.until
    return ban.games is not None and games_served(session, ban, excluding=excluding) < ban.games


def bans_in_force(session: Session, player_id: int, *, excluding: str | None = None) -> list[Ban]:
    """The player's bans that are in force now (``excluding``: see :func:`games_served`)."""
    bans = session.scalars(select(Ban).where(Ban.player_id == player_id).order_by(Ban.id))
    return [b for b in bans if in_force(session, b, excluding=excluding)]


def ban_term(ban: Ban) -> str:
    """The ban's term in words.

    >>> ban_term(Ban(games=2, until=None))
    '禁赛2场'
    """
    if ban.until is not None:
        return f"禁赛至{ban.until.astimezone().strftime('%Y-%m-%d %H:%M')}"
    return f"禁赛{ban.games}场"


def ban_json(session: Session, ban: Ban) -> dict[str, Any]:
    """A ban as JSON, with the card it cites, what it has served and its overrides."""
    card = session.get(Card, ban.card_id)
    overrides = session.scalars(
        select(BanOverride).where(BanOverride.ban_id == ban.id).order_by(BanOverride.id)
    )
    return {
        "id": ban.id,
        "player_id": ban.player_id,
        "card_id": ban.card_id,
        "game_id": None if card is None else card.game_id,
        "reason": ban.reason,
        "term": ban_term(ban),
        "until": None if ban.until is None else ban.until.isoformat(),
        "games": ban.games,
        "games_served": games_served(session, ban),
        "in_force": in_force(session, ban),
        "banned_by": ban.banned_by,
        "created_at": ban.created_at.isoformat(),
        "overrides": [
            {
                "game_id": o.game_id,
                "reason": o.reason,
                "overridden_by": o.overridden_by,
                "created_at": o.created_at.isoformat(),
            }
            for o in overrides
        ],
    }


# -- cards --------------------------------------------------------------------------------------


def earned_cards(session: Session, player_id: int) -> list[tuple[Card, GameRow]]:
    """Every card the player earned (by the seat that held the character then), in order."""
    seats = list(session.scalars(select(Seat).where(Seat.player_id == player_id)))
    out: list[tuple[Card, GameRow]] = []
    for game_id, character in sorted({(s.game_id, s.character) for s in seats}):
        row = session.get(GameRow, game_id)
        assert row is not None
        everyone = list(
            session.scalars(
                select(Seat).where(Seat.game_id == game_id, Seat.character == character)
            )
        )
        cards = session.scalars(
            select(Card)
            .where(Card.game_id == game_id, Card.character == character)
            .order_by(Card.id)
        )
        for card in cards:
            seat = holder(everyone, card.id)
            if seat is not None and seat.player_id == player_id:
                out.append((card, row))
    out.sort(key=lambda pair: (pair[0].created_at, pair[0].id))
    return out


def standing(session: Session, card: Card) -> bool:
    """Whether the card still counts: not revoked, and no appeal overturned it."""
    revocation, _appeal, ruling = card_status(session, card)
    return revocation is None and not (ruling is not None and ruling.ruling == Ruling.OVERTURNED)


def card_status(
    session: Session, card: Card
) -> tuple[CardRevocation | None, CardAppeal | None, AppealRuling | None]:
    """The card's revocation, its appeal and that appeal's ruling (each None when absent)."""
    appeal = card.appeal
    return card.revocation, appeal, None if appeal is None else appeal.ruling


def _card_entry(session: Session, card: Card, row: GameRow) -> dict[str, Any]:
    revocation, appeal, ruling = card_status(session, card)
    entry: dict[str, Any] = {
        "id": card.id,
        "game_id": row.id,
        "ruleset": row.ruleset,
        "character": card.character,
        "colour": card.colour,
        "colour_name": cardrules.colour_name(card.colour),
        "category": card.category,
        "article": None
        if card.category is None
        else cardrules.category_article(row.ruleset, card.category),
        "reason": card.reason,
        "day": card.day,
        "created_at": card.created_at.isoformat(),
        "standing": standing(session, card),
        "revoked": None if revocation is None else revocation_json(revocation),
        "appeal": None if appeal is None else appeal_json(appeal, ruling),
        "separate_record": None,
    }
    if card.colour == cardrules.RED:
        record = separate_record(row.ruleset)
        entry["separate_record"] = {"keeper": record.keeper, "text": record.text}
    return entry


# -- the record ---------------------------------------------------------------------------------


def _next_since(session: Session, seat: Seat) -> datetime | None:
    """When the next player took the seat's character over (seats are written in order)."""
    return session.scalar(
        select(Seat.since)
        .where(Seat.game_id == seat.game_id, Seat.character == seat.character, Seat.id > seat.id)
        .order_by(Seat.id)
        .limit(1)
    )


def _games(session: Session, player_id: int) -> list[dict[str, Any]]:
    seats = session.scalars(select(Seat).where(Seat.player_id == player_id).order_by(Seat.id))
    out = []
    for seat in seats:
        row = session.get(GameRow, seat.game_id)
        assert row is not None
        later = _next_since(session, seat)
        result = session.scalar(
            select(CharacterResult).where(
                CharacterResult.game_id == seat.game_id,
                CharacterResult.character == seat.character,
            )
        )
        out.append(
            {
                "game_id": row.id,
                "ruleset": row.ruleset,
                "character": seat.character,
                "substitute": seat.substitute,
                "since": seat.since.isoformat(),
                "until": None if later is None else later.isoformat(),
                "finished": row.finished,
                "role": None if result is None else result.role,
                "role_name": None if result is None else result.role_name,
                "faction": None if result is None else result.faction,
                "faction_name": None if result is None else result.faction_name,
                "result": None if result is None else result.result,
            }
        )
    return out


def record(
    session: Session, player: ForumPlayer, *, full: bool, published: Collection[Published]
) -> dict[str, Any]:
    """The player's record: everything when ``full`` (the admin, the director of a game they
    played in, the player), otherwise what the forum publishes (``published``)."""
    show_games = full or Published.GAMES in published
    cards = [_card_entry(session, c, row) for c, row in earned_cards(session, player.id)]
    if not full:
        if Published.CARDS in published:
            cards = [c for c in cards if c["standing"]]
        elif Published.RED_CARDS in published:
            cards = [c for c in cards if c["standing"] and c["colour"] == cardrules.RED]
        else:
            cards = []
    bans = []
    if full or Published.BANS in published:
        rows = session.scalars(select(Ban).where(Ban.player_id == player.id).order_by(Ban.id))
        bans = [ban_json(session, b) for b in rows]
    return {
        "player": {"id": player.id, "name": player.name, "names": names_of(session, player.id)},
        "full": full,
        "games_played": games_played(session, player.id) if show_games else None,
        "games": _games(session, player.id) if show_games else [],
        "cards": cards,
        "red_cards": sum(1 for c in cards if c["colour"] == cardrules.RED and c["standing"]),
        "bans": bans,
    }


def has_published(session: Session, player_id: int, published: Collection[Published]) -> bool:
    """Whether the public sees anything of this player (so that a public search lists them)."""
    if Published.GAMES in published:
        return True
    if Published.BANS in published and session.scalar(
        select(Ban.id).where(Ban.player_id == player_id).limit(1)
    ):
        return True
    wanted = Published.CARDS in published or Published.RED_CARDS in published
    if not wanted:
        return False
    return any(
        (Published.CARDS in published or card.colour == cardrules.RED) and standing(session, card)
        for card, _row in earned_cards(session, player_id)
    )


def eligibility(session: Session, game: GameRow, player_id: int) -> dict[str, Any]:
    """场外助理 eligibility of the player in ``game`` under its ruleset, with the count."""
    rule = assistant_rule(game.ruleset)
    before = games_played(session, player_id, excluding=game.id)
    return {
        "games_played": before,
        "max_games_before": rule.max_games_before,
        "eligible": rule.eligible(before),
        "rule": rule.allowed if rule.eligible(before) else rule.refused,
    }
