"""Where card suggestions are made: only findings a director can check may suggest a card."""

from __future__ import annotations

from typing import Any

from api.screening import Screened, has_evidence


def _finding(via: str, match: str, evidence: list[str], category: str = "insult") -> dict[str, Any]:
    return {
        "category": category,
        "via": via,
        "match": match,
        "evidence": [{"start": 0, "end": len(m), "match": m} for m in evidence],
    }


def test_only_findings_with_a_visible_span_can_earn_a_card() -> None:
    rule = _finding("homophone", "煞笔", [])
    explained = _finding("classifier", "回炉重造", ["回炉重造", "你这种人"])
    # agrees with a rule span but cannot say why: the span alone is the rule's, not its evidence
    unexplained = _finding("classifier", "煞笔", [])
    invisible = _finding("classifier", "\u200b", ["\u200b", " \n"])
    blank_rule = _finding("noise", " \u3000", [])
    water = _finding("exact", "顶", [], category="water")
    screened = Screened([rule, explained, unexplained, invisible, blank_rule, water], water=True)
    assert screened.violations == [rule, explained]
    assert [has_evidence(f) for f in (rule, explained, unexplained, invisible, blank_rule)] == [
        True,
        True,
        False,
        False,
        False,
    ]
