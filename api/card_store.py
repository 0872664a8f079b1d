"""Card storage: a character's stored cards, their ledger, and issuing a card (its escalations
stored as cards of their own, a red one ejecting through :mod:`api.ejection`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, bindparam, select
from sqlalchemy.orm import Session

from api import cardrules
from api.ejection import eject
from api.errors import Conflict
from api.gameplay import GameRuleError
from api.locking import LockedGame
from api.store import audit
from game_rules.penalties import CardLedger
from models.cards import Card
from models.types import utcnow


def stored_cards(session: Session, game_id: str, character: str) -> list[Card]:
    """A character's card rows in issue order."""
    return list(
        session.scalars(
            select(Card)
            .where(Card.game_id == game_id, Card.character == character)
            .order_by(Card.id)
        )
    )


_CARD_FACTS = (
    select(Card.id, Card.colour, Card.source, Card.category, Card.reason, Card.day)
    .where(Card.game_id == bindparam("game_id"), Card.character == bindparam("character"))
    .order_by(Card.id)
)


def stored_card_facts(
    connection: Connection, game_id: str, character: str
) -> list[cardrules.StoredCard]:
    """A character's cards in issue order, as the ledger needs them (one Core query, no ORM)."""
    rows = connection.execute(_CARD_FACTS, {"game_id": game_id, "character": character})
    return [cardrules.StoredCard(*row) for row in rows]


def ledger_for(ruleset: str, character: str, cards: Sequence[Card]) -> CardLedger:
    """The penalties module's ledger for stored cards."""
    return cardrules.ledger_of(
        ruleset,
        character,
        [
            cardrules.StoredCard(c.id, c.colour, c.source, c.category, c.reason, c.day)
            for c in cards
        ],
    )


@dataclass
class CardOutcome:
    """What issuing one card did: the cards stored (incl. escalations) and any ejection."""

    cards: list[Card] = field(default_factory=list)
    ejected: dict[str, Any] | None = None


def issue_card(
    locked: LockedGame,
    *,
    character: str,
    colour: str,
    category: str | None,
    reason: str,
    source: str,
    issued_by: str,
    day: int,
    decision_id: int | None = None,
    faction_lost: bool = False,
) -> CardOutcome:
    """Add a card to ``character``'s ledger, store its escalations, eject on red."""
    session, row = locked.session, locked.row
    try:
        cardrules.check_cardable(
            row.ruleset, colour, eliminated=not locked.game.state.is_alive(character)
        )
    except GameRuleError as exc:
        raise Conflict(exc.message, rule=exc.rule) from exc
    previous = stored_cards(session, row.id, character)
    ledger = ledger_for(row.ruleset, character, previous)
    _, steps = cardrules.add_card(
        row.ruleset, ledger, colour, reason, source=source, category=category, day=day
    )
    now = utcnow()
    card = Card(
        game_id=row.id,
        character=character,
        colour=colour,
        source=source,
        category=category,
        decision_id=decision_id,
        escalated_from=[],
        reason=reason,
        issued_by=issued_by,
        day=day,
        created_at=now,
    )
    session.add(card)
    session.flush()
    outcome = CardOutcome(cards=[card])
    audit(
        session,
        row.id,
        issued_by,
        "card",
        {"card_id": card.id, "character": character, "colour": colour, "reason": reason,
         "source": source, "category": category},
    )  # fmt: skip
    # Ledger positions -> row ids: the rows in id order are the ledger's cards in order.
    row_ids = [c.id for c in previous] + [card.id]
    for step in steps:
        merged = [row_ids[i] for i in step.merged_positions]
        esc = Card(
            game_id=row.id,
            character=character,
            colour=step.colour,
            source="escalation",
            category=None,
            decision_id=decision_id,
            escalated_from=merged,
            reason=step.reason,
            issued_by="system",
            day=day,
            created_at=now,
        )
        session.add(esc)
        session.flush()
        row_ids.append(esc.id)
        assert len(row_ids) == step.position + 1, "ledger and stored cards out of step"
        outcome.cards.append(esc)
        audit(
            session,
            row.id,
            "system",
            "escalation",
            {"card_id": esc.id, "character": character, "colour": step.colour, "merged": merged,
             "reason": step.reason},
        )  # fmt: skip
    red = next((c for c in outcome.cards if c.colour == cardrules.RED), None)
    if red is not None:
        outcome.ejected = eject(
            locked, character, public_cause(row.ruleset, red), issued_by, faction_lost
        )
    return outcome


def public_cause(ruleset: str, card: Card) -> str:
    """The cause recorded in the public game log: the article or the escalation, never the
    director's note or private evidence."""
    if card.source == "escalation":
        return card.reason
    article = cardrules.category_article(ruleset, card.category or "other")
    if article is not None:
        return article["cite"]
    return cardrules.category_name(card.category or "other")
