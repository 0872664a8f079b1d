"""The night page: the rows to enter in the ruleset's night order, what each role is to be
told privately as soon as it is known, and tonight's entries, each correctable or withdrawn
until the night is resolved (:class:`game_rules.actions.WithdrawNightAction`).

What the page adds to the legal actions is data (``night.yaml``): each skill's step of the
ruleset's ``night_order``, a seed's own name for a skill, and a skill shown only once another is
entered tonight (M08's 救药 after the 狼头's 指杀).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from api.console.forms import PLAN_SEPARATOR
from api.console.labels import label, labels
from api.console.labels import skill_label as shared_skill_label
from api.console.service import director_action, director_role_name
from api.gameplay import Game
from game_rules import actions as act
from game_rules.errors import GameRuleError
from game_rules.events import ActionTaken, Announced, PhaseStarted, Told, withdrawn_positions
from game_rules.game import Game as CoreGame

NIGHT_DATA = Path(__file__).with_name("night.yaml")


@cache
def night_data() -> dict[str, Any]:
    """``night.yaml``, read once."""
    with NIGHT_DATA.open(encoding="utf-8") as handle:
        data: dict[str, Any] = yaml.safe_load(handle)
    return data


def engine_of(game: Game) -> str:
    """The engine a game's ruleset runs on (``m08_12`` plays the ``m08`` engine)."""
    return str(getattr(game.ruleset, "engine", game.ruleset_id))


def skill_label(game: Game, skill: str) -> str:
    """A skill's name in this game's seed (M08 预言, M72 占卜).

    >>> from game_rules import new_game
    >>> g = new_game("m08", [f"P{i:02}" for i in range(1, 12)], seed="doc")
    >>> skill_label(g, "divine"), skill_label(g, "save")
    ('预言', '救药')
    """
    own = night_data().get("names", {}).get(engine_of(game), {})
    return str(own.get(skill) or shared_skill_label(skill))


def step_order(game: Game, skill: str) -> int:
    """Where ``skill`` comes in the ruleset's ``night_order`` (unknown skills last)."""
    step = night_data().get("steps", {}).get(engine_of(game), {}).get(skill)
    order = tuple(game.params.night_order)
    return order.index(step) if step in order else len(order)


def waits_for(game: Game, skill: str) -> str | None:
    """The skill that must be entered tonight before ``skill`` is offered, if any."""
    needed = night_data().get("after", {}).get(engine_of(game), {}).get(skill)
    return str(needed) if needed else None


def _as_plan(choice: str | None, characters: frozenset[str]) -> tuple[str, ...] | None:
    """A legal action's ``choice`` read as a plan: character names in order (``A,B,C``, as the
    engines write one, e.g. M08's 决战 刀法), or None when it names something else (同意...).

    >>> _as_plan("甲,乙", frozenset({"甲", "乙", "丙"})), _as_plan("yes", frozenset({"甲"}))
    (('甲', '乙'), None)
    """
    if not choice:
        return None
    names = tuple(part.strip() for part in choice.split(PLAN_SEPARATOR))
    return names if all(name in characters for name in names) else None


def plan_candidates(game: Game, offered: Sequence[Sequence[str]]) -> list[str]:
    """The characters a plan may name now, in seating order: every name of the plans the engine
    offers (M08 lists each allowed character alone as well as a full sample plan, so the union is
    every name a plan may hold; the console does not restate the rule).

    >>> from game_rules import new_game
    >>> plan_candidates(new_game("m72", [f"P{i}" for i in range(1, 13)], seed="d"),
    ...                 [("P3", "P1"), ("P2",)])
    ['P1', 'P2', 'P3']
    """
    named = {name for plan in offered for name in plan}
    return [c for c in game.characters if c in named]


def _decision_prompt(game: Game, actor: str, decision: str) -> str | None:
    """What ``actor`` was last told when ``decision`` opened (the engines tell the prompt with
    the decision's key as its kind), e.g. wa004's 牛头人 question."""
    for event in reversed(game.log):
        if isinstance(event, Told) and event.kind == decision and actor in event.to:
            return event.text
    return None


