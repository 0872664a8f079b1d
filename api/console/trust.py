"""The console's way back from a wrong card, and its audit page.

Revoking is two steps: the 角色与牌 page links each card to a confirmation page, which shows
what revoking would do, found by running the revocation itself in a transaction that is then
rolled back (so the preview and the real thing cannot disagree: the same ledger arithmetic, the
same game-core check that an ejection is still the latest event); only the confirmation form
on that page revokes. Both call :func:`api.revocation.revoke_card`, as the API does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api import cardrules
from api.appeals import RULING_NAMES, appeals_of, rule_on_appeal
from api.audit_trail import ACTION_NAMES, entries, parse_action
from api.card_store import revocations_of
from api.console.labels import colour_label, label
from api.console.service import ConsoleError, api_message, local_time
from api.database import db
from api.errors import ApiError
from api.locking import RolledBack, locked_game
from api.revocation import revoke_card
from api.store import lock_game
from models.audit import AuditAction
from models.cards import Card, Ruling
from models.game import Game as GameRow
from models.game import Token


@dataclass(frozen=True)
class RevocationPreview:
    """A card and what revoking it would do (or why it would be refused)."""

    card: dict[str, Any]
    lines: list[str] = field(default_factory=list)
    refusal: str | None = None


def card_view(card: Card) -> dict[str, Any]:
    """A card for the confirmation page."""
    return {
        "id": card.id,
        "character": card.character,
        "colour": card.colour,
        "colour_name": colour_label(card.colour),
        "source_name": label("card_sources", card.source),
        "category_name": cardrules.category_name(card.category) if card.category else "",
        "reason": card.reason,
        "day": card.day,
    }


def revocable_cards(session: Session, row: GameRow) -> list[dict[str, Any]]:
    """The cards a director may revoke now, newest first (not escalations, not revoked)."""
    revoked = revocations_of(session, row.id)
    cards = session.scalars(select(Card).where(Card.game_id == row.id).order_by(Card.id.desc()))
    return [card_view(c) for c in cards if c.source != "escalation" and c.id not in revoked]


def describe(result: dict[str, Any]) -> list[str]:
    """What a revocation did, in the console's words."""
    card = result["card"]
    lines = [f"{card['character']}的{colour_label(card['colour'])}撤销，牌账按剩余的牌重新计算"]
    for c in result["undone"]:
        lines.append(f"升级不再成立：{colour_label(c['colour'])}（{c['reason']}）随之撤销")
    for c in result["cards"]:
        lines.append(f"剩余的牌重新升级：{colour_label(c['colour'])}（{c['reason']}）")
    withdrawn = result.get("ejection_withdrawn")
    if withdrawn:
        lines.extend(f"公示：{line}" for line in withdrawn["announcements"])
    return lines


def _card(game_id: str, card_id: int) -> Card:
    with db().read() as session:
        card = session.get(Card, card_id)
        if card is None or card.game_id != game_id:
            raise ConsoleError("本场游戏没有这张牌")
        return card


def preview_revocation(game_id: str, card_id: int) -> RevocationPreview:
    """What revoking ``card_id`` would do now, without doing it."""
    card = card_view(_card(game_id, card_id))
    try:
        with locked_game(game_id) as (_session, locked):
            result = revoke_card(locked, card_id, reason="（预览）", actor="director")
            raise RolledBack(result)
    except RolledBack as done:
        return RevocationPreview(card, describe(done.value))
    except ApiError as exc:
        return RevocationPreview(card, refusal=api_message(exc))
    raise AssertionError("unreachable: the preview always rolls back")  # pragma: no cover


def revoke(game_id: str, card_id: int, *, reason: str, actor: str) -> list[str]:
    """Revoke ``card_id`` for ``reason``; what it did, for the flash messages."""
    if not reason.strip():
        raise ConsoleError("请写明撤销的理由")
    if len(reason) > 2000:
        raise ConsoleError("理由不能超过2000字")
    _card(game_id, card_id)
    try:
        with locked_game(game_id) as (_session, locked):
            result = revoke_card(locked, card_id, reason=reason.strip(), actor=actor)
    except ApiError as exc:
        raise ConsoleError(api_message(exc)) from exc
    return describe(result)


def appeals(session: Session, row: GameRow) -> list[dict[str, Any]]:
    """The game's appeals for the 角色与牌 page, each with its card and ruling."""
    out = []
    for appeal, ruling in appeals_of(session, row.id).values():
        card = session.get(Card, appeal.card_id)
        assert card is not None
        out.append(
            {
                "id": appeal.id,
                "card": card_view(card),
                "text": appeal.text,
                "at": local_time(appeal.created_at),
                "ruling": None
                if ruling is None
                else {
                    "name": RULING_NAMES[Ruling(ruling.ruling)],
                    "note": ruling.note,
                    "by": ruling.ruled_by,
                    "at": local_time(ruling.created_at),
                },
            }
        )
    return out


def rule(game_id: str, appeal_id: int, *, ruling: str, note: str) -> str:
    """The director's ruling on an appeal, from the console."""
    try:
        decided = Ruling(ruling)
    except ValueError:
        raise ConsoleError("请选择维持原判或撤销原判") from None
    if len(note) > 2000:
        raise ConsoleError("备注不能超过2000字")
    try:
        with db().write() as session:
            row = lock_game(session, game_id)
            rule_on_appeal(
                session, row, appeal_id, ruling=decided, note=note.strip(), actor="director"
            )
    except ApiError as exc:
        raise ConsoleError(api_message(exc)) from exc
    return RULING_NAMES[decided]


def audit_rows(session: Session, game_id: str, action: str | None) -> list[dict[str, Any]]:
    """The game's audit entries for the 审计记录 page, newest first."""
    try:
        chosen = parse_action(action)
    except ApiError as exc:
        raise ConsoleError(exc.message) from exc
    tokens = {t.id: t for t in session.scalars(select(Token).where(Token.game_id == game_id))}
    rows = []
    for e in entries(session, game_id, action=chosen):
        token = tokens.get(e.actor_token_id) if e.actor_token_id is not None else None
        if token is not None:
            holder = "导演令牌" if token.kind == "director" else f"{token.character}的玩家令牌"
            proven = f"{holder} #{token.id}"
        elif e.actor_kind == "admin":
            proven = f"管理员令牌 {e.actor_ref}"
        elif e.actor_kind:
            proven = {"operator": "服务器操作员", "public": "未登录"}.get(
                e.actor_kind, e.actor_kind
            )
        else:
            proven = "（未记录）"
        rows.append(
            {
                "id": e.id,
                "at": local_time(e.at, "%m-%d %H:%M:%S"),
                "action": e.action,
                "action_name": _action_name(e.action),
                "actor": e.actor,
                "proven": proven,
                "detail": json.dumps(e.detail, ensure_ascii=False, sort_keys=True),
            }
        )
    rows.reverse()
    return rows


def _action_name(action: str) -> str:
    try:
        return ACTION_NAMES[AuditAction(action)]
    except ValueError:  # an action this code does not know (written by a newer release)
        return action


def audit_choices() -> list[tuple[str, str]]:
    """The 审计记录 page's filter: (value, Chinese name)."""
    return [(a.value, ACTION_NAMES[a]) for a in AuditAction]
