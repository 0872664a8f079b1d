"""Dialect and English rows (``lexicons/terms/dialect.tsv``, ``english.tsv``; issue 11, item 4).

Each case is found through its data file: with the file left out of the matcher the same post has
no finding of that category. Near misses (longer English words, game talk) stay clean.
"""

from __future__ import annotations

from functools import cache

import pytest

from lexicons.loader import load_allow, load_game_vocab, load_terms
from moderation.lexicon import LexiconMatcher
from moderation.normalize import normalize


@cache
def _matcher(leave_out: str) -> LexiconMatcher:
    terms = [e for e in load_terms() if not (leave_out and e.source.startswith(leave_out))]
    return LexiconMatcher(terms, load_allow(), [w for w, _, _ in load_game_vocab()])


def _categories(text: str, leave_out: str = "") -> set[str]:
    return {c.category for c in _matcher(leave_out).candidates(normalize(text))}


FOUND = [
    # 闽南: insults on kin and wits
    ("干恁娘，又是我被推", "insult", "terms/dialect.tsv"),
    ("你头壳坏掉喔，这样也跳", "insult", "terms/dialect.tsv"),
    # 粤语: a self-curse, work life (M08)
    ("我讲大话就死俾你睇", "oath", "terms/dialect.tsv"),
    ("听日要返工，晏啲先上嚟", "real_life", "terms/dialect.tsv"),
    # 川渝
    ("你这个哈戳戳的，票都投反了", "insult", "terms/dialect.tsv"),
    # English: a bare alt or sub in a game thread
    ("I think 7号 is someone's alt", "vest", "terms/english.tsv"),
    ("who is the sub for 9号 tomorrow?", "vest", "terms/english.tsv"),
    ("last season you did the same fake claim", "vest", "terms/english.tsv"),
]


@pytest.mark.parametrize(("text", "category", "source"), FOUND)
def test_found_through_its_data_row(text: str, category: str, source: str) -> None:
    assert category in _categories(text), text
    assert category not in _categories(text, leave_out=source), text


@pytest.mark.parametrize(
    "text",
    [
        "the subtitle of this thread is wrong",  # sub inside a longer word
        "an alternative plan: vote 5号",  # alt inside a longer word
        "返回楼上看一下票型",  # 返 without 工
        "头壳清醒的人都看得出5号是狼",  # 头壳 without 坏
    ],
)
def test_near_misses_stay_clean(text: str) -> None:
    assert _categories(text) == set(), text
