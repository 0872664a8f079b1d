"""Each ruleset's words on a player's record across games (``api/registry_rules.yaml``): the
red card's 单独记录 and the 场外助理 limit, and what the forum publishes of a record.

>>> assistant_rule("m72").max_games_before
3
>>> assistant_rule("m08_12").max_games_before is None  # a variant takes its base's entry
True
>>> separate_record("wa004").keeper
'小镇'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

DATA = Path(__file__).with_name("registry_rules.yaml")


class Published(StrEnum):
    """What of a record the public may see (config ``REGISTRY_PUBLIC``)."""

    RED_CARDS = "red_cards"
    BANS = "bans"
    CARDS = "cards"
    GAMES = "games"


#: the default: the seeds' 单独记录 of red cards, and the bans that followed them
DEFAULT_PUBLISHED = frozenset({Published.RED_CARDS, Published.BANS})


def parse_published(text: str) -> frozenset[Published]:
    """``"red_cards,bans"`` as a set (empty text: nothing is published).

    >>> sorted(parse_published("bans, games"))
    [<Published.BANS: 'bans'>, <Published.GAMES: 'games'>]
    """
    items = [part.strip() for part in text.split(",") if part.strip()]
    try:
        return frozenset(Published(item) for item in items)
    except ValueError:
        known = ", ".join(p.value for p in Published)
        raise ValueError(f"REGISTRY_PUBLIC may list only {known}; got {text!r}") from None


@dataclass(frozen=True)
class SeparateRecord:
    """The seed's words on a red card after the game, and who keeps the record."""

    keeper: str
    text: str


@dataclass(frozen=True)
class AssistantRule:
    """场外助理: the most games a player may already have played (None: no limit)."""

    max_games_before: int | None
    allowed: str
    refused: str

    def eligible(self, games_before: int) -> bool:
        """Whether a player who has already played ``games_before`` games may have one.

        >>> AssistantRule(3, "", "").eligible(3), AssistantRule(3, "", "").eligible(4)
        (True, False)
        """
        return self.max_games_before is None or games_before <= self.max_games_before


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    data = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _base(ruleset: str) -> str:
    """The ruleset whose entry applies: ``ruleset`` itself, or the one it ``extends``."""
    seen = set()
    current = ruleset
    while current not in _data() and current not in seen:
        seen.add(current)
        try:
            text = (
                resources.files("game_rules.rulesets")
                .joinpath(f"{current}.yaml")
                .read_text(encoding="utf-8")
            )
        except (FileNotFoundError, OSError):
            break
        parent = (yaml.safe_load(text) or {}).get("extends")
        if not isinstance(parent, str):
            break
        current = parent
    if current not in _data():
        raise KeyError(f"api/registry_rules.yaml has no entry for ruleset {ruleset!r}")
    return current


def separate_record(ruleset: str) -> SeparateRecord:
    """The seed's 单独记录 of red cards for ``ruleset``."""
    return SeparateRecord(**_data()[_base(ruleset)]["separate_record"])


def assistant_rule(ruleset: str) -> AssistantRule:
    """The 场外助理 rule of ``ruleset``."""
    return AssistantRule(**_data()[_base(ruleset)]["assistant"])