def pending_actions(game: Game) -> list[dict[str, Any]]:
    """Skills and decisions the director may enter now, grouped by (actor, skill).

    What a row asks for comes from the legal actions themselves: targets (and whether none is
    allowed), the ``choice`` values offered (同意 / 不同意), a plan when the choice names
    characters (as many selects as the longest plan offered, see :func:`plan_candidates`), a
    reason input when the options carry a ``reason`` (its placeholder is the engine's sample),
    and, for an open decision, the question the character was told.
    """
    state = game.state
    names = frozenset(game.characters)
    options: list[Any] = []
    # Skills are asked of every character (night skills, wa004's pre-game 爱情追寻, decisions such
    # as 最后一枪/殉职); during a day the engines offer only ballots here, which are left out.
    for character in game.characters:
        options.extend(a for a in game.legal_actions(character) if isinstance(a, act.UseSkill))
    options.extend(a for a in game.legal_actions(None) if isinstance(a, act.UseSkill))
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    plans: dict[tuple[str, str], list[tuple[str, ...]]] = defaultdict(list)
    for a in options:
        key = (a.actor, a.skill)
        group = groups.get(key)
        if group is None:
            # Built once per row, not per option (the prompt scans the log).
            group = groups[key] = {
                "actor": a.actor,
                "skill": a.skill,
                "skill_name": skill_label(game, a.skill),
                "role_name": director_role_name(game, state.roles.get(a.actor, "")),
                "targets": [],
                "allow_none": False,
                "decision": key in state.decisions,
                "choices": [],
                "reason": None,
                "plan": None,
                "prompt": _decision_prompt(game, *key) if key in state.decisions else None,
            }
        if a.target is None:
            group["allow_none"] = True
        elif a.target not in group["targets"]:
            group["targets"].append(a.target)
        if a.reason is not None and group["reason"] is None:
            name = labels().get("reasons", {}).get(a.skill, "理由")
            group["reason"] = {"label": name, "sample": a.reason}
        plan = _as_plan(a.choice, names)
        if plan is not None:
            plans[key].append(plan)
        elif a.choice is not None and a.choice not in (c["value"] for c in group["choices"]):
            group["choices"].append({"value": a.choice, "label": label("choices", a.choice)})
    for key, offered in plans.items():
        sample = max(offered, key=len)
        slot = labels().get("plan_slots", {}).get(key[1], "第{n}名")
        groups[key]["plan"] = {
            "slots": [slot.format(n=n) for n in range(1, len(sample) + 1)],
            "candidates": plan_candidates(game, offered),
        }
    entered = {s for (_a, s) in state.night_actions} if state.phase == "night" else set()
    for group in groups.values():
        needed = waits_for(game, group["skill"])
        group["waiting"] = skill_label(game, needed) if needed and needed not in entered else None
        # A row whose options name no target (决战, 同意决战, 牛头人答复) shows no target select;
        # target-only rows keep theirs, with 放弃 when the engine offers no target.
        group["pick_target"] = bool(group["targets"]) or not (group["choices"] or group["plan"])
    rows = list(groups.values())
    seats = {c: i for i, c in enumerate(game.characters)}
    rows.sort(key=lambda g: (step_order(game, g["skill"]), seats.get(g["actor"], 0)))
    return rows


def chosen_text(target: str | None, detail: Mapping[str, Any]) -> str:
    """What a recorded action chose, with what it carried: a 指杀理由 in brackets (as the engine
    tells the wolves), a 决战 plan, a 同意决战 answer.

    >>> chosen_text("凛", {"reason": "冲锋"}), chosen_text(None, {"plan": ["凛", "希"]})
    ('凛（冲锋）', '凛、希')
    >>> chosen_text(None, {"agree": False}), chosen_text(None, {})
    ('不同意', '（无目标）')
    """
    plan = detail.get("plan")
    agree = detail.get("agree")
    if target is not None:
        text = target
    elif isinstance(plan, list) and plan:
        text = "、".join(str(name) for name in plan)
    elif isinstance(agree, bool):
        text = label("choices", "yes" if agree else "no")
    else:
        return "（无目标）"
    reason = detail.get("reason")
    return f"{text}（{reason}）" if reason else text


def _correction_targets(game: Game, actor: str, skill: str) -> list[str] | None:
    """The targets ``actor``'s ``skill`` could take instead (tried on a copy of the game: the
    entry withdrawn, the legal actions asked), or None when it cannot be withdrawn."""
    probe = CoreGame.rebuild(
        game.ruleset_id, game.overrides or None, game.seed_for_director, game.characters, game.log
    )
    try:
        probe.apply(act.WithdrawNightAction(actor, skill))
    except GameRuleError:
        return None
    return [
        a.target
        for a in probe.legal_actions(actor)
        if isinstance(a, act.UseSkill) and a.skill == skill and a.target is not None
    ]


