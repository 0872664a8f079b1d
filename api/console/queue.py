"""The review queue (审核队列): suggested cards with their evidence, filters and paging, and the
director's ruling on one, with the second step a red card needs.

A ruling that gives a red card, pressed as 红牌 or reached by escalation (3 蓝 → 1 黄,
3 黄 → 1 红, from the character's ledger), is not applied until the director confirms it on a
second page (:class:`NeedsConfirmation`): one key press must not eject a character.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flask import current_app, has_app_context
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from api import cardrules
from api.card_store import ledger_for
from api.console.findings import STRENGTHS, finding_view, strongest
from api.console.forms import decision_for
from api.console.highlight import highlight, spans_from_findings
from api.console.labels import colour_label, label, thread_label
from api.console.posts_page import PostFilters, category_choices, page_links
from api.console.service import (
    DECIDABLE,
    ConsoleError,
    DecisionResult,
    api_message,
    cards_by_character,
    ledger_summary,
    local_time,
    revoked_ids,
)
from api.errors import ApiError, NotFound
from api.gameplay import Game
from api.ingest import THREADS
from api.locking import locked_game
from api.rulings import decide, find_suggestion
from game_rules.penalties import Card as LedgerCard
from game_rules.penalties import CardColour
from models.cards import Card, Decision, Suggestion
from models.game import Game as GameRow
from models.posts import Post

#: review-queue items per page (app config ``CONSOLE_QUEUE_PER_PAGE``)
DEFAULT_QUEUE_PER_PAGE = 20
STATUSES = {"pending": "待审", "decided": "已判", "all": "全部"}


def queue_per_page() -> int:
    """Items per page of the review queue."""
    value = DEFAULT_QUEUE_PER_PAGE
    if has_app_context():
        value = int(current_app.config.get("CONSOLE_QUEUE_PER_PAGE", DEFAULT_QUEUE_PER_PAGE))
    return max(1, value)


def red_warning(ruleset: str, character: str, cards: Sequence[Card], colour: str) -> str | None:
    """「将升级为红牌并罚下 X」 when giving ``colour`` to ``character`` (whose counting cards are
    ``cards``) makes a red card, directly or by escalation; None otherwise.

    >>> red_warning("m08", "甲", [], "red")
    '红牌将罚下 甲'
    >>> red_warning("m08", "甲", [], "yellow") is None
    True
    """
    if colour not in ("blue", "yellow", "red"):
        return None
    if colour == "red":
        return f"红牌将罚下 {character}"
    ledger = ledger_for(ruleset, character, cards)
    if ledger.is_red:
        return None  # already ejected: the core refuses any further card
    _after, escalations = ledger.add(LedgerCard(CardColour.parse(colour), reason=""))
    if any(e.colour is CardColour.RED for e in escalations):
        return f"将升级为红牌并罚下 {character}"
    return None


def red_outcomes(ruleset: str, character: str, cards: Sequence[Card]) -> dict[str, str]:
    """The colours whose ruling would give ``character`` a red card, each with its warning."""
    out: dict[str, str] = {}
    for colour in DECIDABLE:
        warning = red_warning(ruleset, character, cards, colour)
        if warning is not None:
            out[colour] = warning
    return out


def queue(
    session: Session,
    row: GameRow,
    game: Game,
    status: str,
    filters: PostFilters | None = None,
    page: int = 1,
) -> dict[str, Any]:
    """One page of the review queue: each suggestion with its post highlighted, the findings and
    their strength, the ledger and what each colour would do; filtered by ``filters`` (the
    character, day and category of the suggestion, the thread and text of its post)."""
    filters = filters or PostFilters()
    where = [Suggestion.game_id == row.id]
    if status in ("pending", "decided"):
        where.append(Suggestion.status == status)
    if filters.character is not None:
        where.append(Suggestion.character == filters.character)
    if filters.day is not None:
        where.append(Suggestion.day == filters.day)
    if filters.category is not None:
        where.append(Suggestion.category == filters.category)
    if filters.thread is not None:
        where.append(Post.thread == filters.thread)
    if filters.text is not None:
        where.append(Post.body.contains(filters.text, autoescape=True))
    total = int(
        session.scalar(
            select(func.count())
            .select_from(Suggestion)
            .outerjoin(Post, Post.id == Suggestion.post_id)
            .where(*where)
        )
        or 0
    )
    per_page = queue_per_page()
    pages = max(1, -(-total // per_page))
    page = min(max(1, page), pages)
    rows = session.execute(
        select(Suggestion, Post, Decision)
        .outerjoin(Post, Post.id == Suggestion.post_id)
        .outerjoin(Decision, Decision.suggestion_id == Suggestion.id)
        .where(*where)
        .order_by(Suggestion.id)
        .offset((page - 1) * per_page)
        .limit(per_page)
    ).all()
    ledgers = cards_by_character(session, row)
    revoked = revoked_ids(session, row)

    def live_cards(character: str) -> list[Card]:
        return [c for c in ledgers.get(character, []) if c.id not in revoked]

    may_lose = cardrules.may_declare_faction_lost(row.ruleset)
    items: list[dict[str, Any]] = []
    for s, post, decision in rows:
        reasons = [r for r in s.reasons if isinstance(r, Mapping)]
        findings = [finding_view(r["finding"]) for r in reasons if "finding" in r]
        if post is not None and not findings:
            # Findings below the violation line are still worth showing as context.
            findings = [
                finding_view(f) for f in post.findings if f.get("category") not in ("water",)
            ]
        summary_reason = next(
            (r for r in reasons if "allowed" in r or "history" in r), reasons[-1] if reasons else {}
        )
        article = summary_reason.get("article") if isinstance(summary_reason, Mapping) else None
        article = article if isinstance(article, Mapping) else None
        history = summary_reason.get("history") if isinstance(summary_reason, Mapping) else None
        other_texts = [
            str(r.get("text", ""))
            for r in reasons
            if "finding" not in r and r is not summary_reason
        ]
        body = post.body if post is not None else ""
        spans = spans_from_findings(post.findings if post is not None else [], len(body))
        allowed = list(summary_reason.get("allowed") or DECIDABLE)
        strength = strongest(f["strength"] for f in findings)
        now = ledger_summary(row.ruleset, s.character, ledgers.get(s.character, []), revoked)
        items.append(
            {
                "id": s.id,
                "character": s.character,
                "alive": game.state.is_alive(s.character),
                "kind": s.kind,
                "kind_name": label("suggestion_kinds", s.kind),
                "category": s.category,
                "category_name": cardrules.category_name(s.category),
                "colour": s.colour,
                "colour_name": colour_label(s.colour),
                "day": s.day,
                "status": s.status,
                "post": None
                if post is None
                else {
                    "forum_post_id": post.forum_post_id,
                    "thread_name": thread_label(post.thread),
                    "day": post.day,
                    "posted_at": local_time(post.posted_at),
                    "html": highlight(body, spans),
                    "length": len(body),
                },
                "findings": findings,
                "confidence": max((f["confidence"] for f in findings), default=None),
                "strength": strength,
                "strength_name": STRENGTHS[strength] if strength else "",
                "outcomes": red_outcomes(row.ruleset, s.character, live_cards(s.character))
                if decision is None
                else {},
                "article": None
                if article is None
                else {
                    "code": article.get("code", ""),
                    "cite": article.get("cite") or article.get("text", ""),
                    "text": article.get("text", ""),
                },
                "reason_text": _without_cite(
                    str(summary_reason.get("text", ""))
                    if isinstance(summary_reason, Mapping)
                    else "",
                    str(article.get("cite", "")) if article else "",
                ),
                "other_reasons": [t for t in other_texts if t],
                "history_then": history.get("summary") if isinstance(history, Mapping) else None,
                "ledger": now,
                "allowed": [c for c in DECIDABLE if c in allowed or c == "green"],
                "may_declare_lost": may_lose,
                "decision": None
                if decision is None
                else {
                    "action": decision.action,
                    "colour": decision.colour,
                    "colour_name": colour_label(decision.colour),
                    "note": decision.note,
                    "faction_lost": decision.faction_lost,
                    "decided_by": decision.decided_by,
                    "decided_at": local_time(decision.decided_at),
                },
            }
        )
    return {
        "items": items,
        "total": total,
        "page": page,
        "pages": pages,
        "page_links": page_links(page, pages),
        "filters": filters,
        "query": {**filters.query_args(), "status": status},
        "characters": list(game.characters),
        "days": list(range(1, max(game.state.day, 1) + 1)),
        "threads": {t: thread_label(t) for t in THREADS},
        "categories": category_choices(),
    }


def _without_cite(text: str, cite: str) -> str:
    """The suggestion's reasoning without the article citation already quoted above it.

    >>> _without_cite("第2条：侮辱；此前没有同类违规", "第2条：侮辱")
    '此前没有同类违规'
    """
    if cite and text.startswith(cite):
        return text[len(cite) :].lstrip("；;，, ")
    return text


class NeedsConfirmation(ConsoleError):
    """A ruling that gives a red card, not yet confirmed: ``message`` is the warning."""

    def __init__(
        self, message: str, *, sid: int, character: str, colour: str, faction: str = ""
    ) -> None:
        super().__init__(message)
        self.sid = sid
        self.character = character
        self.colour = colour
        #: the character's faction, by name (what 判负 with the red card would judge lost)
        self.faction = faction


def decide_suggestion(
    game_id: str,
    sid: int,
    *,
    colour: str,
    note: str,
    faction_lost: bool,
    actor: str,
    confirmed: bool = False,
) -> DecisionResult:
    """The director's ruling on suggestion ``sid`` of ``game_id`` (another game's is not found).

    A ruling that gives a red card raises :class:`NeedsConfirmation` (nothing stored) unless
    ``confirmed``; the ledger is read inside the same locked transaction that rules."""
    if colour not in DECIDABLE:
        raise ConsoleError(f"未知的牌色：{colour}")
    if len(note) > 2000:
        raise ConsoleError("备注不能超过2000字")
    if faction_lost and colour != "red":
        # Asked before any confirmation: an escalation to red does not carry a 判负 either.
        raise ConsoleError("只有红牌可以附带判负：请按红牌，或取消勾选「红牌时同时判负其阵营」")
    try:
        with locked_game(game_id) as (session, locked):
            suggestion = find_suggestion(session, sid)
            if suggestion.game_id != game_id:
                raise ConsoleError("没有这条待审建议")
            session.refresh(suggestion)
            if not confirmed and suggestion.status == "pending":
                live = [
                    c
                    for c in cards_by_character(session, locked.row).get(suggestion.character, [])
                    if c.id not in revoked_ids(session, locked.row)
                ]
                warning = red_warning(locked.ruleset, suggestion.character, live, colour)
                if warning is not None:
                    game = locked.game
                    faction = game.state.factions.get(suggestion.character, "")
                    raise NeedsConfirmation(
                        warning,
                        sid=sid,
                        character=suggestion.character,
                        colour=colour,
                        faction=game.params.factions.get(faction, faction),
                    )
            action, changed = decision_for(suggestion.colour, colour)
            result = decide(
                locked,
                suggestion,
                action=action,
                colour=changed,
                note=note,
                faction_lost=faction_lost,
                actor=actor,
            )
    except NotFound as exc:
        raise ConsoleError("没有这条待审建议") from exc
    except ApiError as exc:
        raise ConsoleError(api_message(exc)) from exc
    return DecisionResult.of(colour, result)


__all__ = [
    "STATUSES",
    "NeedsConfirmation",
    "decide_suggestion",
    "queue",
    "red_outcomes",
    "red_warning",
]
