"""Adapter over :mod:`moderation.screen`: screen post bodies, return JSON-ready findings.

Screening is pure and happens before any database lock is taken, so the expensive part of a post
never holds up other writers. One :class:`~moderation.screen.Screener` per ruleset is kept per
process; it holds only immutable lexicons and the model, never game state, so sharing it cannot
serve anything stale.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: categories that are not violations in themselves
NON_VIOLATIONS = frozenset({"water"})

_screeners: dict[str, Any] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class Screened:
    """One post's findings (JSON dicts) and whether it is a pure water post (纯水帖)."""

    findings: list[dict[str, Any]]
    water: bool

    @property
    def violations(self) -> list[dict[str, Any]]:
        """Findings that can earn a card (everything but the water marker)."""
        return [f for f in self.findings if f["category"] not in NON_VIOLATIONS]


def finding_to_dict(finding: Any) -> dict[str, Any]:
    """A moderation ``Finding`` as JSON."""
    article = finding.article
    return {
        "category": str(finding.category),
        "article": {
            "ruleset": str(getattr(article, "ruleset", "")),
            "code": str(getattr(article, "code", "")),
            "text": str(getattr(article, "text", "")),
        },
        "start": int(finding.start),
        "end": int(finding.end),
        "match": str(finding.match),
        "term": str(getattr(finding, "term", "") or ""),
        "via": str(getattr(finding, "via", "") or ""),
        "confidence": round(float(getattr(finding, "confidence", 1.0)), 4),
        "severity": str(getattr(finding, "severity", "") or ""),
    }


def _classifier() -> Any:
    path = os.environ.get("BANSHA_MODEL", os.path.join("var", "model.skops"))
    if not os.path.exists(path):
        return None
    from moderation.classifier import PostClassifier

    return PostClassifier.load(path)


def screener(ruleset: str) -> Any:
    """The process's screener for ``ruleset`` (with the trained model when one exists)."""
    found = _screeners.get(ruleset)
    if found is not None:
        return found
    with _lock:
        found = _screeners.get(ruleset)
        if found is None:
            from moderation.screen import Screener

            try:
                found = Screener(ruleset=ruleset, classifier=_classifier())
            except TypeError:
                found = Screener(ruleset=ruleset)
            _screeners[ruleset] = found
    return found


def _is_water(text: str, findings: list[dict[str, Any]]) -> bool:
    if any(f["category"] == "water" for f in findings):
        return True
    try:
        from moderation.screen import is_water
    except ImportError:
        return False
    return bool(is_water(text))


def screen_posts(ruleset: str, texts: Sequence[str]) -> list[Screened]:
    """Screen ``texts`` under ``ruleset``'s articles."""
    if not texts:
        return []
    engine = screener(ruleset)
    raw = engine.screen_many(list(texts))
    out = []
    for text, findings in zip(texts, raw, strict=True):
        dicts = [finding_to_dict(f) for f in findings]
        out.append(Screened(dicts, _is_water(text, dicts)))
    return out
