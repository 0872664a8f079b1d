"""Chinese labels for the console (data in ``labels.yaml``), with the raw key as the fallback.

>>> via_label("homophone"), colour_label("red"), cause_label("red_card")
('音近', '红牌', '红牌罚下')
>>> skill_label("no_such_skill")
'no_such_skill'
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

from game_rules.enums import LABELLED
from moderation.screen import display_names

LABELS_FILE = Path(__file__).with_name("labels.yaml")


@cache
def labels() -> dict[str, dict[str, str]]:
    """Every label table, read once per process."""
    raw: dict[str, Any] = yaml.safe_load(LABELS_FILE.read_text(encoding="utf-8"))
    tables = {table: {str(k): str(v) for k, v in entries.items()} for table, entries in raw.items()}
    check_keys(tables)
    return tables


def check_keys(tables: dict[str, dict[str, str]]) -> None:
    """Raise ``ValueError`` unless each table keyed by a closed set of the game core
    (``game_rules.enums.LABELLED``: phases, causes, skills, colours) labels exactly its members:
    a wrong key would show the raw key on the page."""
    for table, members in LABELLED.items():
        keys = set(tables.get(table, {}))
        values = {str(m.value) for m in members}
        if keys != values:
            unknown, missing = sorted(keys - values), sorted(values - keys)
            raise ValueError(f"labels.yaml {table}: unknown keys {unknown}, missing {missing}")


def label(table: str, key: str | None) -> str:
    """The label of ``key`` in ``table`` (``key`` itself when there is none; "" for None)."""
    if key is None:
        return ""
    return labels().get(table, {}).get(key, key)


def via_label(via: str) -> str:
    """How a finding matched, e.g. ``homophone`` -> 音近 (``lexicons/categories.yaml``)."""
    return display_names()["via"].get(via, via)


def colour_label(colour: str) -> str:
    """A card colour, e.g. ``yellow`` -> 黄牌."""
    return label("colours", colour)


def cause_label(cause: str) -> str:
    """Why a character left the game."""
    return label("causes", cause)


def skill_label(skill: str) -> str:
    """A skill key as the seeds name it."""
    return label("skills", skill)


def phase_label(phase: str) -> str:
    """``day`` -> 讨论日, ``night`` -> 夜晚."""
    return label("phases", phase)


def thread_label(thread: str) -> str:
    """``discussion`` -> 讨论帖 ..."""
    return label("threads", thread)


def day_title(day: int) -> str:
    """A game day as headings name it; day 0 is the setup before the first day.

    >>> day_title(0), day_title(2)
    ('开局', '第2天')
    """
    return "开局" if day == 0 else f"第{day}天"


def ruleset_label(ruleset: str) -> str:
    """The ruleset's title for the new-game form."""
    return label("rulesets", ruleset)
