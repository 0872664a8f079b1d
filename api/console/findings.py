"""A screener finding as the console shows it: what matched, how, and how strong that is.

A suggestion's strength is the strongest kind of evidence behind it, not its score: a lexicon
entry matched (as typed or through a variant), a 句式 pattern, or the classifier alone. A
classifier-only finding carries the spans that drove the model (``evidence``), and they are
what the director reads instead of the category key the model returns as its "term".

>>> view = finding_view({"category": "insult", "via": "homophone", "match": "曹尼玛",
...                      "term": "操你妈", "confidence": 0.9, "start": 0, "end": 3})
>>> view["how"], view["strength"], view["strength_name"]
('“曹尼玛” → 音近 操你妈', 'word', '词条匹配')
>>> view = finding_view({"category": "insult", "via": "classifier", "match": "你是猪",
...     "term": "insult", "confidence": 0.23,
...     "evidence": [{"start": 0, "end": 3, "match": "你是猪", "weight": 2.0}]})
>>> view["how"], view["strength_name"], view["evidence"]
('分类模型 依据“你是猪”', '仅模型判断', ['你是猪'])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from api import cardrules
from api.console.labels import via_label

#: the kinds of evidence, strongest first, with the words the page shows for them
STRENGTHS = {"word": "词条匹配", "pattern": "句式匹配", "classifier": "仅模型判断"}


def strength_of(via: str) -> str:
    """The kind of evidence a finding's ``via`` is: ``word``, ``pattern`` or ``classifier``.

    >>> strength_of("exact"), strength_of("shape"), strength_of("pattern")
    ('word', 'word', 'pattern')
    """
    if via in ("pattern", "classifier"):
        return via
    return "word"


def strongest(strengths: Iterable[str]) -> str | None:
    """The strongest of ``strengths`` (None for none).

    >>> strongest(["classifier", "pattern"]), strongest([])
    ('pattern', None)
    """
    order = list(STRENGTHS)
    found = sorted(set(strengths), key=order.index)
    return found[0] if found else None


def _evidence_matches(f: Mapping[str, Any]) -> list[str]:
    raw = f.get("evidence") or []
    return [
        str(e.get("match", ""))
        for e in raw
        if isinstance(e, Mapping) and str(e.get("match", "")).strip()
    ]


def finding_view(f: Mapping[str, Any]) -> dict[str, Any]:
    """One stored finding (JSON) for a template: category, how it matched, strength, article."""
    via = str(f.get("via") or "exact")
    match = str(f.get("match", ""))
    term = str(f.get("term") or "")
    article = f.get("article") or {}
    strength = strength_of(via)
    evidence = _evidence_matches(f) if strength == "classifier" else []
    # a pattern's "term" is its id in lexicons/patterns.yaml, not words for the page
    show_term = strength == "word" and via != "exact" and bool(term) and term != match
    if strength == "classifier":
        # the classifier's "term" is its category key: the spans that drove it are the evidence
        shown = "、".join(f"“{m}”" for m in evidence[:3]) or f"“{match}”"
        how = f"{via_label(via)} 依据{shown}"
    elif not show_term:
        how = f"“{match}” → {via_label(via)}"
    else:
        how = f"“{match}” → {via_label(via)} {term}"
    if isinstance(article, Mapping):
        code, text = str(article.get("code", "")), str(article.get("text", ""))
    else:
        code, text = str(article), str(f.get("article_text", ""))
    return {
        "category": f.get("category", ""),
        "category_name": cardrules.category_name(str(f.get("category", ""))),
        "via": via,
        "via_name": via_label(via),
        "how": how,
        "show_term": show_term,
        "strength": strength,
        "strength_name": STRENGTHS[strength],
        "evidence": evidence,
        "match": match,
        "term": term,
        "start": f.get("start"),
        "end": f.get("end"),
        "confidence": float(f.get("confidence", 0.0)),
        "article_code": code,
        "article_text": text,
    }


__all__ = ["STRENGTHS", "finding_view", "strength_of", "strongest"]
