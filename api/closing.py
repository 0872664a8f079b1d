"""Closing a day or a night, and the fixed activity penalties that come with it."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from api import cardrules
from api.card_store import issue_card
from api.errors import Conflict
from api.locking import LockedGame
from api.payloads import card_json, suggestion_json
from api.store import audit
from api.voting import phase_name
from game_rules import actions as act
from game_rules.events import Announced, Event, FlagSet
from models.cards import Suggestion
from models.posts import Post
from models.types import utcnow


def activity_counts(
    session: Session, game_id: str
) -> tuple[dict[int, dict[str, int]], dict[int, dict[str, int]]]:
    """Non-water and water posts (诈尸 excluded) per day and character."""
    rows = session.execute(
        select(Post.day, Post.author, Post.is_water, func.count())
        .where(Post.game_id == game_id, Post.zombie.is_(False))
        .group_by(Post.day, Post.author, Post.is_water)
    )
    counts: dict[int, dict[str, int]] = {}
    water: dict[int, dict[str, int]] = {}
    for day, author, is_water, n in rows:
        target = water if is_water else counts
        target.setdefault(int(day), {})[author] = int(n)
    return counts, water


#: engine flags that name characters who missed a required action, with the seed's wording
MISSED_ACTION_FLAGS = {
    "missed_leader_vote": "第一个游戏日关门二十分钟后，狼人未提交选举狼头的选票，均不计票，计黄牌",
}


def close_night(locked: LockedGame, *, actor: str) -> dict[str, Any]:
    """Close the night; characters the engine reports as missing a required action get the
    seed's fixed yellow (M08: 争权<强制> not voted)."""
    state = locked.game.state
    if state.phase != "night":
        raise Conflict(
            f"现在是第{state.day}天{phase_name(state.phase)}，不能关闭夜晚", rule="wrong_phase"
        )
    day = state.day
    events = locked.apply(act.EndNight())
    audit(locked.session, locked.row.id, actor, "close_night", {"day": day})
    cards: list[dict[str, Any]] = []
    ejections: list[dict[str, Any]] = []
    for event in () if locked.game.state.ended else events:  # nothing automatic after the end
        if not isinstance(event, FlagSet) or event.key not in MISSED_ACTION_FLAGS:
            continue
        article = cardrules.category_article(locked.ruleset, "missed_action")
        cite = f"判罚依据{article['code']}：" if article else ""
        for character in event.value or ():
            reason = f"{cite}{MISSED_ACTION_FLAGS[event.key]}"
            _issue_fixed(
                locked, character, cardrules.YELLOW, "missed_action", reason, day, cards, ejections
            )
    return _closed("night", day, events, cards, [], ejections, [])


def _issue_fixed(
    locked: LockedGame,
    character: str,
    colour: str,
    category: str,
    reason: str,
    day: int,
    cards: list[dict[str, Any]],
    ejections: list[dict[str, Any]],
) -> None:
    """A fixed penalty the rules give by themselves (issued by ``system``), with what it causes
    (escalations into ``cards``, a red card's 罚下 into ``ejections``)."""
    outcome = issue_card(
        locked,
        character=character,
        colour=colour,
        category=category,
        reason=reason,
        source="fixed",
        issued_by="system",
        day=day,
    )
    cards.extend(card_json(c) for c in outcome.cards)
    if outcome.ejected:
        ejections.append(outcome.ejected)


def _closed(
    phase: str,
    day: int,
    events: Sequence[Event],
    cards: list[dict[str, Any]],
    suggestions: list[dict[str, Any]],
    ejections: list[dict[str, Any]],
    skipped: list[Any],
) -> dict[str, Any]:
    """The response to closing a day or a night."""
    return {
        "closed": {"phase": phase, "day": day},
        "announcements": [e.text for e in events if isinstance(e, Announced)],
        "cards": cards,
        "suggestions": suggestions,
        "ejected": ejections,
        "skipped": skipped,
    }


def activity_penalties(
    session: Session, row: Any, state: Any, *, accelerated: bool
) -> list[cardrules.Penalty]:
    """The 潜水/未投票 cards closing today would give (before the close: who is living, who
    voted), for :func:`close_day` and the console's confirmation step alike."""
    day = state.day
    carded = set(state.flags.get("deferred_cards") or ())
    subjects = [c for c in state.living() if c not in carded]
    accelerated = accelerated or bool(state.flags.get("accelerated"))
    days = {*row.accelerated_days, day} if accelerated else set(row.accelerated_days)
    counts, water = activity_counts(session, row.id)
    return cardrules.activity(
        row.ruleset,
        day=day,
        subjects=subjects,
        voted=set(state.ballots),
        counts=counts,
        water=water,
        accelerated_days=days,
    )


def close_day(
    locked: LockedGame,
    *,
    at: datetime | None,
    accelerated: bool,
    review: bool,
    actor: str,
    skip: Collection[str] = (),
) -> dict[str, Any]:
    """Close the current day: the vote result, then lurking / no-vote yellows (潜水).

    ``skip``: characters whose activity card the director deselected after reviewing them.
    Nothing is automatic once the close has ended the game (a card after the end would judge a
    game that is over)."""
    state = locked.game.state
    if state.phase != "day":
        raise Conflict(
            f"现在是第{state.day}天{phase_name(state.phase)}，不能关闭白天", rule="wrong_phase"
        )
    day = state.day
    session, row = locked.session, locked.row
    accelerated = accelerated or bool(state.flags.get("accelerated"))
    penalties = activity_penalties(session, row, state, accelerated=accelerated)
    events = locked.apply(act.CloseDay(at))
    row.accelerated_days = sorted(
        {*row.accelerated_days, day} if accelerated else set(row.accelerated_days)
    )
    skipped = sorted({p.character for p in penalties} & set(skip))
    if locked.game.state.ended:
        skipped = sorted({p.character for p in penalties})
        penalties = []
    else:
        penalties = [p for p in penalties if p.character not in skip]
    audit(
        session,
        row.id,
        actor,
        "close_day",
        {
            "day": day,
            "accelerated": accelerated,
            "penalties": len(penalties),
            "skipped": skipped,
        },
    )
    issued: list[dict[str, Any]] = []
    queued: list[dict[str, Any]] = []
    ejections: list[dict[str, Any]] = []
    for p in penalties:
        if review:
            s = Suggestion(
                game_id=row.id,
                post_id=None,
                character=p.character,
                kind="activity",
                category=p.category,
                colour=p.colour,
                reasons=[{"article": p.article, "text": p.reason}],
                day=day,
                status="pending",
                created_at=utcnow(),
            )
            session.add(s)
            session.flush()
            queued.append(suggestion_json(s))
            continue
        _issue_fixed(locked, p.character, p.colour, p.category, p.reason, day, issued, ejections)
    return _closed("day", day, events, issued, queued, ejections, skipped)
