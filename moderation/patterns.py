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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from re import _constants, _parser  # type: ignore[attr-defined]
from typing import Any

import ahocorasick

from lexicons.loader import PatternSpec, load_patterns
from moderation.lexicon import Candidate, crosses_clause
from moderation.normalize import WILDCARD, NormalizedText

__all__ = ["CompiledPattern", "PatternMatcher", "default_patterns", "required_literals"]

# present from Python 3.11; a sentinel that matches no opcode otherwise
_REPEAT_POSSESSIVE = getattr(_constants, "POSSESSIVE_REPEAT", object())
_ATOMIC_GROUP = getattr(_constants, "ATOMIC_GROUP", object())


@dataclass(frozen=True)
class CompiledPattern:
    """A pattern spec with its regexes compiled."""

    spec: PatternSpec
    regex: re.Pattern[str]
    unless: re.Pattern[str] | None


class PatternMatcher:
    """All sentence patterns, grouped by the view they read.

    A literal pre-filter decides which patterns can match at all: for each pattern,
    :func:`required_literals` finds strings one of which every match must contain (the pattern's
    most selective mandatory literal or set of literal alternatives); one Aho-Corasick automaton
    per view finds which of them a post holds, and only those patterns (plus the few without a
    required literal) run their regex. Most posts are clean game talk and run two or three.
    """

    def __init__(self, specs: Sequence[PatternSpec]) -> None:
        self.patterns: tuple[CompiledPattern, ...] = tuple(
            CompiledPattern(s, re.compile(s.regex), re.compile(s.unless) if s.unless else None)
            for s in specs
        )
        literals: dict[str, dict[str, list[int]]] = {}
        self._always: dict[str, frozenset[int]] = {}
        always: dict[str, set[int]] = {}
        for i, p in enumerate(self.patterns):
            view = p.spec.view
            required = required_literals(p.spec.regex)
            if required is None:
                always.setdefault(view, set()).add(i)
            else:
                for literal in required:
                    literals.setdefault(view, {}).setdefault(literal, []).append(i)
        self._views = tuple(sorted(set(literals) | set(always)))
        self._always = {v: frozenset(always.get(v, ())) for v in self._views}
        self._literals: dict[str, Any] = {}
        for view, table in literals.items():
            automaton = ahocorasick.Automaton()
            for literal, indices in table.items():
                automaton.add_word(literal, tuple(indices))
            automaton.make_automaton()
            self._literals[view] = automaton

    def possible(self, texts: Mapping[str, str]) -> set[int]:
        """Indices of the patterns that may match ``texts`` (view name -> text of that view)."""
        out: set[int] = set()
        for view in self._views:
            text = texts[view]
            if not text:
                continue
            out |= self._always[view]
            automaton = self._literals.get(view)
            if automaton is not None:
                for _, indices in automaton.iter(text):
                    out.update(indices)
        return out

    def candidates(self, nt: NormalizedText, *, prefilter: bool = True) -> list[Candidate]:
        """Every pattern match in ``nt`` (spans in the original text), in text order.

        ``prefilter=False`` runs every pattern's regex: the same result, slower (for tests).
        """
        out: list[Candidate] = []
        folded = nt.folded
        kept: list[int] | None = None
        if WILDCARD in folded:
            # sentence shapes read through asterisks (拿我妈*担保); the lexicon handles wildcards
            kept = [i for i, c in enumerate(folded) if c != WILDCARD]
            folded = "".join(folded[i] for i in kept)
        texts = {"folded": folded, "clean": nt.clean, "original": nt.original}
        possible = self.possible(texts) if prefilter else set(range(len(self.patterns)))
        if not possible:
            return out
        for index in sorted(possible):
            p = self.patterns[index]
            view = p.spec.view
            text = texts[view]
            if p.unless is not None and p.unless.search(text):
                continue
            for m in _matches(p, nt, text, kept):
                a, b = m.span()
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


#: Switch for the ``clause`` option of patterns (tests turn it off to show what it does).
CLAUSE_PATTERNS = True


def _matches(
    p: CompiledPattern, nt: NormalizedText, text: str, kept: list[int] | None
) -> Iterator[re.Match[str]]:
    """The non-empty matches of ``p`` in ``text`` (its view of ``nt``).

    A ``clause`` pattern on the folded view (which has no punctuation) skips a match that spans
    a clause boundary of the original (判罚，有问题的人私下找我 is no complaint about the call) and
    tries again one character later, so a match within one clause further on is still found.
    """
    check = CLAUSE_PATTERNS and p.spec.clause and p.spec.view == "folded"
    pos = 0
    while pos <= len(text):
        m = p.regex.search(text, pos)
        if m is None:
            return
        a, b = m.span()
        if b <= a:
            pos = a + 1
            continue
        if check:
            fa, fb = (kept[a], kept[b - 1] + 1) if kept is not None else (a, b)
            if crosses_clause(nt, fa, fb):
                pos = a + 1
                continue
        yield m
        pos = b


def required_literals(regex: str) -> frozenset[str] | None:
    """Strings one of which every match of ``regex`` contains; None when none can be named.

    Read from the parsed regex: a run of literal characters, a set of plain characters, an
    alternation whose every branch has required literals, or a group or a repeat of at least one
    of those, all outside any optional part, look-around or case-insensitive scope. Of the
    candidates in a sequence the one with the longest shortest string is kept (the most selective
    pre-filter).

    >>> sorted(required_literals("(?:拿|用)(?:我的?)?(?:人格|人品)(?:来)?担保"))
    ['担保']
    >>> sorted(required_literals("(?:拿|用)(?:人格|名誉)"))
    ['人格', '名誉']
    >>> sorted(required_literals("[!！]{4,}"))
    ['!', '！']
    >>> required_literals("(?i:qq)[0-9]+") is None, required_literals("a?b*") is None
    (True, True)
    """
    try:
        tree = _parser.parse(regex)
    except re.error:
        return None
    if tree.state.flags & re.IGNORECASE:
        return None
    return _sequence_literals(list(tree))


def _sequence_literals(items: list[tuple[Any, Any]]) -> frozenset[str] | None:
    options: list[frozenset[str]] = []
    run = ""
    for op, av in items:
        if op is _constants.LITERAL:
            run += chr(av)
            continue
        if run:
            options.append(frozenset({run}))
            run = ""
        found = _item_literals(op, av)
        if found is not None:
            options.append(found)
    if run:
        options.append(frozenset({run}))
    if not options:
        return None
    return max(options, key=lambda s: (min(map(len, s)), -len(s)))


def _item_literals(op: Any, av: Any) -> frozenset[str] | None:
    if op is _constants.SUBPATTERN:
        _, add_flags, _, sub = av
        return None if add_flags & re.IGNORECASE else _sequence_literals(list(sub))
    if op is _constants.BRANCH:
        union: set[str] = set()
        for branch in av[1]:
            found = _sequence_literals(list(branch))
            if found is None:
                return None
            union |= found
        return frozenset(union)
    if op in (_constants.MAX_REPEAT, _constants.MIN_REPEAT, _REPEAT_POSSESSIVE):
        low, _, sub = av
        return _sequence_literals(list(sub)) if low >= 1 else None
    if op is _ATOMIC_GROUP:
        return _sequence_literals(list(av))
    if op is _constants.IN and av and all(item is _constants.LITERAL for item, _ in av):
        # a set of plain characters ([!！], or 我|俺 as the parser compiles it): one of them
        return frozenset(chr(code) for _, code in av)
    return None


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
