"""The 时间线 page: the game's events day by day, merged with the cards, and the data of the
posts-and-cards chart (drawn by :mod:`api.console.chart`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api import cardrules
from api.card_store import revocations_of
from api.closing import activity_counts
from api.console.labels import cause_label, colour_label, day_title, phase_label, skill_label
from api.console.service import _fraction_text, local_time
from api.gameplay import Game
from models.cards import Card
from models.game import Game as GameRow
from models.game import GameEvent


def _describe_event(payload: Mapping[str, Any], game: Game) -> tuple[str, str] | None:
    """(css kind, Chinese line) for one logged event, or None for bookkeeping events."""
    kind = payload.get("type")
    if kind == "phase_started":
        return "phase", f"{phase_label(str(payload['phase']))}开始"
    if kind == "announced":
        if payload.get("kind") == "commitment":
            return "public", str(payload["text"])
        return ("red" if payload.get("kind") == "card" else "public"), f"公示：{payload['text']}"
    if kind == "action_taken":
        detail = payload.get("detail")
        from api.console.night import chosen_text  # night.py builds on this module

        target = chosen_text(payload.get("target"), detail if isinstance(detail, Mapping) else {})
        return "night", f"{payload['actor']} 发动<{skill_label(str(payload['skill']))}> → {target}"
    if kind == "eliminated":
        return "out", f"{payload['character']} 出局（{cause_label(str(payload['cause']))}）"
    if kind == "sheriff_changed" and payload.get("character"):
        return "info", f"警长：{payload['character']}"
    if kind == "told":
        to = "、".join(payload.get("to") or ())
        return "private", f"私下告知 {to}：{payload['text']}"
    if kind == "votes_tallied":
        counts = "，".join(
            f"{k} {_fraction_text(v)}票" for k, v in (payload.get("counts") or {}).items()
        )
        return "info", f"计票（含隐藏票）：{counts or '无有效票'}"
    if kind == "faction_lost":
        faction = str(payload.get("faction"))
        return "out", f"{game.params.factions.get(faction, faction)}判负"
    if kind == "substituted":
        return (
            "info",
            f"替补：{payload['new_player']} 接替 {payload['old_player']}（{payload['character']}）",
        )
    if kind == "last_words_given" and payload.get("text"):
        return "info", f"{payload['character']} 留下遗言"
    if kind == "random_picked":  # published with the verification record when the game ends
        result = "、".join(payload.get("result") or ())
        where = f"{payload.get('label')}，第{payload.get('position')}条"
        return "info", f"随机抽取（{where}）：{result}"
    return None


def timeline(session: Session, row: GameRow, game: Game) -> dict[str, Any]:
    """The game day by day (director's log merged with cards) and the activity chart's data."""
    events = session.execute(
        select(GameEvent.payload, GameEvent.created_at)
        .where(GameEvent.game_id == row.id)
        .order_by(GameEvent.seq)
    ).all()
    entries: list[tuple[int, Any, int, dict[str, str]]] = []
    day = 0
    for order, (payload, at) in enumerate(events):
        if payload.get("type") == "phase_started":
            day = int(payload["day"])
        described = _describe_event(payload, game)
        if described is None:
            continue
        css, text = described
        entries.append((day, at, order, {"kind": css, "text": text, "at": local_time(at)}))
    cards = session.scalars(select(Card).where(Card.game_id == row.id).order_by(Card.id)).all()
    revoked = revocations_of(session, row.id)
    for c in cards:
        text = f"{c.character} {colour_label(c.colour)}：{c.reason}"
        if c.id in revoked:
            text += f"（已撤销：{revoked[c.id].reason}）"
        entries.append(
            (c.day, c.created_at, 10**9 + c.id, {"kind": f"card card-{c.colour}", "text": text,
                                                 "at": local_time(c.created_at)})
        )  # fmt: skip
    entries.sort(key=lambda e: (e[0], e[1], e[2]))
    days: dict[int, list[dict[str, str]]] = {}
    for d, _at, _order, entry in entries:
        days.setdefault(d, []).append(entry)
    counts, _water = activity_counts(session, row.id)
    posts = {c: {d: counts.get(d, {}).get(c, 0) for d in counts} for c in game.characters}
    card_days: dict[str, dict[int, list[str]]] = {c: {} for c in game.characters}
    for c in cards:
        if c.source != "escalation" and c.id not in revoked:
            card_days.setdefault(c.character, {}).setdefault(c.day, []).append(c.colour)
    chart_days = sorted({*counts, *range(1, max(game.state.day, 1) + 1)} - {0})
    out_day = {e.character: e.day for e in game.state.eliminations}
    return {
        "days": [{"day": d, "title": day_title(d), "entries": days[d]} for d in sorted(days)],
        "chart": {
            "characters": list(game.characters),
            "days": chart_days,
            "posts": posts,
            "cards": card_days,
            "threshold": cardrules.rules(row.ruleset).activity.single_day_min,
            "out": out_day,
        },
    }


__all__ = ["timeline"]
