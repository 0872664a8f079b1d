"""The result of a game as a value object (python-chess style ``outcome()``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from game_rules.enums import Cause, Result
from game_rules.state import Elimination

WIN: str = Result.WIN.value
LOSE: str = Result.LOSE.value
UNDECIDED: str = Result.UNDECIDED.value

#: cause key -> the seeds' words (from game_rules.enums.Cause)
CAUSE_NAMES: dict[str, str] = {c.value: c.chinese for c in Cause}


@dataclass(frozen=True)
class Outcome:
    """Who won: ``winner`` faction (None while running), each faction's result, and eliminations.

    ``results`` maps every faction key to ``"win"``, ``"lose"`` or ``"undecided"``; ``seed`` and
    ``secret`` are revealed only once ``ended`` (before, they are None and ``commitment`` is what
    was published).
    """

    ended: bool
    winner: str | None
    results: Mapping[str, str]
    eliminations: tuple[Elimination, ...]
    commitment: str
    seed: str | None = None
    secret: str | None = None
    reason: str = ""
    faction_names: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        """Plain JSON form (for ``bansha replay --json`` and the service)."""
        return {
            "ended": self.ended,
            "winner": self.winner,
            "results": dict(self.results),
            "eliminations": [
                {
                    "character": e.character,
                    "cause": e.cause,
                    "day": e.day,
                    "phase": e.phase,
                    "by": e.by,
                }
                for e in self.eliminations
            ],
            "commitment": self.commitment,
            "seed": self.seed,
            "secret": self.secret,
            "reason": self.reason,
        }

    def describe(self) -> list[str]:
        """Chinese summary lines, e.g. ``狼人阵营胜利``."""
        names = self.faction_names
        lines: list[str] = []
        if self.ended and self.winner is not None:
            lines.append(f"{names.get(self.winner, self.winner)}胜利")
        for faction, result in self.results.items():
            word = {WIN: "胜", LOSE: "负", UNDECIDED: "未定"}[result]
            lines.append(f"{names.get(faction, faction)}：{word}")
        for i, e in enumerate(self.eliminations, 1):
            when = f"第{e.day}天{'白天' if e.phase == 'day' else '夜晚'}"
            lines.append(f"{i}. {e.character}（{when}，{CAUSE_NAMES.get(e.cause, e.cause)}）")
        return lines
