"""Revoking a card given in error: the way back, while the game runs.

The card row stays (cards are append-only); a :class:`~models.cards.CardRevocation` row takes it
out of its ledger. The character's ledger is then replayed from the cards that still count
(:func:`api.card_store.reconcile`): an escalation that no longer holds is revoked with it (kind
``recomputed``), and one the remaining cards now make is stored. If the character no longer has
a red card, a red card's ejection is withdrawn through the game core
(:class:`~game_rules.actions.WithdrawEjection`), which the core allows only while the ejection is
still the game's latest event; otherwise the whole revocation is refused (nothing is stored) and
the card can only be appealed after the game (:mod:`api.appeals`).
"""

from __future__ import annotations

from typing import Any

from api import cardrules
from api.card_store import reconcile, revocations_of, store_escalation, stored_cards
from api.errors import Conflict
from api.gameplay import GameRuleError
from api.locking import LockedGame
from api.payloads import card_json, revocation_json
from api.store import audit, row_of_game
from game_rules import actions as act
from game_rules.events import Announced, Carded, withdrawn_positions
from models.cards import Card, CardRevocation, RevocationKind
from models.types import utcnow

#: the seed's words on complaints about a ruling (M08, 003): what a refused revocation points to
APPEAL_AFTER_GAME = "如需投诉法官的不当判罚，必须等该版杀结束后进行"


def find_card(locked: LockedGame, card_id: int) -> Card:
    """The game's card ``card_id``, or 404."""
    missing = f"本场游戏没有这张牌：{card_id}"
    return row_of_game(locked.session, Card, card_id, locked.row.id, missing)


def ejection_position(locked: LockedGame, character: str) -> int | None:
    """Where in the log ``character`` was put out by a red card that still stands, if anywhere."""
    log = locked.game.log
    taken = withdrawn_positions(log)
    for i in range(len(log) - 1, 0, -1):
        e = log[i]
        if (
            i not in taken
            and isinstance(e, Carded)
            and e.character == character
            and e.colour == cardrules.RED
            and not e.already_out
        ):
            return i
    return None


def revoke_card(locked: LockedGame, card_id: int, *, reason: str, actor: str) -> dict[str, Any]:
    """Revoke ``card_id`` with ``reason``: recompute the ledger, withdraw an ejection it undoes."""
    session, row = locked.session, locked.row
    card = find_card(locked, card_id)
    name = cardrules.colour_name(card.colour)
    # Repeated on purpose: appeal and revocation refuse these each in own words and rule.
    if card.source == "escalation":
        raise Conflict(
            f"这张{name}由规则自动升级产生，不能单独撤销；请撤销合成它的某一张牌",
            rule="escalation_not_revocable",
        )
    if card.id in revocations_of(session, row.id):
        raise Conflict(f"这张{name}已经撤销过了", rule="already_revoked")
    if locked.game.state.ended:
        raise Conflict(
            f"游戏已经结束，判罚不能再撤销：{APPEAL_AFTER_GAME}（赛后由玩家申诉）",
            rule="appeal_after_game",
        )
    character = card.character
    live = stored_cards(session, row.id, character)
    was_red = reconcile(row.ruleset, character, live).ledger.is_red
    replayed = reconcile(row.ruleset, character, [c for c in live if c.id != card.id])
    # The game first: a refused withdrawal refuses the revocation before anything is stored.
    withdrawn: dict[str, Any] | None = None
    if was_red and not replayed.ledger.is_red:
        withdrawn = _withdraw_ejection(locked, character, name)
    now = utcnow()
    revocation = CardRevocation(
        game_id=row.id,
        card_id=card.id,
        kind=RevocationKind.DIRECTOR.value,
        reason=reason,
        cause_id=None,
        revoked_by=actor,
        ejection_withdrawn=withdrawn is not None,
        created_at=now,
    )
    session.add(revocation)
    session.flush()
    undone: list[Card] = []
    for stale in replayed.stale:
        session.add(
            CardRevocation(
                game_id=row.id,
                card_id=stale.id,
                kind=RevocationKind.RECOMPUTED.value,
                reason=f"合成这张{cardrules.colour_name(stale.colour)}的牌已撤销，升级不再成立",
                cause_id=revocation.id,
                revoked_by="system",
                ejection_withdrawn=False,
                created_at=now,
            )
        )
        undone.append(stale)
    added: list[Card] = []
    for step in replayed.missing:  # in ledger order, so a chain's lower step is stored first
        esc = store_escalation(
            locked, character, step, replayed.row_ids, day=card.day, decision_id=None
        )
        replayed.row_ids[step.position] = esc.id
        added.append(esc)
    session.flush()
    audit(
        session,
        row.id,
        actor,
        "revocation",
        {
            "card_id": card.id,
            "character": character,
            "colour": card.colour,
            "reason": reason,
            "undone": [c.id for c in undone],
            "escalations": [c.id for c in added],
            "ejection_withdrawn": withdrawn is not None,
        },
    )
    return {
        "revocation": revocation_json(revocation),
        "card": card_json(card, revocation=revocation),
        "undone": [card_json(c) for c in undone],
        "cards": [card_json(c) for c in added],
        "ejection_withdrawn": withdrawn,
        "outcome": locked.game.outcome().to_dict(),
    }


def _withdraw_ejection(locked: LockedGame, character: str, name: str) -> dict[str, Any] | None:
    """Withdraw the red card's ejection of ``character`` (None when none stands); 409 when
    anything has happened in the game since (the caller's transaction then stores nothing)."""
    since = ejection_position(locked, character)
    if since is None:  # out for another reason, or the card came after the game: nothing to undo
        return None
    try:
        events = locked.game.apply(act.WithdrawEjection(character, since))
    except GameRuleError as exc:
        raise Conflict(
            f"{character}被红牌罚下之后游戏已有新的进展，这张{name}不能再撤销；"
            f"{APPEAL_AFTER_GAME}（赛后由玩家申诉）",
            rule=exc.rule,
        ) from exc
    locked.pending.extend(events)
    detail = {
        "character": character,
        "announcements": [e.text for e in events if isinstance(e, Announced)],
    }
    audit(locked.session, locked.row.id, "system", "ejection_withdrawn", detail)
    return detail
