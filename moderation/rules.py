"""Rules read from the raw post: reserved font colour and size (字体), and water posts (纯水帖).

The director's red and enlarged text are Discuz! BBCode (``[color=#FF0000]``, ``[size=5]``) or HTML
font tags; the thresholds are data in the ``font`` section of ``lexicons/patterns.yaml``.  A water
post is one whose folded text is empty or made only of filler words (``water`` section).

>>> [c.article for c in font_candidates("[color=#FF0000]我是预言家[/color]")]
['red']
>>> font_candidates("[color=#0000FF]蓝色字没事[/color] [size=2]小字[/size]")
[]
>>> is_water("顶！！！"), is_water("😀😀"), is_water("3号今天的发言很像狼")
(True, True, False)
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from lexicons.loader import load_font_rules, load_water
from moderation.lexicon import Candidate
from moderation.normalize import NormalizedText, fold_term, normalize

__all__ = [
    "FontRules",
    "colour_distance",
    "font_candidates",
    "font_rules",
    "is_water",
    "parse_colour",
    "parse_size",
    "water_candidate",
]

_HEX = re.compile(r"#?([0-9a-f]{6}|[0-9a-f]{3})")
_RGB = re.compile(r"rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)")
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*(px|pt|em|%)?")


def parse_colour(value: str, named: Mapping[str, str]) -> tuple[int, int, int] | None:
    """An RGB triple from a BBCode/HTML colour value, or None when it is not understood.

    >>> parse_colour("#f00", {}), parse_colour("rgb(250, 0, 10)", {})
    ((255, 0, 0), (250, 0, 10))
    >>> parse_colour("Red", {"red": "#FF0000"}), parse_colour("sky", {})
    ((255, 0, 0), None)
    """
    v = value.strip().strip("\"'").lower()
    if v in named:
        v = named[v].lower()
    m = _RGB.fullmatch(v)
    if m:
        r, g, b = (min(255, int(x)) for x in m.groups())
        return r, g, b
    m = _HEX.fullmatch(v)
    if m:
        h = m.group(1)
        if len(h) == 3:
            h = "".join(c * 2 for c in h)
        return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
    return None


def colour_distance(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """Euclidean distance in RGB space.

    >>> round(colour_distance((204, 0, 0), (255, 0, 0)))
    51
    """
    return math.dist(a, b)


def parse_size(value: str) -> tuple[float, str] | None:
    """``(number, unit)`` of a font size value; unit is "" for the Discuz! 1-7 scale.

    >>> parse_size("5"), parse_size("18px"), parse_size("150%"), parse_size("large")
    ((5.0, ''), (18.0, 'px'), (150.0, '%'), None)
    """
    m = _SIZE.fullmatch(value.strip().strip("\"'").lower())
    if m is None:
        return None
    return float(m.group(1)), m.group(2) or ""


@dataclass(frozen=True)
class FontRules:
    """Compiled font rules from ``patterns.yaml``."""

    colour_tags: tuple[re.Pattern[str], ...]
    size_tags: tuple[re.Pattern[str], ...]
    reserved: tuple[int, int, int]
    max_distance: float
    named: Mapping[str, str]
    max_size: Mapping[str, float]

    def is_reserved_colour(self, value: str) -> bool:
        """True when ``value`` is the director's red or near it."""
        rgb = parse_colour(value, self.named)
        return rgb is not None and colour_distance(rgb, self.reserved) <= self.max_distance

    def is_enlarged(self, value: str) -> bool:
        """True when ``value`` is a font size above normal text (thresholds in patterns.yaml)."""
        v = value.strip().strip("\"'").lower()
        if v in ("large", "x-large", "xx-large", "larger", "xxx-large"):
            return True
        size = parse_size(v)
        if size is None:
            return False
        number, unit = size
        limit = {
            "": self.max_size["plain"],
            "px": self.max_size["px"],
            "pt": self.max_size["pt"],
            "em": self.max_size["em"],
            "%": self.max_size["percent"],
        }[unit]
        return number > limit


@cache
def font_rules() -> FontRules:
    """The project's font rules (compiled once)."""
    data: Mapping[str, Any] = load_font_rules()
    named = {str(k).lower(): str(v) for k, v in data["named_colours"].items()}
    reserved = parse_colour(str(data["reserved_colour"]), named)
    assert reserved is not None, "reserved_colour in patterns.yaml must be a colour"
    return FontRules(
        colour_tags=tuple(re.compile(p) for p in data["colour_tags"]),
        size_tags=tuple(re.compile(p) for p in data["size_tags"]),
        reserved=reserved,
        max_distance=float(data["max_distance"]),
        named=named,
        max_size={str(k): float(v) for k, v in data["max_size"].items()},
    )


def font_candidates(text: str) -> list[Candidate]:
    """Reserved red or enlarged font tags in the ORIGINAL text (the tag is the span)."""
    if "[" not in text and "<" not in text:
        return []
    rules = font_rules()
    out: list[Candidate] = []
    for rx in rules.colour_tags:
        for m in rx.finditer(text):
            if rules.is_reserved_colour(m.group(1)):
                out.append(
                    Candidate("font", "red", m.start(), m.end(), m.group(0), "pattern", 0.95)
                )
    for rx in rules.size_tags:
        for m in rx.finditer(text):
            if rules.is_enlarged(m.group(1)):
                out.append(
                    Candidate("font", "size", m.start(), m.end(), m.group(0), "pattern", 0.9)
                )
    out.sort(key=lambda c: c.start)
    return out


@cache
def _water_regex() -> re.Pattern[str]:
    data = load_water()
    words = sorted({fold_term(str(w)) for w in data["words"]} - {""}, key=len, reverse=True)
    alts = [re.escape(w) for w in words] + [str(r) for r in data.get("regex", [])]
    return re.compile("(?:" + "|".join(alts) + ")+")


def is_water(text: str | NormalizedText) -> bool:
    """True for a 纯水帖: nothing left after folding, or only filler words (顶, 沙发, 哈哈, +1).

    The service uses this for lurking counts (wa004 counts posts "不含纯水帖").
    """
    nt = text if isinstance(text, NormalizedText) else normalize(text)
    folded = nt.folded.replace("*", "")
    return not folded or _water_regex().fullmatch(folded) is not None


def water_candidate(nt: NormalizedText) -> Candidate | None:
    """A ``water`` candidate spanning the whole post when it is a 纯水帖, else None."""
    if not is_water(nt):
        return None
    return Candidate("water", "water", 0, len(nt.original), "纯水帖", "pattern", 0.9)
