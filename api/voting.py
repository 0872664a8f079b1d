"""Votes from vote-thread posts: parsed with :func:`game_rules.votes.parse_vote` and cast."""

from __future__ import annotations

from typing import Any

from api.gameplay import GameRuleError
from api.locking import LockedGame, aliases_of
from game_rules import actions as act
from game_rules.votes import InvalidVoteError, parse_vote


def vote_from_post(locked: LockedGame, post: dict[str, Any]) -> dict[str, Any]:
    """Parse a vote post and cast it; the outcome (counted / invalid / rejected) as JSON."""
    state = locked.game.state
    voter = post["author"]
    if state.phase != "day" or post["day"] != state.day:
        return {
            "status": "rejected",
            "rule": "not_voting_day",
            "message": f"第{post['day']}天的投票不在当前投票期"
            f"（当前：第{state.day}天{phase_name(state.phase)}）",
        }
    living = state.living()
    aliases = aliases_of(locked.row)
    candidates = {name: aliases.get(name, []) for name in living}
    try:
        parsed = parse_vote(post["body"], candidates)
    except InvalidVoteError as exc:
        return {"status": "invalid", "rule": exc.rule, "message": exc.message}
    # Post times are compared with the day's 关门 time only once the director has scheduled it
    # (action schedule_day); before that, ballots are ordered by arrival.
    scheduled = bool(state.flags.get("closes_at"))
    ballot = act.CastVote(
        voter=voter,
        target=parsed.target,
        at=post["posted_at"] if scheduled else None,
        is_change=parsed.is_change,
        post_id=post["forum_post_id"],
        reason=parsed.reason,
        replies_to=post.get("reply_to"),
    )
    try:
        locked.pending.extend(locked.game.apply(ballot))
    except GameRuleError as exc:
        return {
            "status": "rejected",
            "rule": exc.rule,
            "message": exc.message,
            "target": parsed.target,
            "is_change": parsed.is_change,
        }
    return {
        "status": "counted",
        "target": parsed.target,
        "abstain": parsed.target is None,
        "is_change": parsed.is_change,
        "reason": parsed.reason,
    }


def phase_name(phase: str) -> str:
    """The Chinese name of a phase (白天 / 夜晚).

    >>> phase_name("night")
    '夜晚'
    """
    return {"day": "白天", "night": "夜晚"}.get(phase, phase)
