"""Two-letter initials of two-character terms (issue 11, item 7: initials invariance).

A two-character term without the ``initials`` option gets its two initials as a guarded key
(``moderation.variants.GUARDED_INITIALS``); the matcher keeps such a hit only where the letters
read as a chosen abbreviation (``moderation.lexicon.chosen_initials``) and the pair is neither an
ordinary pair (a word, everyday shorthand, a syllable, a double, a game word's initials) nor shared
by terms of two categories. Each test switches its piece off and shows what it did.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lexicons.loader import load_allow, load_game_vocab, load_letter_words, load_terms
from moderation import evasions, variants
from moderation.lexicon import LexiconMatcher, ordinary_pairs
from moderation.normalize import normalize


@pytest.fixture
def switch(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """Monkeypatch a module switch; matchers are built fresh in each test, so no cache to clear."""
    yield monkeypatch
    monkeypatch.undo()


def _matcher(leave_out: str = "") -> LexiconMatcher:
    terms = [e for e in load_terms() if e.term != leave_out]
    return LexiconMatcher(terms, load_allow(), [w for w, _, _ in load_game_vocab()])


def _hits(text: str, matcher: LexiconMatcher) -> list[tuple[str, str, str]]:
    return [(c.category, c.term, c.via) for c in matcher.candidates(normalize(text))]


# Pairs of one category's terms only, not in letter_words.txt (废柴, 卧槽/无耻, 投降).
CHOSEN = [
    ("一群fc，票都投不明白", ("insult", "废柴", "initials")),
    ("wc，这也能输", ("insult", "卧槽", "initials")),
    ("我是狼的话我们阵营现在就tx", ("oath", "投降", "initials")),
]


@pytest.mark.parametrize(("text", "hit"), CHOSEN)
def test_two_initials_among_chinese_are_read(
    switch: pytest.MonkeyPatch, text: str, hit: tuple[str, str, str]
) -> None:
    assert hit in _hits(text, _matcher())
    switch.setattr(variants, "GUARDED_INITIALS", False)
    assert hit not in _hits(text, _matcher())


def test_two_initials_outside_chinese_are_letters() -> None:
    m = _matcher()
    # capitals are names or acronyms; letters inside an English phrase are English
    for text in ("FC是我的老朋友了", "他说 he is fc 而已", "fc"):
        assert not any(t == "废柴" for _, t, _ in _hits(text, m)), text


def test_ordinary_pairs_are_never_a_term() -> None:
    m = _matcher()
    ordinary = ordinary_pairs(w for w, _, _ in load_game_vocab())
    # shorthand (楼主, 自己, 回复, 百度), a syllable (ma), a double (哈哈), a game word (金水 js,
    # 归票 gp)
    for pair in ("lz", "zj", "hf", "bd", "ma", "hh", "js", "gp"):
        assert pair in ordinary, pair
    assert "lz" in load_letter_words()
    for text in ("lz说得对", "zj的票我先放这", "hf楼上", "我去bd一下", "js给3号", "jz今天gp给8号"):
        assert _hits(text, m) == [], text


def test_a_pair_two_categories_share_says_nothing() -> None:
    # gs: 公司 (real life) and 狗屎/龟孙 (insult); pj: 评奖 (meta) and 仆街 (insult)
    m = _matcher()
    for text in ("在gs摸鱼发帖呢", "pj的时候我提名他"):
        assert _hits(text, m) == [], text
    # with 公司 gone the pair is one category's, and read so
    alone = _hits("在gs摸鱼发帖呢", _matcher(leave_out="公司"))
    assert alone and {cat for cat, _, via in alone} == {"insult"}


def test_initials_kind_needs_two_characters(switch: pytest.MonkeyPatch) -> None:
    # one letter (c for 蠢) is no disguise: the post is not counted for the kind
    assert evasions.perturb("你真蠢啊", [(2, 3)], "initials") is None
    assert evasions.perturb("你是傻逼吧", [(2, 4)], "initials") == "你是sb吧"
    switch.setattr(evasions, "MIN_INITIALS", 1)
    assert evasions.perturb("你真蠢啊", [(2, 3)], "initials") == "你真c啊"
