"""The wording of every announcement (公示), as data: ``rulesets/common.announcements.yaml``.

One wording per fact, whatever the ruleset: a ruleset chooses *which* facts its days open with
(``day_opening`` in its YAML, in its seed's order), never how they read.

>>> w = wording()
>>> w.fact("night_out", ["甲", "乙"]), w.fact("night_out", [])
('夜晚出局角色：甲、乙', '夜晚无人出局')
>>> w.line("red_card", name="甲")
'甲被红牌罚下'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType

import yaml

from game_rules.errors import ParameterError

#: the facts a day may open with (``day_opening`` entries)
OPENING_FACTS = frozenset({"voted_out", "night_out", "out", "sheriff", "living"})
NAME_SEPARATOR = "、"


@dataclass(frozen=True)
class Wording:
    """The announcement texts: list facts (``some``/``none``) and single lines."""

    facts: Mapping[str, tuple[str, str]]
    lines: Mapping[str, str]

    def fact(self, key: str, names: Iterable[str]) -> str:
        """The list fact ``key`` for ``names`` (its ``none`` form when empty)."""
        some, none = self.facts[key]
        listed = list(names)
        return some.format(names=NAME_SEPARATOR.join(listed)) if listed else none

    def line(self, key: str, **values: str) -> str:
        """The single line ``key`` with its placeholders filled."""
        return self.lines[key].format(**values)


@cache
def wording() -> Wording:
    """The shared wording, read once."""
    path = resources.files("game_rules.rulesets").joinpath("common.announcements.yaml")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    try:
        facts = {str(k): (str(v["some"]), str(v["none"])) for k, v in data["facts"].items()}
        lines = {str(k): str(v) for k, v in data["lines"].items()}
    except (KeyError, TypeError, AttributeError) as exc:
        raise ParameterError("bad_parameters", f"common.announcements.yaml: {exc!r}") from exc
    missing = OPENING_FACTS - set(facts)
    if missing:
        raise ParameterError(
            "bad_parameters", f"common.announcements.yaml lacks facts {sorted(missing)}"
        )
    return Wording(MappingProxyType(facts), MappingProxyType(lines))


def day_opening(raw: Mapping[str, object]) -> tuple[str, ...]:
    """A ruleset's ``day_opening`` list, checked against :data:`OPENING_FACTS`."""
    value = raw.get("day_opening") or ()
    if not isinstance(value, list | tuple):
        raise ParameterError("bad_parameters", "day_opening must be a list of facts")
    facts = tuple(str(v) for v in value)
    unknown = [f for f in facts if f not in OPENING_FACTS]
    if unknown:
        raise ParameterError("bad_parameters", f"day_opening: unknown facts {unknown}")
    return facts
