"""The 日夜 page's day half and its closes: the live tally, the day's 关门 time (with the
weekend extension where a seed gives one), 代投 against that clock, and the confirmation step
that lists what closing a day or a night will do before it is done.

The previews run the close on a copy of the game (the engine is deterministic, so the copy does
what the real close will do) and compute the 潜水/未投票 cards the same way the close does
(:func:`api.closing.activity_penalties`); the director may deselect cards before they are given.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flask import current_app, has_app_context
from sqlalchemy.orm import Session

from api import cardrules
from api.closing import activity_penalties, close_day, close_night
from api.console import night
from api.console.announcements import announcements_view, textarea_rows
from api.console.labels import cause_label, colour_label
from api.console.players_page import open_last_words, votes_by_day
from api.console.service import (
    DEFAULT_TIMEZONE,
    ConsoleError,
    _fraction_text,
    api_message,
    director_action,
    local_time,
    manual_categories,
)
from api.errors import ApiError
from api.gameplay import Game
from api.locking import locked_game
from game_rules import actions as act
from game_rules.errors import GameRuleError
from game_rules.events import Announced, Eliminated
from game_rules.game import Game as CoreGame
from models.game import Game as GameRow

#: the 关门 field's format (an HTML datetime-local value, in the game's zone)
CLOSE_FORMAT = "%Y-%m-%dT%H:%M"


def zone() -> tzinfo:
    """The game's zone (``CONSOLE_TIMEZONE``, default Beijing time: the seeds' 关门 times)."""
    name = DEFAULT_TIMEZONE
    if has_app_context():
        name = str(current_app.config.get("CONSOLE_TIMEZONE", DEFAULT_TIMEZONE))
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def live_tally(game: Game) -> dict[str, Any] | None:
    """Today's weighted tally so far (None outside a day or for engines without one); 弃权 is
    the number of characters who abstained, as the tally announces it (a sheriff's 弃权 is one)."""
    state = game.state
    tally_today = getattr(game.ruleset, "tally_today", None)
    if state.phase != "day" or tally_today is None:
        return None
    t = tally_today(state)
    hidden = {k: v for k, v in t.counts.items() if t.shown.get(k) != v}
    rows = sorted(t.shown.items(), key=lambda kv: (-kv[1], kv[0]))
    return {
        "rows": [{"target": k, "votes": _fraction_text(v)} for k, v in rows if v],
        "abstentions": str(len(t.abstainers)) if t.abstainers else "",
        "abstainers": list(t.abstainers),
        "announcement": t.announcement(),
        "text_rows": textarea_rows([t.announcement()]),
        "hidden": [
            {"target": k, "votes": _fraction_text(v), "shown": _fraction_text(t.shown.get(k, 0))}
            for k, v in hidden.items()
        ],
    }


def past_tallies(game: Game) -> list[dict[str, Any]]:
    """Closed days' tallies (director: with hidden additions)."""
    return [
        {
            "day": t.day,
            "counts": sorted(
                ((k, _fraction_text(v)) for k, v in t.counts.items()),
                key=lambda kv: -float(kv[1]),
            ),
            "top": list(t.top),
            "chosen": t.chosen,
        }
        for t in game.state.tallies
    ]


# ---------------------------------------------------------------------------------------------
# 关门


def day_length(game: Game) -> dict[str, Any] | None:
    """The seed's weekend extension (``day_length`` in the ruleset), None where it gives none."""
    found = game.params.extra.get("day_length")
    return dict(found) if isinstance(found, dict) and found.get("weekend_extra_days") else None


def weekend_offered(game: Game) -> dict[str, Any] | None:
    """The weekend extension the 关门 field offers today (M72 every day; 004 not on day 1:
    例外的，第一天讨论日不因周末而延长)."""
    rule = day_length(game)
    if rule is None or (game.state.day == 1 and not rule.get("first_day_extends", True)):
        return None
    return rule


def closing_time(text: str, *, weekend: bool, game: Game) -> datetime:
    """The 关门 time from the field (game zone), plus the weekend's extra days when asked.

    >>> from game_rules import new_game
    >>> g = new_game("m72", [f"P{i}" for i in range(1, 13)], seed="d")
    >>> closing_time("2026-12-05T22:00", weekend=True, game=g).isoformat()
    '2026-12-06T22:00:00+08:00'
    """
    try:
        local = datetime.strptime(text.strip(), CLOSE_FORMAT)
    except ValueError as exc:
        raise ConsoleError("请填写关门时间（日期与时刻）") from exc
    moment = local.replace(tzinfo=zone())
    if weekend:
        rule = weekend_offered(game)
        if rule is None:
            raise ConsoleError("本规则今天没有周末延长")
        moment += timedelta(days=int(rule["weekend_extra_days"]))
    return moment


def schedule_close(
    game_id: str, game: Game, text: str, *, weekend: bool, actor_label: str
) -> datetime:
    """Set today's 关门 time (``ScheduleDay``): the core's clock for 改票 and 代投 limits."""
    moment = closing_time(text, weekend=weekend, game=game)
    body = {"type": "schedule_day", "closes_at": moment.isoformat()}
    director_action(game_id, body, actor_label=actor_label)
    return moment


def closes_at(game: Game) -> datetime | None:
    """Today's 关门 time, if set."""
    clock = getattr(game.ruleset, "closes_at", None)
    return clock(game.state) if clock is not None and game.state.phase == "day" else None


def proxy_vote(
    game_id: str,
    *,
    voter: str,
    target: str | None,
    actor_label: str,
    now: datetime | None = None,
) -> None:
    """代投: the director casts ``voter``'s ballot (target None = 弃权), asked and cast now, so
    that the core applies the 代投 deadline and the last hour against the day's 关门."""
    moment = (now or datetime.now(UTC)).isoformat()
    body = {
        "type": "proxy_vote",
        "voter": voter,
        "target": target,
        "at": moment,
        "requested_at": moment,
    }
    director_action(game_id, body, actor_label=actor_label)


# ---------------------------------------------------------------------------------------------
# Confirmation


def _probe(game: Game) -> CoreGame:
    """A copy of ``game`` to try a close on (the engine is deterministic)."""
    return CoreGame.rebuild(
        game.ruleset_id, game.overrides or None, game.seed_for_director, game.characters, game.log
    )


def _outcome_lines(events: Collection[Any]) -> tuple[list[str], list[str]]:
    outs = [
        f"{e.character}出局（{cause_label(e.cause)}）" for e in events if isinstance(e, Eliminated)
    ]
    lines = [e.text for e in events if isinstance(e, Announced)]
    return outs, lines


def close_preview(
    session: Session, row: GameRow, game: Game, *, accelerated: bool
) -> dict[str, Any]:
    """What closing the current day or night will do: eliminations, the 公示, whether the game
    ends, and (a day) the 潜水/未投票 cards by name, none if the close ends the game."""
    state = game.state
    probe = _probe(game)
    try:
        events = probe.apply(act.CloseDay() if state.phase == "day" else act.EndNight())
    except GameRuleError as exc:
        return {"refused": exc.message, "outs": [], "lines": [], "cards": [], "ends": False}
    outs, lines = _outcome_lines(events)
    ends = probe.state.ended
    cards: list[dict[str, str]] = []
    if state.phase == "day" and not ends:
        for p in activity_penalties(session, row, state, accelerated=accelerated):
            cards.append(
                {
                    "character": p.character,
                    "colour": p.colour,
                    "colour_name": colour_label(p.colour),
                    "reason": p.reason,
                }
            )
    return {"refused": None, "outs": outs, "lines": lines, "cards": cards, "ends": ends}


def close_current_day(
    game_id: str, *, accelerated: bool, review: bool, skip: Collection[str], actor_label: str
) -> dict[str, Any]:
    """关门: tally, vote result, then the 潜水/未投票 yellows not deselected (or queue them)."""
    try:
        with locked_game(game_id) as (_session, locked):
            # Repeated on purpose: each console action calls its own API step with its keywords.
            return close_day(
                locked,
                at=None,
                accelerated=accelerated,
                review=review,
                actor=actor_label,
                skip=skip,
            )
    except ApiError as exc:
        raise ConsoleError(api_message(exc)) from exc


def close_current_night(game_id: str, *, actor_label: str) -> list[str]:
    """End the night through the same path as the API, so fixed penalties (M08 争权) apply too."""
    try:
        with locked_game(game_id) as (_session, locked):
            result = close_night(locked, actor=actor_label)
    except ApiError as exc:
        raise ConsoleError(api_message(exc)) from exc
    return list(result["announcements"])


def deadline_passed(game_id: str, *, actor_label: str) -> list[str]:
    """行动时限已到: open decisions and pending choices take the ruleset's defaults."""
    events = director_action(game_id, {"type": "deadline_passed"}, actor_label=actor_label)
    return [e.text for e in events if isinstance(e, Announced)]


# ---------------------------------------------------------------------------------------------
# The page


def day_and_night(
    session: Session, row: GameRow, game: Game, *, confirm: str | None = None,
    accelerated: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """Everything the 日夜 page shows; ``confirm`` ("day"/"night") adds the close's preview."""
    state = game.state
    votes = votes_by_day(game).get(state.day, {}) if state.phase == "day" else {}
    clock = closes_at(game)
    can_close_day = state.phase == "day" and not state.decisions and not state.ended
    can_close_night = state.phase == "night" and not state.decisions and not state.ended
    preview = None
    if (confirm == "day" and can_close_day) or (confirm == "night" and can_close_night):
        preview = close_preview(session, row, game, accelerated=accelerated)
        preview["phase"] = confirm
    return {
        "tally": live_tally(game),
        "ballots": [
            {"voter": v, **b, "target": b["target"] or "弃权"} for v, b in sorted(votes.items())
        ],
        "not_voted": [c for c in state.living() if c not in votes] if state.phase == "day" else [],
        "past": past_tallies(game),
        "actions": night.pending_actions(game),
        "chosen": night.night_chosen(game) if state.phase == "night" else [],
        "notices": night.private_notices(game),
        "announcements": announcements_view(session, row.id, game),
        "living": state.living(),
        "can_close_day": can_close_day,
        "can_close_night": can_close_night,
        "preview": preview,
        "closes_at": local_time(clock, "%Y-%m-%d %H:%M") if clock else None,
        "closes_value": local_time(clock, CLOSE_FORMAT) if clock else "",
        "weekend": weekend_offered(game),
        "zone_name": getattr(zone(), "key", "UTC"),
        "deadline": any(isinstance(a, act.DeadlinePassed) for a in game.legal_actions(None)),
        "open_decisions": [
            {"actor": a, "decision": night.skill_label(game, d)} for (a, d) in state.decisions
        ],
        "accelerated": bool(state.flags.get("accelerated")) or state.day in row.accelerated_days,
        "open_last_words": open_last_words(game),
        "categories": manual_categories(row.ruleset),
        "may_declare_lost": cardrules.may_declare_faction_lost(row.ruleset),
    }
