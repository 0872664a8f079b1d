"""Which character a forum account (马甲) posts as: by name, by the ``player`` account given at
creation, or by an alias the director set; never guessed.

>>> roster = Roster.from_players([{"character": "微信", "player": "老王"}, {"character": "淘宝",
...     "aliases": ["淘宝君"]}])
>>> roster.character("老王"), roster.character("淘宝君"), roster.character("路人")
('微信', '淘宝', None)
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


def account_key(name: str) -> str:
    """How names are compared: NFKC (full-width letters and digits fold) and no outer spaces.

    >>> account_key(" ＡＢ１ ") == account_key("AB1")
    True
    """
    return unicodedata.normalize("NFKC", name).strip().casefold()


@dataclass(frozen=True)
class Roster:
    """Account key -> the characters it names (more than one: ambiguous, left to the director)."""

    names: Mapping[str, frozenset[str]]

    @classmethod
    def from_players(cls, players: Iterable[Mapping[str, Any]]) -> Roster:
        """From a game's ``players`` entries (character, player, aliases)."""
        names: dict[str, set[str]] = {}
        for entry in players:
            character = str(entry["character"])
            spelled = [character, str(entry.get("player") or ""), *entry.get("aliases", [])]
            for name in spelled:
                if str(name).strip():
                    names.setdefault(account_key(str(name)), set()).add(character)
        return cls({k: frozenset(v) for k, v in names.items()})

    def character(self, account: str) -> str | None:
        """The one character ``account`` names, or None (unknown, or naming two)."""
        found = self.names.get(account_key(account), frozenset())
        return next(iter(found)) if len(found) == 1 else None

    def ambiguous(self, account: str) -> bool:
        """Whether ``account`` names more than one character."""
        return len(self.names.get(account_key(account), frozenset())) > 1
