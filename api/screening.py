"""Adapter over :mod:`moderation.screen`: screen post bodies, return JSON-ready findings.

Screening is pure and happens before any database lock is taken, so the expensive part of a post
never holds up other writers. One :class:`~moderation.screen.Screener` per ruleset is kept per
process; it holds only immutable lexicons and the trained model, never game state, so sharing it
cannot serve anything stale.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from moderation.classifier import visible
from moderation.screen import AUTO, PostTooLargeError, Screener

__all__ = [
    "NON_VIOLATIONS",
    "PostTooLargeError",
    "Screened",
    "finding_to_dict",
    "has_evidence",
    "screen_posts",
    "warm",
]

#: categories that are not violations in themselves
NON_VIOLATIONS = frozenset({"water"})

_screeners: dict[tuple[str, bool], Screener] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class Screened:
    """One post's findings (JSON dicts) and whether it is a pure water post (纯水帖)."""

    findings: list[dict[str, Any]]
    water: bool

    @property
    def violations(self) -> list[dict[str, Any]]:
        """Findings that can earn a card: everything but the water marker, and only findings a
        director can check (:func:`has_evidence`)."""
        return [f for f in self.findings if f["category"] not in NON_VIOLATIONS and has_evidence(f)]


def has_evidence(finding: dict[str, Any]) -> bool:
    """Whether a finding shows the director a span to check: its own span must show something,
    and a classifier finding must carry at least one evidence span that does.

    >>> has_evidence({"via": "exact", "match": "傻逼", "evidence": []})
    True
    >>> has_evidence({"via": "classifier", "match": "", "evidence": []})
    False
    """
    if not visible(finding["match"]):
        return False
    if finding["via"] == "classifier":
        return any(visible(e["match"]) for e in finding.get("evidence", ()))
    return True


def finding_to_dict(finding: Any) -> dict[str, Any]:
    """A moderation ``Finding`` as JSON (offsets index the original post body)."""
    article = finding.article
    severity = finding.severity
    return {
        "category": str(finding.category),
        "article": {
            "ruleset": str(article.ruleset),
            "code": str(article.code),
            "text": str(article.text),
        },
        "start": int(finding.start),
        "end": int(finding.end),
        "match": str(finding.match),
        "term": str(finding.term or ""),
        "via": str(finding.via or ""),
        "confidence": round(float(finding.confidence), 4),
        "severity": {"cards": list(severity.cards), "text": str(severity.text)},
        "evidence": [e.to_dict() for e in getattr(finding, "evidence", ())],
    }


def screener(ruleset: str, use_classifier: bool = True) -> Screener:
    """The process's screener for ``ruleset`` (with the trained model when asked and present)."""
    key = (ruleset, use_classifier)
    found = _screeners.get(key)
    if found is not None:
        return found
    with _lock:
        found = _screeners.get(key)
        if found is None:
            # Variants (m08_12) share their base ruleset's articles.
            base = ruleset.split("_", 1)[0] if ruleset not in ("wa004",) else ruleset
            found = Screener(base, classifier=AUTO if use_classifier else None)
            _screeners[key] = found
    return found


def screen_posts(ruleset: str, texts: Sequence[str], use_classifier: bool = True) -> list[Screened]:
    """Screen ``texts`` under ``ruleset``'s articles (raises ``PostTooLargeError`` over 64 KiB)."""
    if not texts:
        return []
    # Each post is normalised once: the screener reports the water flag from the same views.
    results = screener(ruleset, use_classifier).screen_posts(list(texts))
    return [Screened([finding_to_dict(f) for f in r.findings], r.water) for r in results]


# Posts that take every step once: normalisation views, lexicon and pattern automata, word
# boundaries (a short term), homophones (pinyin), the model's columns and its evidence.
_WARM_POSTS = (
    "3号你个沙比，操作失误也能悍跳预言家？",
    "我拿人格担保我是好人，5号金水",
    "顶！！！",
    "[color=red]投3号[/color]",  # loads the font rules (BBCode) before the first real post
)


def warm(rulesets: Sequence[str] = ("m08", "m72", "wa004"), use_classifier: bool = True) -> None:
    """Load the lexicons and the model and screen a few posts under each ruleset, then freeze.

    Called in a preforking master (``bansha serve``, ``deploy/gunicorn.conf.py``) before the
    workers fork: every table is then built once and shared copy-on-write, and a new worker's
    first post costs what any later post does. ``gc.freeze`` moves everything built so far out
    of the collector's sight, so a collection in a worker does not write to (and so copy) the
    shared pages. ``use_classifier``: as the app is configured (``BANSHA_CLASSIFIER``).
    """
    import gc

    for ruleset in rulesets:
        screen_posts(ruleset, list(_WARM_POSTS), use_classifier)
        for post in _WARM_POSTS:
            screen_posts(ruleset, [post], use_classifier)
    gc.collect()
    _release_free_heap()
    gc.freeze()


def _release_free_heap() -> None:
    """Hand the heap pages that building the tables freed back to the system (glibc only).

    The lexicon build frees tens of thousands of objects; without this their pages stay in the
    master's resident memory (about 5 MiB) and are copied into every worker's count.
    """
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    if name is None:
        return
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return
    trim(0)
