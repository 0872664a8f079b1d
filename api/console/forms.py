"""Parsing the console's form input into the service's request bodies (pure, no Flask).

The player list is pasted one character per line. A line may add the forum account playing it and
aliases that votes may use, separated by ``|``: ``角色 | 玩家 | 别名1, 别名2``.

>>> parse_players("饺子\\n包子 | 小明 | 包包、肉包\\n\\n")
[{'character': '饺子'}, {'character': '包子', 'player': '小明', 'aliases': ['包包', '肉包']}]
"""

from __future__ import annotations

import re
from typing import Any

MAX_NAME = 64
#: how the engines join the names of a plan in a legal action's ``choice`` (M08 决战: ``A,B,C``)
PLAN_SEPARATOR = ","
_ALIAS_SPLIT = re.compile(r"[,，、;；\s]+")


class FormInputError(ValueError):
    """Form input the console cannot turn into a request; the message is shown to the director."""


def parse_players(text: str) -> list[dict[str, Any]]:
    """One player entry per non-empty line (see module docstring); raises :class:`FormInputError`.

    >>> parse_players("甲\\n甲")
    Traceback (most recent call last):
    ...
    api.console.forms.FormInputError: 第2行：角色名“甲”重复
    """
    players: list[dict[str, Any]] = []
    seen: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) > 3:
            raise FormInputError(f"第{number}行：最多三栏（角色 | 玩家 | 别名）")
        name = parts[0]
        if not name:
            raise FormInputError(f"第{number}行：缺少角色名")
        if len(name) > MAX_NAME:
            raise FormInputError(f"第{number}行：角色名超过{MAX_NAME}个字符")
        if name in seen:
            raise FormInputError(f"第{number}行：角色名“{name}”重复")
        seen.add(name)
        entry: dict[str, Any] = {"character": name}
        if len(parts) > 1 and parts[1]:
            if len(parts[1]) > MAX_NAME:
                raise FormInputError(f"第{number}行：玩家名超过{MAX_NAME}个字符")
            entry["player"] = parts[1]
        if len(parts) > 2 and parts[2]:
            aliases = [a for a in _ALIAS_SPLIT.split(parts[2]) if a]
            if any(len(a) > MAX_NAME for a in aliases):
                raise FormInputError(f"第{number}行：别名超过{MAX_NAME}个字符")
            entry["aliases"] = aliases
        players.append(entry)
    if not players:
        raise FormInputError("请粘贴玩家名单，每行一名角色")
    return players


def new_game_body(ruleset: str, players_text: str, seed: str) -> dict[str, Any]:
    """The ``POST /api/games`` body for the new-game form.

    >>> new_game_body("m72", "甲\\n乙", " ")
    {'ruleset': 'm72', 'players': [{'character': '甲'}, {'character': '乙'}]}
    """
    body: dict[str, Any] = {"ruleset": ruleset.strip(), "players": parse_players(players_text)}
    if seed.strip():
        body["seed"] = seed.strip()
    return body


def decision_for(suggested: str, chosen: str) -> tuple[str, str | None]:
    """The decision ``(action, colour)`` for the colour the director clicked.

    >>> decision_for("blue", "blue"), decision_for("blue", "red"), decision_for("blue", "green")
    (('confirm', None), ('change', 'red'), ('dismiss', None))
    """
    if chosen == "green":
        return "dismiss", None
    if chosen == suggested:
        return "confirm", None
    return "change", chosen


def optional_target(value: str | None) -> str | None:
    """A target select's value: empty means no target (放弃 / 弃权).

    >>> optional_target(""), optional_target("饺子")
    (None, '饺子')
    """
    value = (value or "").strip()
    return value or None


def optional_text(value: str | None) -> str | None:
    """A text input or button's value, trimmed: empty means none (no 指杀理由, no choice).

    >>> optional_text("  冲锋 "), optional_text("   "), optional_text(None)
    ('冲锋', None, None)
    """
    return (value or "").strip() or None


def skill_choice(choice: str | None, plan: list[str]) -> str | None:
    """The ``choice`` a night-action form sends: the button pressed (同意/不同意), else the plan
    picked in the plan selects, in order, as the engines write a plan (``A,B,C``).

    A plan is filled from its first slot on: a gap before a later name would move that name to
    an earlier night, so it is refused rather than closed up.

    >>> skill_choice("yes", []), skill_choice(None, ["凛", "希", ""]), skill_choice("", ["", ""])
    ('yes', '凛,希', None)
    >>> skill_choice(None, ["凛", "", "希"])
    Traceback (most recent call last):
    ...
    api.console.forms.FormInputError: 刀法须从第一个起依次填写，中间不能留空
    """
    picked = optional_text(choice)
    if picked is not None:
        return picked
    names = [name.strip() for name in plan]
    while names and not names[-1]:
        names.pop()
    if not names:
        return None
    if not all(names):
        raise FormInputError("刀法须从第一个起依次填写，中间不能留空")
    return PLAN_SEPARATOR.join(names)
