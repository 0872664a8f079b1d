"""The 公示 as items: one per announcement the seeds require, each ready to paste, with a
「已发布」 mark the director sets once it is on the forum.

An item is one occasion's announcements: a day's opening facts (in the seed's order, see
:mod:`game_rules.announcements`), a vote result, a red card (always alone: 立即公示…红牌罚下, it
is posted at once, before anything else), the end. Items are cut from the log where the game
moved on between announcements (a phase began, a vote was tallied, a choice or a card), and each
is named by the log position of its first line, which never changes (the log only grows), so
the mark is stored against that position in the audit trail (``announcement_posted``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.console.labels import day_title, phase_label
from api.console.service import ConsoleError
from api.database import db
from api.gameplay import Game
from api.store import audit, lock_game
from game_rules.events import (
    ActionTaken,
    Announced,
    Carded,
    PhaseStarted,
    VoteCast,
    VotesTallied,
    withdrawn_positions,
)
from models.audit import AuditAction, AuditEntry

#: events after which a further announcement is a new 公示
BREAKS = (PhaseStarted, VotesTallied, ActionTaken, VoteCast, Carded)
#: announcement kinds posted at once and alone (the red card's)
ALONE = frozenset({"card", "card_withdrawn"})


def textarea_rows(lines: Sequence[str], width: int = 36, most: int = 14) -> int:
    """Rows a read-only textarea needs to show ``lines`` without scrolling (capped at ``most``).

    >>> textarea_rows(["甲获得1票\\n乙获得2票", "x" * 80])
    5
    """
    rows = 0
    for line in lines:
        for part in line.split("\n"):
            rows += max(1, -(-len(part) // width))
    return max(1, min(rows, most))


def announcement_items(game: Game) -> list[dict[str, Any]]:
    """The game's 公示 in log order, one item per occasion (see the module docstring)."""
    log = game.log
    taken = withdrawn_positions(log)
    items: list[dict[str, Any]] = []
    open_item: dict[str, Any] | None = None
    for i, e in enumerate(log):
        if i in taken:
            continue
        if isinstance(e, BREAKS):
            open_item = None
            continue
        if not isinstance(e, Announced) or e.kind == "commitment":
            continue
        alone = e.kind in ALONE
        if open_item is None or alone or open_item["alone"] or open_item["day"] != e.day:
            open_item = {
                "position": i,
                "day": e.day,
                "phase": e.phase,
                "alone": alone,
                "lines": [],
            }
            items.append(open_item)
        open_item["lines"].append(e.text)
    for item in items:
        item["text"] = "\n".join(item["lines"])
        item["rows"] = textarea_rows(item["lines"])
        item["title"] = f"{day_title(item['day'])}{phase_label(item['phase'])}"
        item["red"] = item["alone"]
    return items


def posted_positions(session: Session, game_id: str) -> set[int]:
    """Positions of the items marked 已发布 (the latest mark of each counts)."""
    marks: dict[int, bool] = {}
    for detail in session.scalars(
        select(AuditEntry.detail)
        .where(
            AuditEntry.game_id == game_id,
            AuditEntry.action == AuditAction.ANNOUNCEMENT_POSTED.value,
        )
        .order_by(AuditEntry.id)
    ):
        position = detail.get("position")
        if isinstance(position, int):
            marks[position] = not detail.get("unmarked", False)
    return {p for p, on in marks.items() if on}


def announcements_view(session: Session, game_id: str, game: Game) -> dict[str, Any]:
    """The items for the page: unposted red cards first (posted at once and alone), then the
    rest newest first, each with its 已发布 mark."""
    posted = posted_positions(session, game_id)
    items = announcement_items(game)
    for item in items:
        item["posted"] = item["position"] in posted
    urgent = [i for i in items if i["red"] and not i["posted"]]
    rest = [i for i in reversed(items) if i not in urgent]
    return {"urgent": urgent, "items": rest}


def mark_posted(game_id: str, position: int, *, posted: bool, actor_label: str) -> str:
    """Mark the item at ``position`` 已发布 (or take the mark back); its first line."""
    from api.locking import read_game

    with read_game(game_id) as (_session, _row, game):
        items = {i["position"]: i for i in announcement_items(game)}
    item = items.get(position)
    if item is None:
        raise ConsoleError("没有这条公示")
    with db().write() as session:
        lock_game(session, game_id)
        detail: dict[str, Any] = {"position": position, "text": item["text"][:200]}
        if not posted:
            detail["unmarked"] = True
        audit(session, game_id, actor_label, AuditAction.ANNOUNCEMENT_POSTED.value, detail)
    return str(item["lines"][0])
