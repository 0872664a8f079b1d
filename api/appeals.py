"""Appeals against a card, after the game: 「如需投诉法官的不当判罚，必须等该版杀结束后进行」.

A player appeals a card of their own character once the game has ended; the game's director or
the service's admin rules on it once (upheld / overturned), and the ruling is recorded with the
card. Appeals and rulings are rows of their own (append-only): a finished game is not replayed,
so an overturned card stays in the log and its ledger, marked by the ruling.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api import cardrules
from api.card_store import revocations_of
from api.errors import Conflict, Forbidden, NotFound
from api.payloads import appeal_json
from api.revocation import APPEAL_AFTER_GAME
from api.store import audit
from models.cards import AppealRuling, Card, CardAppeal, Ruling
from models.game import Game as GameRow
from models.types import utcnow

#: how a ruling reads in Chinese (for messages and the console)
RULING_NAMES = {Ruling.UPHELD: "维持原判", Ruling.OVERTURNED: "撤销原判"}


def appeal_card(
    session: Session, row: GameRow, card_id: int, *, character: str, text: str, actor: str
) -> dict[str, Any]:
    """``character``'s player appeals card ``card_id`` (the game locked by the caller)."""
    card = session.get(Card, card_id)
    if card is None or card.game_id != row.id:
        raise NotFound(f"本场游戏没有这张牌：{card_id}")
    if card.character != character:
        raise Forbidden("只能对自己角色的牌提出申诉")
    if not row.finished:
        raise Conflict(f"游戏尚未结束：{APPEAL_AFTER_GAME}", rule="appeal_after_game")
    name = cardrules.colour_name(card.colour)
    if card.source == "escalation":
        raise Conflict(
            f"这张{name}由规则自动升级产生；请对合成它的牌提出申诉",
            rule="escalation_not_appealable",
        )
    if card.id in revocations_of(session, row.id):
        raise Conflict(f"这张{name}已经撤销，无需申诉", rule="already_revoked")
    if card.appeal is not None:
        raise Conflict(f"这张{name}已经申诉过了", rule="already_appealed")
    appeal = CardAppeal(
        game_id=row.id,
        card_id=card.id,
        character=character,
        text=text,
        appealed_by=actor,
        created_at=utcnow(),
    )
    session.add(appeal)
    session.flush()
    audit(session, row.id, actor, "appeal", {"appeal_id": appeal.id, "card_id": card.id,
                                             "character": character, "text": text})  # fmt: skip
    return appeal_json(appeal)


def rule_on_appeal(
    session: Session, row: GameRow, appeal_id: int, *, ruling: Ruling, note: str, actor: str
) -> dict[str, Any]:
    """The director's or an admin's ruling on appeal ``appeal_id``, recorded once."""
    appeal = session.get(CardAppeal, appeal_id)
    if appeal is None or appeal.game_id != row.id:
        raise NotFound(f"本场游戏没有这条申诉：{appeal_id}")
    found = appeal.ruling
    if found is not None:
        raise Conflict(
            f"这条申诉已经裁决过了（{RULING_NAMES[Ruling(found.ruling)]}）", rule="already_ruled"
        )
    decided = AppealRuling(
        game_id=row.id,
        appeal_id=appeal.id,
        ruling=ruling.value,
        note=note,
        ruled_by=actor,
        created_at=utcnow(),
    )
    session.add(decided)
    session.flush()
    audit(
        session,
        row.id,
        actor,
        "appeal_ruling",
        {"appeal_id": appeal.id, "card_id": appeal.card_id, "ruling": ruling.value, "note": note},
    )
    return appeal_json(appeal, decided)


def appeals_of(session: Session, game_id: str) -> dict[int, tuple[CardAppeal, AppealRuling | None]]:
    """The game's appeals by card id, each with its ruling (None while open)."""
    rulings = {
        r.appeal_id: r
        for r in session.scalars(select(AppealRuling).where(AppealRuling.game_id == game_id))
    }
    appeals = session.scalars(
        select(CardAppeal).where(CardAppeal.game_id == game_id).order_by(CardAppeal.id)
    )
    return {a.card_id: (a, rulings.get(a.id)) for a in appeals}