def night_chosen(game: Game) -> list[dict[str, Any]]:
    """Tonight's entries in the night order, each with what it chose; the director may correct
    one that names a target (the targets it could take instead) or withdraw any of them until
    the night is resolved."""
    seats = {c: i for i, c in enumerate(game.characters)}
    entries = sorted(
        game.state.night_actions.values(),
        key=lambda e: (step_order(game, e.skill), seats.get(e.actor, 0)),
    )
    out = []
    for e in entries:
        targets = _correction_targets(game, e.actor, e.skill) if e.target is not None else None
        out.append(
            {
                "actor": e.actor,
                "skill": e.skill,
                "skill_name": skill_label(game, e.skill),
                "target": chosen_text(e.target, e.detail),
                "correctable": bool(targets),
                "targets": [t for t in targets or () if t != e.target],
                "reason": str(e.detail.get("reason", "")) if e.skill == "propose" else "",
            }
        )
    return out


def private_notices(game: Game) -> list[dict[str, Any]]:
    """What the director is to pass on privately, newest night first: every ``Told`` since the
    last night began (通灵, 预言/占卜 results, the new 狼头, 激励, 决战...) and the choices told
    to teammates (指杀提议 to the 狼头, a 决战 proposal to the wolves). Withdrawn entries' notices
    are left out: a corrected choice tells again."""
    log = game.log
    taken = withdrawn_positions(log)
    start = 0
    for i, e in enumerate(log):
        if isinstance(e, PhaseStarted) and e.phase == "night" and i not in taken:
            start = i
    roles = game.state.roles
    out: list[dict[str, Any]] = []
    for i in range(start, len(log)):
        e = log[i]
        if i in taken:
            continue
        if isinstance(e, Told):
            to, text = e.to, e.text
        elif isinstance(e, ActionTaken) and e.to:
            to = e.to
            text = f"{e.actor}<{skill_label(game, e.skill)}>：{chosen_text(e.target, e.detail)}"
        else:
            continue
        if not to:
            continue
        out.append(
            {
                "id": f"told-{i}",
                "to": "、".join(to),
                "roles": "、".join(
                    sorted({director_role_name(game, roles.get(c, "")) for c in to})
                ),
                "text": text,
                "rows": max(1, -(-len(text) // 36)),
            }
        )
    return out


def apply_skill(
    game_id: str,
    *,
    actor: str,
    skill: str,
    target: str | None,
    actor_label: str,
    reason: str | None = None,
    choice: str | None = None,
) -> list[str]:
    """Enter one night skill or decision for ``actor``; the announcements it caused.

    ``reason`` (M08's 指杀理由) and ``choice`` (同意/不同意, a 决战 plan ``A,B,C``) go into the
    action body only when given, so a target-only skill's body and audit entry are unchanged;
    the engine judges them (指杀须附上两个字的指杀理由...).
    """
    body: dict[str, Any] = {"type": "skill", "actor": actor, "skill": skill, "target": target}
    if reason is not None:
        body["reason"] = reason
    if choice is not None:
        body["choice"] = choice
    events = director_action(game_id, body, actor_label=actor_label)
    return [e.text for e in events if isinstance(e, Announced)]


# Repeated on purpose: keyword-only parameters, shaped like card_store.issue_card's by chance.
def withdraw_skill(
    game_id: str,
    *,
    actor: str,
    skill: str,
    actor_label: str,
    target: str | None = None,
    correct: bool = False,
    reason: str | None = None,
    choice: str | None = None,
) -> list[str]:
    """Withdraw ``actor``'s ``skill`` entered tonight; with ``correct``, enter it again with
    the new ``target`` in the same transaction (a refused new entry keeps the old one)."""
    bodies: list[dict[str, Any]] = [{"type": "withdraw_skill", "actor": actor, "skill": skill}]
    if correct:
        body: dict[str, Any] = {"type": "skill", "actor": actor, "skill": skill, "target": target}
        if reason is not None:
            body["reason"] = reason
        if choice is not None:
            body["choice"] = choice
        bodies.append(body)
    events = director_action(game_id, bodies, actor_label=actor_label)
    return [e.text for e in events if isinstance(e, Announced)]
