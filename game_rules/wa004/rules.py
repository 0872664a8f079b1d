"""wa004's own readings of its seed, read from the ``rules:`` block of ``rulesets/wa004.yaml``.

>>> from game_rules.params import load_params
>>> r = Wa004Rules.from_params(load_params("wa004"))
>>> r.marks_to_convert, r.retain_window, r.guardian_win_from_night, r.ntr_consent
(3, 'pairs', 2, 'automatic')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from game_rules.errors import ParameterError
from game_rules.params import RulesetParams

RETAIN_WINDOWS = ("pairs", "cooldown")
NOBILITY_ENDS = ("second_appeared", "second_alive")
#: R8 牛头人 "并且对方同意和你成为情侣": part of the effect, or a question put to the target
NTR_CONSENTS = ("automatic", "asked")


@dataclass(frozen=True)
class Wa004Rules:
    """Readings of silent places in seed 000 (docs/rulings/wa004.md names each one)."""

    marks_to_convert: int = 3
    guardian_win_from_night: int = 2
    retain_window: str = "pairs"
    nobility_ends: str = "second_appeared"
    martyrdom_on_red_card: bool = True
    empty_faction_loses: bool = False
    ntr_consent: str = "automatic"

    def __post_init__(self) -> None:
        if self.marks_to_convert < 1:
            raise ParameterError("bad_parameters", "rules.marks_to_convert must be >= 1")
        if self.guardian_win_from_night < 1:
            raise ParameterError("bad_parameters", "rules.guardian_win_from_night must be >= 1")
        for key, value, allowed in (
            ("retain_window", self.retain_window, RETAIN_WINDOWS),
            ("nobility_ends", self.nobility_ends, NOBILITY_ENDS),
            ("ntr_consent", self.ntr_consent, NTR_CONSENTS),
        ):
            if value not in allowed:
                raise ParameterError(
                    "bad_parameters", f"rules.{key} must be one of {allowed}, got {value!r}"
                )

    @classmethod
    def from_params(cls, params: RulesetParams) -> Wa004Rules:
        """Read ``params.extra["rules"]`` (missing keys take the defaults above)."""
        raw: Any = params.extra.get("rules", {}) or {}
        if not isinstance(raw, Mapping):
            raise ParameterError("bad_parameters", "rules: must be a mapping")
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(raw) - known
        if unknown:
            raise ParameterError("bad_parameters", f"rules: unknown keys {sorted(unknown)}")
        try:
            return cls(**{str(k): v for k, v in raw.items()})
        except TypeError as exc:
            raise ParameterError("bad_parameters", f"rules: {exc}") from exc


def fixed_couples(fixed: Any, pool: list[str]) -> tuple[tuple[str, str], ...]:
    """Couples given as the ``couples`` parameter (a director's draw written down), checked:
    除单身贵族（1人）以外的角色两个一组, each of ``pool`` (the non-nobles) in exactly one pair.

    >>> fixed_couples([["甲", "乙"], ["丙", "丁"]], ["甲", "乙", "丙", "丁"])
    (('甲', '乙'), ('丙', '丁'))
    """
    if not isinstance(fixed, list | tuple) or not all(
        isinstance(p, list | tuple) and len(p) == 2 for p in fixed
    ):
        raise ParameterError("couples", "情侣须两个一组：couples: [[甲, 乙], ...]")
    pairs = tuple((str(p[0]), str(p[1])) for p in fixed)
    named = [c for pair in pairs for c in pair]
    if sorted(named) != sorted(pool):
        odd = sorted(set(pool) ^ set(named)) or sorted(pool)
        raise ParameterError(
            "couples",
            "除单身贵族以外的角色须各在一对情侣中（单身贵族不能有情侣）：" + "、".join(odd),
        )
    return pairs
