"""Evidence spans highlighted in a post's original text, built from escaped segments.

A finding's ``start``/``end`` index the ORIGINAL post body. The post is split at span borders and
every segment is escaped on its own; only the ``<mark>`` tags this module writes are markup, so
nothing a player wrote (HTML, BBCode, ``javascript:`` links) can become live markup.

>>> str(highlight("你这个<b>傻逼</b>", [Span(6, 8, "insult")]))
'你这个&lt;b&gt;<mark class="hl hl-insult" data-span="0">傻逼</mark>&lt;/b&gt;'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

_CLASS_SAFE = re.compile(r"[^a-z0-9_-]")


@dataclass(frozen=True, order=True)
class Span:
    """A half-open range ``[start, end)`` of the original text, with the finding's category."""

    start: int
    end: int
    category: str = ""


def spans_from_findings(findings: Iterable[Mapping[str, Any]], length: int) -> list[Span]:
    """Valid spans of JSON findings, clipped to ``[0, length]``; malformed ones are skipped.

    >>> spans_from_findings([{"start": 2, "end": 9, "category": "oath"}, {"start": "x"}], 5)
    [Span(start=2, end=5, category='oath')]
    """
    out: list[Span] = []
    for f in findings:
        start, end = f.get("start"), f.get("end")
        if not isinstance(start, int) or not isinstance(end, int):
            continue
        start, end = max(0, start), min(length, end)
        if start < end:
            out.append(Span(start, end, str(f.get("category", ""))))
    return sorted(out)


def merge_spans(spans: Sequence[Span]) -> list[Span]:
    """Overlapping or touching spans merged (the first span's category is kept).

    >>> merge_spans([Span(0, 3, "a"), Span(2, 5, "b"), Span(7, 8, "c")])
    [Span(start=0, end=5, category='a'), Span(start=7, end=8, category='c')]
    """
    merged: list[Span] = []
    for span in sorted(spans):
        if merged and span.start <= merged[-1].end:
            last = merged[-1]
            merged[-1] = Span(last.start, max(last.end, span.end), last.category)
        else:
            merged.append(span)
    return merged


def highlight(text: str, spans: Sequence[Span]) -> Markup:
    """``text`` escaped, with each (merged) span wrapped in ``<mark>``.

    >>> str(highlight("a<b", []))
    'a&lt;b'
    >>> str(highlight("草泥马[url=javascript:alert(1)]x[/url]", [Span(0, 3, "insult")]))
    '<mark class="hl hl-insult" data-span="0">草泥马</mark>[url=javascript:alert(1)]x[/url]'
    """
    parts: list[str] = []
    cursor = 0
    for i, span in enumerate(merge_spans(spans)):
        start, end = max(span.start, cursor), min(span.end, len(text))
        if start >= end:
            continue
        parts.append(str(escape(text[cursor:start])))
        css = _CLASS_SAFE.sub("", span.category.lower())
        parts.append(f'<mark class="hl hl-{css}" data-span="{i}">{escape(text[start:end])}</mark>')
        cursor = end
    parts.append(str(escape(text[cursor:])))
    return Markup("".join(parts))
