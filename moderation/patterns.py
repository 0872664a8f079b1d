"""Sentence patterns (``lexicons/patterns.yaml``) run over the normalisation views.

Words alone cannot tell "拿我的人格担保" from "我的人格很好", or "导演跟我说" from "导演辛苦了":
those are sentence shapes, written as regexes over one view each (``folded`` by default, ``clean``
when punctuation matters, ``original`` for markup) and reported with spans in the original text.

>>> from moderation.normalize import normalize
>>> [c.term for c in default_patterns().candidates(normalize("我拿人格担保他是好人"))]
['oath-by-person']
>>> default_patterns().candidates(normalize("我要是狼我就先刀你"))
[]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from lexicons.loader import PatternSpec, load_patterns
from moderation.lexicon import Candidate
from moderation.normalize import WILDCARD, NormalizedText

__all__ = ["CompiledPattern", "PatternMatcher", "default_patterns"]


@dataclass(frozen=True)
class CompiledPattern:
    """A pattern spec with its regexes compiled."""

    spec: PatternSpec
    regex: re.Pattern[str]
    unless: re.Pattern[str] | None


class PatternMatcher:
    """All sentence patterns, grouped by the view they read."""

    def __init__(self, specs: Sequence[PatternSpec]) -> None:
        self.patterns: tuple[CompiledPattern, ...] = tuple(
            CompiledPattern(s, re.compile(s.regex), re.compile(s.unless) if s.unless else None)
            for s in specs
        )
        # One alternation per view answers "could any pattern match?" in a single scan; most
        # posts are clean game talk and skip the per-pattern loop entirely.
        self._any: dict[str, re.Pattern[str]] = {}
        for view in ("folded", "clean", "original"):
            group = [p.spec.regex for p in self.patterns if p.spec.view == view]
            if group:
                self._any[view] = re.compile("|".join(f"(?:{rx})" for rx in group))

    def candidates(self, nt: NormalizedText) -> list[Candidate]:
        """Every pattern match in ``nt`` (spans in the original text), in text order."""
        out: list[Candidate] = []
        folded = nt.folded
        kept: list[int] | None = None
        if WILDCARD in folded:
            # sentence shapes read through asterisks (拿我妈*担保); the lexicon handles wildcards
            kept = [i for i, c in enumerate(folded) if c != WILDCARD]
            folded = "".join(folded[i] for i in kept)
        texts = {"folded": folded, "clean": nt.clean, "original": nt.original}
        live = {v for v, rx in self._any.items() if texts[v] and rx.search(texts[v])}
        if not live:
            return out
        for p in self.patterns:
            view = p.spec.view
            if view not in live:
                continue
            text = texts[view]
            if p.unless is not None and p.unless.search(text):
                continue
            for m in p.regex.finditer(text):
                a, b = m.span()
                if b <= a:
                    continue
                if view == "folded":
                    if kept is not None:
                        a, b = kept[a], kept[b - 1] + 1
                    a, b = nt.span(a, b)
                elif view == "clean":
                    a, b = nt.clean_view.span(a, b)
                a, b = _trim(nt.original, a, b)
                if b <= a:
                    continue
                out.append(
                    Candidate(
                        category=p.spec.category,
                        article=p.spec.article,
                        start=a,
                        end=b,
                        term=p.spec.id,
                        via="pattern",
                        confidence=p.spec.confidence,
                    )
                )
        out.sort(key=lambda c: (c.start, -c.end, c.category))
        return out


def _trim(text: str, a: int, b: int) -> tuple[int, int]:
    """Drop surrounding whitespace from a span (line-anchored patterns match it)."""
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


@cache
def default_patterns() -> PatternMatcher:
    """The project's sentence patterns (compiled once per process)."""
    return PatternMatcher(load_patterns())
