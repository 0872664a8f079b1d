"""corpus/cw7.jsonl: free-worded posts for the causes of blind-set misses (issue 11, item 5).

The file teaches the classifier what no lexicon lists: M72 2(8) citations of another player's 贴脸
used as an argument, game responsibility, awards and after-game talk, and outbursts (rage,
tears, quiet despair, quitting in anger), in plain Chinese, English, dialects and initials, each
cause beside near misses that break no rule. These tests keep it that: a file that loses a cause,
its near misses, its rulesets or its independence from the blind sets fails here.
"""

from __future__ import annotations

import collections
import re
from pathlib import Path

import pytest

from moderation.training import Post, load_jsonl

ROOT = Path(__file__).resolve().parents[2]
CW7 = ROOT / "corpus" / "cw7.jsonl"
BLIND = sorted((ROOT / "corpus" / "blind").glob("blind_*.jsonl"))
#: Character-trigram Jaccard similarity from which two posts count as near copies.
NEAR_COPY = 0.6


@pytest.fixture(scope="module")
def posts() -> list[Post]:
    if not CW7.exists():
        pytest.skip("no corpus/cw7.jsonl")
    return load_jsonl(CW7)


def test_every_cause_has_posts_in_many_voices(posts: list[Post]) -> None:
    assert len(posts) >= 300
    kinds: dict[str, set[str]] = collections.defaultdict(set)
    for p in posts:
        for label in p.labels:
            kinds[label].add(p.evasion)
    for label in ("meta", "emotional"):
        assert {"none", "english", "dialect"} <= kinds[label], (label, kinds[label])
        assert sum(label in p.labels for p in posts) >= 100, label
    assert "initials" in kinds["meta"] | kinds["emotional"]


def test_near_misses_are_an_equal_share(posts: list[Post]) -> None:
    clean = [p for p in posts if not p.labels]
    assert 0.45 <= len(clean) / len(posts) <= 0.55
    assert all(p.evasion == "none" for p in clean)
    # the near misses speak the same voices as the violations
    english = [p for p in clean if len(re.findall(r"[A-Za-z]{2,}", p.text)) >= 3]
    assert len(english) >= 10


def test_ruleset_bound_labels_name_their_ruleset(posts: list[Post]) -> None:
    # meta exists only under M72; real life beyond 有事/吃饭/睡觉 is an M08 article
    for p in posts:
        if "meta" in p.labels:
            assert p.ruleset == "m72", p.id
        if "real_life" in p.labels:
            assert p.ruleset == "m08", p.id


def _trigrams(text: str) -> frozenset[str]:
    return frozenset(text[i : i + 3] for i in range(len(text) - 2))


def test_no_post_copies_a_blind_post(posts: list[Post]) -> None:
    # the blind sets are spent dev sets: analysed by cause, never copied into training data
    blind = [p.text for path in BLIND for p in load_jsonl(path)]
    if not blind:
        pytest.skip("no blind sets")
    blind_grams = [_trigrams(t) for t in blind]
    index: dict[str, list[int]] = collections.defaultdict(list)
    for i, grams in enumerate(blind_grams):
        for g in grams:
            index[g].append(i)
    copies = []
    for p in posts:
        grams = _trigrams(p.text)
        shared = collections.Counter(i for g in grams for i in index.get(g, ()))
        for i, n in shared.items():
            if n / len(grams | blind_grams[i]) >= NEAR_COPY:
                copies.append((p.id, blind[i]))
    assert copies == []
