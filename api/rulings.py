"""The director's rulings: deciding a suggestion and giving a card directly."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from api import cardrules
from api.card_store import CardOutcome, issue_card
from api.errors import BadRequest, Conflict, NotFound
from api.locking import LockedGame
from api.payloads import card_json, decision_json
from api.store import audit
from lexicons.loader import CATEGORIES as LEXICON_CATEGORIES
from models.cards import Decision, Suggestion
from models.labelled import LabelledExampleRow
from models.posts import Post
from models.types import utcnow

#: categories the classifier learns (the lexicon's); decisions on other kinds are not examples
TEXT_CATEGORIES = frozenset(LEXICON_CATEGORIES)


def give_card(
    locked: LockedGame,
    *,
    character: str,
    category: str,
    colour: str,
    reason: str,
    day: int | None,
    faction_lost: bool,
    actor: str,
) -> dict[str, Any]:
    """A card given directly (串号/作弊 → red ...): recorded as a manual suggestion and decided at
    once, so it has the same audit trail, ledger arithmetic and ejection as any other ruling."""
    suggestion = Suggestion(
        game_id=locked.row.id,
        post_id=None,
        character=character,
        kind="manual",
        category=category,
        colour=colour,
        reasons=[{"article": cardrules.category_article(locked.ruleset, category), "text": reason}],
        day=locked.game.state.day if day is None else day,
        status="pending",
        created_at=utcnow(),
    )
    locked.session.add(suggestion)
    locked.session.flush()
    return decide(
        locked,
        suggestion,
        action="confirm",
        colour=None,
        note=reason,
        faction_lost=faction_lost,
        actor=actor,
    )


def decide(
    locked: LockedGame,
    suggestion: Suggestion,
    *,
    action: str,
    colour: str | None,
    note: str,
    faction_lost: bool,
    actor: str,
) -> dict[str, Any]:
    """The director's ruling on a suggestion: store it, issue the card, learn from it."""
    session, row = locked.session, locked.row
    if suggestion.status != "pending":
        raise Conflict(f"建议 {suggestion.id} 已经裁决过了", rule="already_decided")
    if action == "confirm":
        if colour is not None and colour != suggestion.colour:
            raise BadRequest(
                "confirm 保持建议的牌色；要换牌色请用 change",
                path="$.colour",
            )
        final = suggestion.colour
    elif action == "dismiss":
        if colour not in (None, cardrules.GREEN):
            raise BadRequest("dismiss 即绿牌（不违规），不能另给牌色", path="$.colour")
        final = cardrules.GREEN
    else:
        if colour is None:
            raise BadRequest("change 需要给出牌色", path="$.colour")
        final = colour
    if faction_lost and final != cardrules.RED:
        raise BadRequest("只有红牌可以附带判负（faction_lost）", path="$.faction_lost")
    if faction_lost and not cardrules.may_declare_faction_lost(row.ruleset):
        raise Conflict("本场规则不允许随红牌判负阵营", rule="red_faction_lost_not_allowed")
    decision = Decision(
        game_id=row.id,
        suggestion_id=suggestion.id,
        action=action,
        colour=final,
        note=note,
        faction_lost=faction_lost,
        decided_by=actor,
        decided_at=utcnow(),
    )
    session.add(decision)
    session.flush()
    suggestion.status = "decided"
    audit(
        session,
        row.id,
        actor,
        "decision",
        {
            "decision_id": decision.id,
            "suggestion_id": suggestion.id,
            "character": suggestion.character,
            "action": action,
            "suggested": suggestion.colour,
            "colour": final,
            "note": note,
            "faction_lost": faction_lost,
        },
    )
    outcome = CardOutcome()
    if final != cardrules.GREEN:
        reason = card_reason(suggestion, note, row.ruleset)
        outcome = issue_card(
            locked,
            character=suggestion.character,
            colour=final,
            category=suggestion.category,
            reason=reason,
            source="decision",
            issued_by=actor,
            day=suggestion.day,
            decision_id=decision.id,
            faction_lost=faction_lost,
        )
    post = session.get(Post, suggestion.post_id) if suggestion.post_id is not None else None
    if post is not None and suggestion.kind == "post":
        labels = (
            []
            if final == cardrules.GREEN
            else sorted({f["category"] for f in post.findings if f["category"] in TEXT_CATEGORIES})
        )
        session.add(
            LabelledExampleRow(
                game_id=row.id,
                decision_id=decision.id,
                ruleset=row.ruleset,
                text=post.body,
                labels=labels,
                created_at=utcnow(),
            )
        )
    return {
        "decision": decision_json(decision),
        "cards": [card_json(c) for c in outcome.cards],
        "ejected": outcome.ejected,
        "outcome": locked.game.outcome().to_dict(),
    }


def card_reason(suggestion: Suggestion, note: str, suggestion_ruleset: str) -> str:
    """The Chinese reason written on a card: the article cited, the evidence, the note."""
    parts: list[str] = []
    cited = next(
        (r["article"]["cite"] for r in suggestion.reasons
         if isinstance(r.get("article"), dict) and r["article"].get("cite")),
        None,
    )  # fmt: skip
    parts.append(cited or cardrules.category_name(suggestion.category))
    evidence = [r["text"] for r in suggestion.reasons if "finding" in r]
    if evidence:
        parts.append("、".join(evidence))
    elif suggestion.kind in ("zombie", "activity"):
        parts.append(str(suggestion.reasons[0].get("text", "")))
    if note:
        parts.append(f"{cardrules.rules(suggestion_ruleset).director}备注：{note}")
    return "；".join(p for p in parts if p)


def find_suggestion(session: Session, suggestion_id: int) -> Suggestion:
    """The suggestion, or 404."""
    found = session.get(Suggestion, suggestion_id)
    if found is None:
        raise NotFound(f"没有这条建议：{suggestion_id}")
    return found
