"""The 角色与牌 page: every character's state, ledger, posts per day and votes, and its 替补 and
遗言 forms (the API's ``substitute`` and ``last_words`` actions, through
:func:`api.console.service.director_action`). Its 直接判罚 and 判负 are :mod:`verdicts`, its
玩家令牌 :mod:`player_tokens`, its 撤销判罚 and 申诉 :mod:`trust`."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from flask import current_app
from sqlalchemy.orm import Session

from api import cardrules
from api.closing import activity_counts
from api.console.forms import MAX_NAME
from api.console.labels import (
    cause_label,
    phase_label,
)
from api.console.service import (
    ConsoleError,
    cards_by_character,
    deal_rows,
    director_action,
    ledger_summary,
    manual_categories,
    revoked_ids,
)
from api.gameplay import Game
from game_rules.events import Announced, Substituted
from models.game import Game as GameRow


def votes_by_day(game: Game) -> dict[int, dict[str, dict[str, Any]]]:
    """Each day's final ballots (voter -> {target, proxy, changes, post_id}) from the director's
    log: the one that stands (or stood at 关门)."""
    out: dict[int, dict[str, dict[str, Any]]] = defaultdict(dict)
    for e in game.log:
        if type(e).__name__ != "VoteCast":
            continue
        day = int(getattr(e, "day", 0))
        voter = str(getattr(e, "voter", ""))
        before = out[day].get(voter)
        out[day][voter] = {
            "target": getattr(e, "target", None),
            "proxy": bool(getattr(e, "proxy", False)),
            "changes": (before["changes"] + 1) if before else 0,
            "post_id": getattr(e, "post_id", None),
        }
    return dict(out)


def players(session: Session, row: GameRow, game: Game) -> dict[str, Any]:
    """Every character: state, cause, role, ledger, posts per day against the thresholds, votes."""
    state = game.state
    rules = cardrules.rules(row.ruleset)
    activity = rules.activity
    counts, water = activity_counts(session, row.id)
    ledgers = cards_by_character(session, row)
    revoked = revoked_ids(session, row)
    votes = votes_by_day(game)
    last_day = max(state.day, 1)
    days = list(range(1, last_day + 1))
    deal = {d["character"]: d for d in deal_rows(row, game)}
    accelerated = set(row.accelerated_days)
    gone = {e.character: e for e in state.eliminations}
    deferred = set(state.flags.get("deferred_cards") or ())
    substitutions = substitution_rows(game)
    replaced = {s["character"]: s["old"] for s in substitutions["substitutions"]}
    out = []
    for character in game.characters:
        elim = gone.get(character)
        per_day = []
        for d in days:
            n = counts.get(d, {}).get(character, 0)
            w = water.get(d, {}).get(character, 0)
            exempt = d in accelerated
            below = (
                activity.single_day_min is not None
                and n < activity.single_day_min
                and not exempt
                and (elim is None or elim.day >= d)
            )
            vote = votes.get(d, {}).get(character)
            per_day.append(
                {
                    "day": d,
                    "posts": n,
                    "water": w,
                    "below": below,
                    "accelerated": exempt,
                    "vote": vote,
                    "alive_then": elim is None or elim.day >= d,
                }
            )
        three_low = activity.three_days_min_each is not None and any(
            all(
                counts.get(d, {}).get(character, 0) < activity.three_days_min_each
                and d not in accelerated
                for d in (k, k + 1, k + 2)
            )
            for k in range(1, last_day - 1)
        )
        out.append(
            {
                "character": character,
                "player": deal[character]["player"],
                "replaced": replaced.get(character),
                "role_name": deal[character]["role_name"],
                "faction_name": deal[character]["faction_name"],
                "alive": state.is_alive(character),
                "pending_red": character in deferred,
                "cause": cause_label(elim.cause) if elim else "",
                "out_when": f"第{elim.day}天{phase_label(elim.phase)}" if elim else "",
                "sheriff": state.sheriff == character,
                "ledger": ledger_summary(
                    row.ruleset, character, ledgers.get(character, []), revoked
                ),
                "days": per_day,
                "three_low": three_low,
            }
        )
    return {
        "players": out,
        "days": days,
        "single_min": activity.single_day_min,
        "three_min": activity.three_days_min_each,
        "single_quote": activity.single_day_quote,
        "three_quote": activity.three_days_quote,
        "no_vote_quote": activity.no_vote_quote,
        "escalation_quote": rules.escalation_quote,
        "categories": manual_categories(row.ruleset),
        "may_declare_lost": cardrules.may_declare_faction_lost(row.ruleset),
        "last_words": last_words_rows(game),
        **substitutions,
    }


def substitution_rows(game: Game) -> dict[str, Any]:
    """Who may still get a 替补 (每名角色仅限更换一次替补; nobody once the game has ended) and
    the substitutions made so far."""
    state = game.state
    return {
        "substitutable": [
            {"character": c, "player": state.players.get(c, c), "alive": state.is_alive(c)}
            for c in game.characters
            if c not in state.substituted and not state.ended
        ],
        "substitutions": [
            {"character": e.character, "old": e.old_player, "new": e.new_player}
            for e in game.log
            if isinstance(e, Substituted)
        ],
    }


def open_last_words(game: Game) -> list[str]:
    """Characters holding a last-words right (遗言权利) they have neither used nor given up."""
    state = game.state
    if state.ended:
        return []
    return [c for c in state.last_words_granted if c not in state.last_words_given]


def last_words_rows(game: Game) -> dict[str, Any]:
    """Last-words rights: open ones (to enter or give up), used or given up ones, the quota."""
    state = game.state
    out_when = {e.character: f"第{e.day}天{phase_label(e.phase)}" for e in state.eliminations}
    return {
        "open": [{"character": c, "out_when": out_when.get(c, "")} for c in open_last_words(game)],
        "closed": [
            {"character": c, "given": state.last_words_given[c] is not None}
            for c in state.last_words_granted
            if c in state.last_words_given
        ],
        "quota": game.params.last_words,
        "granted": len(state.last_words_granted),
    }


def substitute(game_id: str, *, character: str, player: str, actor_label: str) -> tuple[str, str]:
    """替补: ``player`` takes over ``character``; returns (previous player, new player).

    The API's ``substitute`` action, so the game core's rule applies (每名角色仅限更换一次替补).
    """
    player = player.strip()
    if not character:
        raise ConsoleError("请选择要更换替补的角色")
    if len(character) > MAX_NAME:
        raise ConsoleError(f"没有名为「{character}」的角色")
    if not player:
        raise ConsoleError("请填写替补玩家的名字")
    if len(player) > MAX_NAME:
        raise ConsoleError(f"替补玩家名不能超过{MAX_NAME}个字符")
    body = {"type": "substitute", "character": character, "player": player}
    events = director_action(game_id, body, actor_label=actor_label)
    done = next(e for e in events if isinstance(e, Substituted))
    return done.old_player, done.new_player


def leave_last_words(
    game_id: str, *, character: str, text: str | None, actor_label: str
) -> list[str]:
    """遗言 for ``character`` (``text`` None = 放弃遗言); the announcements published at once.

    The API's ``last_words`` action: the game core checks the right (遗言权利) and that it was not
    used or given up already. It also decides when words are published (a night death's during
    the next day at once, others at the next day's start).
    """
    if not character:
        raise ConsoleError("请选择留遗言的角色")
    if len(character) > MAX_NAME:
        raise ConsoleError(f"没有名为「{character}」的角色")
    if text is not None:
        # Browsers send a textarea's line breaks as CRLF; forum text has plain newlines.
        text = text.replace("\r\n", "\n").strip()
        if not text:
            raise ConsoleError("请粘贴遗言内容；不留遗言请选择“放弃遗言”")
        # the service's limit on one post body: last words are a post too
        limit = int(current_app.config["MAX_POST_CHARS"])
        if len(text) > limit:
            raise ConsoleError(f"遗言不能超过{limit}字")
    body = {"type": "last_words", "actor": character, "text": text}
    events = director_action(game_id, body, actor_label=actor_label)
    return [e.text for e in events if isinstance(e, Announced)]


# ---------------------------------------------------------------------------------------------
# Player tokens


__all__ = ["leave_last_words", "open_last_words", "players", "substitute", "votes_by_day"]
