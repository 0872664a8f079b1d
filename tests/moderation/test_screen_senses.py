"""Game senses, kinship and cross-boundary syllables (moderation/senses.py, compounds.py).

Written for this project: role and skill talk of common boards, kinship possessives and oaths,
and ordinary words that hold a term across a word boundary (no finding, and each checked to
need its layer), next to the same words aimed at a player (still a finding).
"""

from __future__ import annotations

import pytest

from moderation.compounds import generate, main
from moderation.layers import Layer
from moderation.screen import Finding, Screener

RULESETS = ("m08", "m72", "wa004")


def _screen(text: str, ruleset: str, layers: Layer = Layer.ALL) -> list[Finding]:
    return Screener(ruleset, classifier=None, layers=layers).screen(text)


def _categories(text: str, layers: Layer = Layer.ALL) -> set[str]:
    return {f.category for r in RULESETS for f in _screen(text, r, layers)}


GAME_SENSES = [
    ("我是白痴，昨天被投出去翻牌了，今天继续发言", "insult"),
    ("乌鸦昨晚诅咒了5号，今天5号多一票", "oath"),
    ("场外信息不能用，凭场上发言", "vest"),
    ("我这局练出马甲线了哈哈", "vest"),
    ("你骂的对，他就是狼", "insult"),  # 骂的 (scolded) sounds like 妈的
    ("他骂得很凶但是一个脏字都没有", "insult"),
    ("他骂我好几次了，我都没回嘴", "insult"),  # 他骂 + whom: the verb, not 他妈
]
AIMED = [
    ("你就是个白痴，这都看不出来", "insult"),
    ("6号是白痴吧，这么明显的狼都不投", "insult"),
    ("白癡才會信你是女巫", "insult"),
    ("我诅咒你们这局全输", "oath"),
    ("你是不是有场外助理在帮你看", "vest"),
    ("去你骂的，天天踩我", "insult"),
    ("他吗的又被刀了", "insult"),
]


@pytest.mark.parametrize(("text", "category"), GAME_SENSES)
def test_game_senses_of_ordinary_words(text: str, category: str) -> None:
    assert _categories(text) == set(), [_screen(text, r) for r in RULESETS]
    assert category in _categories(text, Layer.ALL & ~Layer.GAME_SENSES)


@pytest.mark.parametrize(("text", "category"), AIMED)
def test_the_same_words_aimed_at_someone_are_found(text: str, category: str) -> None:
    for ruleset in RULESETS:
        assert category in {f.category for f in _screen(text, ruleset)}, ruleset


def test_jieba_derived_compounds_are_allowed() -> None:
    text = "我花了二百五十元买的皮肤"  # 二百五十 (250) holds 二百五 but is a number
    assert _categories(text, Layer.GAME_SENSES) == set()
    assert "insult" in _categories(text, Layer.NONE)


def test_compounds_are_found_by_data_and_compositional_ones_left_out() -> None:
    rows = {(word, category) for word, category, _, _ in generate()}
    assert ("二百五十元", "insult") in rows
    assert ("突破防线", "emotional") in rows  # 破防 inside 突破防线
    # the term is a whole word of the compound's own cut: the compound keeps the term's sense
    for word in ("替补队员", "死不要脸", "发神经病", "换马甲"):
        assert not [r for r in rows if r[0] == word], word
    assert not [r for r in rows if r[0] in ("傻帽儿", "缺心眼儿")]  # 儿化 forms are the term


def test_the_compounds_file_is_generated_from_jieba() -> None:
    assert main(["--check"]) == 0


KINSHIP = [
    # (post, what the kinship word would be taken for without the layer)
    ("拿我妈的人格担保我是好人", "insult"),
    ("以我妈的名义发誓，我是好人", "insult"),
    ("你去拿我妈的快递吧", "insult"),
    ("我妈的手机昨天坏了，晚点上线", "insult"),
]


@pytest.mark.parametrize(("text", "insult"), KINSHIP)
def test_kinship_is_not_the_insult(text: str, insult: str) -> None:
    assert insult not in _categories(text)
    assert insult in _categories(text, Layer.ALL & ~Layer.KINSHIP)


@pytest.mark.parametrize(
    ("text", "code"),
    [("拿我妈的人格担保我是好人", "2(6)"), ("我拿我老妈的名誉担保，3号铁狼", "2(6)")],
)
def test_a_kinship_oath_is_an_oath_with_relatives(text: str, code: str) -> None:
    # 以生命安全、人格或亲属的人格作为担保或威胁, and in M08 not real life either
    assert [(f.category, f.article.code) for f in _screen(text, "m72")] == [("oath", code)]
    assert [f.category for f in _screen(text, "m08")] == ["oath"]


@pytest.mark.parametrize("text", ["他妈的，又被刀了", "你妈的，别踩我"])
def test_the_kinship_insult_stays_an_insult(text: str) -> None:
    for ruleset in RULESETS:
        assert "insult" in {f.category for f in _screen(text, ruleset)}


CROSSING = [
    ("马上一场大雨就来了，大家快下线", "vest"),  # 马上 + 一场, not 上一场
    ("今天我们二百五十楼了", "insult"),  # 二百五十, not 二百五
    ("这话说得不要脸红", "insult"),  # 不要 + 脸红, not 不要脸
    ("剩下一场比赛，好好打", "meta"),  # 剩下 + 一场, not 下一场
]


@pytest.mark.parametrize(("text", "category"), CROSSING)
def test_syllables_across_word_boundaries_are_no_hit(text: str, category: str) -> None:
    assert _categories(text) == set(), [_screen(text, r) for r in RULESETS]
    assert category in _categories(text, Layer.ALL & ~Layer.SYLLABLES)


@pytest.mark.parametrize(
    ("text", "category"),
    [("你真不要脸", "insult"), ("上一场我们见过", "vest"), ("二百五，你投错了", "insult")],
)
def test_the_same_terms_on_word_boundaries_are_found(text: str, category: str) -> None:
    for ruleset in RULESETS:
        assert category in {f.category for f in _screen(text, ruleset)}, ruleset


def test_a_hits_sentence_is_read_at_most_a_bounded_window_each_side() -> None:
    # a post with no sentence mark (one oath repeated over 64 KiB) must not make every hit read
    # the whole post: that was quadratic, tens of seconds for one post
    from moderation.senses import _MAX_SENTENCE_SIDE, _sentence

    text = "我发誓" * 2000
    a, b = _sentence(text, 3000, 3003)
    assert (a, b) == (3000 - _MAX_SENTENCE_SIDE, 3003 + _MAX_SENTENCE_SIDE)
    assert _sentence("他是狼。我发誓我是好人！对吧", 6, 8) == (4, 11)
