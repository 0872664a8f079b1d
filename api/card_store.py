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
from models.cards import Card, CardRevocation
from models.types import utcnow

#: cards still in their ledgers: not revoked (a revocation is a row of its own, never an edit)
_LIVE = ~select(CardRevocation.id).where(CardRevocation.card_id == Card.id).exists()


def stored_cards(session: Session, game_id: str, character: str) -> list[Card]:
    """A character's card rows that count (not revoked), in issue order."""
    return list(
        session.scalars(
            select(Card)
            .where(Card.game_id == game_id, Card.character == character, _LIVE)
            .order_by(Card.id)
        )
    )


def revocations_of(session: Session, game_id: str) -> dict[int, CardRevocation]:
    """The game's revocations by the id of the card each one revoked."""
    rows = session.scalars(select(CardRevocation).where(CardRevocation.game_id == game_id))
    return {r.card_id: r for r in rows}


_CARD_FACTS = (
    select(Card.id, Card.colour, Card.source, Card.category, Card.reason, Card.day)
    .where(Card.game_id == bindparam("game_id"), Card.character == bindparam("character"), _LIVE)
    .order_by(Card.id)
)


def stored_card_facts(
    connection: Connection, game_id: str, character: str
) -> list[cardrules.StoredCard]:
    """A character's cards that count, in issue order, as the ledger needs them (one Core
    query, no ORM)."""
    rows = connection.execute(_CARD_FACTS, {"game_id": game_id, "character": character})
    return [cardrules.StoredCard(*row) for row in rows]


def ledger_for(ruleset: str, character: str, cards: Sequence[Card]) -> CardLedger:
    """The penalties module's ledger for stored cards that count (leave revoked ones out)."""
    return cardrules.ledger_of(
        ruleset,
        character,
        [
            cardrules.StoredCard(c.id, c.colour, c.source, c.category, c.reason, c.day)
            for c in cards
        ],
    )


@dataclass
class Reconciled:
    """A character's ledger replayed from the cards that count, matched to the stored rows.

    ``row_ids`` gives the stored row of each ledger position (None where the cards that count
    make an escalation no row records yet: ``missing``); ``stale`` are stored escalation rows
    the cards that count no longer make (one of their merged cards was revoked).
    """

    ledger: CardLedger
    row_ids: list[int | None]
    missing: list[cardrules.Step]
    stale: list[Card]


def reconcile(ruleset: str, character: str, live: Sequence[Card]) -> Reconciled:
    """Replay ``live`` (the rows that count, in issue order) card by card through the ledger.

    An escalation row matches a replayed escalation when it has the same colour and merged the
    same rows. Without revocations every escalation matches and nothing is missing or stale.
    """
    ledger = cardrules.ledger_of(ruleset, character, [])
    row_ids: list[int | None] = []
    missing: list[cardrules.Step] = []
    unmatched = [c for c in live if c.source == "escalation"]
    for card in live:
        if card.source == "escalation":
            continue
        ledger, steps = cardrules.add_card(
            ruleset,
            ledger,
            card.colour,
            card.reason,
            source=card.source,
            category=card.category,
            day=card.day,
        )
        row_ids.append(card.id)
        for step in steps:
            merged = [row_ids[i] for i in step.merged_positions]
            match = next(
                (e for e in unmatched if e.colour == step.colour and e.escalated_from == merged),
                None,
            )
            if match is None:
                missing.append(step)
                row_ids.append(None)
            else:
                unmatched.remove(match)
                row_ids.append(match.id)
    return Reconciled(ledger, row_ids, missing, unmatched)


def store_escalation(
    locked: LockedGame,
    character: str,
    step: cardrules.Step,
    row_ids: list[int | None],
    *,
    day: int,
    decision_id: int | None,
) -> Card:
    """Store the escalation ``step`` (its merged positions mapped through ``row_ids``), audited."""
    session, row = locked.session, locked.row
    merged = [row_ids[i] for i in step.merged_positions]
    assert None not in merged, "an escalation merges stored cards only"
    # Repeated on purpose: each stored record is built keyword by keyword from its own columns.
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
        created_at=utcnow(),
    )
    session.add(esc)
    session.flush()
    audit(
        session,
        row.id,
        "system",
        "escalation",
        {"card_id": esc.id, "character": character, "colour": step.colour, "merged": merged,
         "reason": step.reason},
    )  # fmt: skip
    return esc


@dataclass
class CardOutcome:
    """What issuing one card did: the cards stored (incl. escalations) and any ejection."""

    cards: list[Card] = field(default_factory=list)
    ejected: dict[str, Any] | None = None


# Repeated on purpose: keyword-only parameters, shaped like night.withdraw_skill's by chance.
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
    previous = reconcile(row.ruleset, character, stored_cards(session, row.id, character))
    assert not previous.missing and not previous.stale, "ledger and stored cards out of step"
    _, steps = cardrules.add_card(
        row.ruleset, previous.ledger, colour, reason, source=source, category=category, day=day
    )
    # Repeated on purpose: each stored record is built keyword by keyword from its own columns.
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
        created_at=utcnow(),
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
    # Ledger positions -> row ids (reconcile matched every earlier position to its row).
    row_ids = [*previous.row_ids, card.id]
    for step in steps:
        esc = store_escalation(locked, character, step, row_ids, day=day, decision_id=decision_id)
        row_ids.append(esc.id)
        assert len(row_ids) == step.position + 1, "ledger and stored cards out of step"
        outcome.cards.append(esc)
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
