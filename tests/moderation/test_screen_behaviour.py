"""Allow-list, word boundaries, merging, offsets, bad input and the optional classifier."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexicons.loader import AllowEntry, TermEntry
from moderation.lexicon import LexiconMatcher
from moderation.normalize import normalize
from moderation.screen import (
    MAX_POST_BYTES,
    NoArticlesError,
    PostTooLargeError,
    Screener,
    load_default_classifier,
)

# --- allow-list and word boundaries ---------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "操作失误",
        "滚动条卡住了",
        "单身狗的快乐",
        "狗头保命",
        "猪头肉好吃",
        "靠近一点",
        "草稿写好了",
    ],
)
def test_longer_allowed_words_contain_listed_terms(m08: Screener, text: str) -> None:
    assert m08.screen(text) == []


def test_white_idiot_role_talk_is_allowed_but_the_insult_is_not(m08: Screener) -> None:
    assert m08.screen("我是白痴牌，被投出去可以翻牌") == []
    assert m08.screen("跳白痴的那个人") == []
    found = m08.screen("你这个白痴狼")
    assert [(f.category, f.term) for f in found] == [("insult", "白痴")]


def test_two_good_people_is_game_talk_but_two_accounts_is_a_vest_mention(m08: Screener) -> None:
    # 两个好人 reads like 两个号 once tones are dropped: the allow list keeps the game phrase
    assert m08.screen("3号和5号这两个好人我保了") == []
    assert m08.screen("两个好人一个狼，我站边预言家") == []
    assert [(f.category, f.term) for f in m08.screen("你是不是有两个号")] == [("vest", "两个号")]


def test_allow_entry_for_one_category_only() -> None:
    entries = [TermEntry("吃饭", "real_life", "life"), TermEntry("吃饭", "emotional", "mood")]
    matcher = LexiconMatcher(entries, [AllowEntry("吃饭", "real_life")])
    cats = [c.category for c in matcher.candidates(normalize("去吃饭"))]
    assert cats == ["emotional"]


def test_homophones_need_word_boundaries(m08: Screener) -> None:
    assert m08.screen("杀必须的，今天就出他") == []
    assert [f.term for f in m08.screen("你就是个沙比")] == ["傻逼"]


def test_letters_must_not_continue_a_longer_word(m08: Screener) -> None:
    assert m08.screen("usb接口坏了") == []
    assert m08.screen("C和E私奔了") == []
    assert [f.via for f in m08.screen("你是sb吗")] == ["initials"]


def test_kinship_doubles_are_not_insults(m08: Screener) -> None:
    assert all(f.category != "insult" for f in m08.screen("他妈妈的手机响了"))


# --- merging ---------------------------------------------------------------------------------


def test_overlapping_findings_of_one_category_merge(m08: Screener) -> None:
    found = m08.screen("傻傻傻逼")
    assert len(found) == 1
    f = found[0]
    assert (f.start, f.end, f.match, f.term, f.via) == (0, 4, "傻傻傻逼", "傻逼", "repeat")


def test_different_categories_are_kept_apart(m08: Screener) -> None:
    cats = sorted(f.category for f in m08.screen("我发誓你是傻逼"))
    assert cats == ["insult", "oath"]


# --- offsets -----------------------------------------------------------------------------------

_PIECES = st.sampled_from(
    [
        "傻逼",
        "沙比",
        "ＳＢ",
        "sb",
        "你妈死了",
        "nmsl",
        "發誓",
        "我发誓",
        "马甲",
        "上一场",
        "查杀",
        "金水",
        "刀",
        " ",
        "，",
        "😀",
        "\u200b",
        "[b]",
        "[/b]",
        "傻",
        "逼",
        "*",
        "x",
        "\ud800",
        "http://a.cn",
        "导演跟我说",
        "揭秘帖见",
        "如果我是狼我全家",
        "拿人格担保",
        "a",
        "3号",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=12).map("".join))
def test_every_finding_span_is_its_match_in_the_original(text: str) -> None:
    for screener in (Screener("m08", None), Screener("wa004", None)):
        for f in screener.screen(text):
            assert 0 <= f.start <= f.end <= len(text)
            assert f.start < f.end or f.category == "water"  # an empty post is all water
            assert text[f.start : f.end] == f.match


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_random_unicode_never_crashes_and_spans_hold(text: str) -> None:
    for f in Screener("m72", None).screen(text):
        assert text[f.start : f.end] == f.match


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "\ud800\udfff\ud800",
        "\x00\x01\x07\x1b[0m",
        "😀😀😀🎉",
        "[b][/b][color=red][/color]",
        "\u200b\u200d\ufeff",
        "\n\n\n",
    ],
)
def test_odd_posts_do_not_crash(wa004: Screener, text: str) -> None:
    for f in wa004.screen(text):
        assert text[f.start : f.end] == f.match


def test_empty_and_emoji_only_posts_are_water_in_wa004(wa004: Screener) -> None:
    assert [f.category for f in wa004.screen("")] == ["water"]
    assert [f.category for f in wa004.screen("😀😀😀")] == ["water"]


def test_size_limit(m08: Screener) -> None:
    at_limit = "傻逼 " + "a" * (MAX_POST_BYTES - 7)
    assert len(at_limit.encode("utf-8")) == MAX_POST_BYTES
    assert [f.term for f in m08.screen(at_limit)] == ["傻逼"]  # still screened
    with pytest.raises(PostTooLargeError) as info:
        m08.screen("好" * (1024 * 1024))
    assert info.value.size > MAX_POST_BYTES
    assert "64 KiB" in str(info.value)


def test_size_limit_in_a_batch_names_the_post(m08: Screener) -> None:
    with pytest.raises(PostTooLargeError) as info:
        m08.screen_many(["查杀", "a" * (MAX_POST_BYTES + 1)])
    assert info.value.index == 1
    assert "第2条" in str(info.value)


def test_non_string_post_is_a_type_error(m08: Screener) -> None:
    with pytest.raises(TypeError):
        m08.screen_many(["ok", 3])  # type: ignore[list-item]


def test_unknown_ruleset() -> None:
    with pytest.raises(NoArticlesError, match="m08"):
        Screener("m99")


# --- the optional classifier -----------------------------------------------------------------


class FakeClassifier:
    """Stands in for moderation.classifier.PostClassifier (predict + thresholds)."""

    def __init__(self, probs: Mapping[str, float]) -> None:
        self.probs = dict(probs)
        self.thresholds = {"insult": 0.5, "vest": 0.5, "meta": 0.5}
        self.calls: list[int] = []

    def predict(self, texts: Sequence[str]) -> list[dict[str, float]]:
        self.calls.append(len(texts))
        return [dict(self.probs) for _ in texts]


def test_classifier_findings_span_the_rule_hit_or_their_strongest_evidence() -> None:
    clf = FakeClassifier({"insult": 0.9, "vest": 0.8, "meta": 0.99})
    text = "他是傻逼，我认得他"
    found = Screener("m08", classifier=clf).screen(text)
    by_via = {(f.category, f.via): f for f in found}
    insult = by_via[("insult", "classifier")]
    assert (insult.start, insult.end, insult.confidence) == (2, 4, 0.9)
    # a model that cannot explain itself gives a finding with nothing to show: an empty span
    vest = by_via[("vest", "classifier")]
    assert (vest.start, vest.end, vest.match, vest.evidence) == (0, 0, "", ())
    assert ("meta", "classifier") not in by_via  # M08 has no meta clause


def test_classifier_findings_carry_evidence_and_calibrated_confidence() -> None:
    from moderation.classifier import Evidence

    class Explaining(FakeClassifier):
        def explain(self, text: str, category: str, **_: object) -> tuple[Evidence, ...]:
            start = text.index("我认得他")
            return (Evidence(start, start + 4, "我认得他", ("c:认得",), 1.5),)

        def confidence(self, category: str, p: float) -> float:
            return p / 2

    text = "他是傻逼，我认得他"
    found = Screener("m08", classifier=Explaining({"vest": 0.8})).screen(text)
    (vest,) = [f for f in found if f.category == "vest"]
    assert (vest.via, vest.match, vest.confidence) == ("classifier", "我认得他", 0.4)
    assert [e.match for e in vest.evidence] == ["我认得他"]
    assert vest.to_dict()["evidence"][0]["features"] == ["c:认得"]


def test_classifier_below_threshold_adds_nothing_and_runs_once_per_batch() -> None:
    clf = FakeClassifier({"insult": 0.2})
    screener = Screener("m08", classifier=clf)
    results = screener.screen_many(["查杀3号", "金水7号", "出局"])
    assert results == [[], [], []]
    assert clf.calls == [3]


def test_failing_classifier_leaves_rule_findings() -> None:
    class Broken(FakeClassifier):
        def predict(self, texts: Sequence[str]) -> list[dict[str, float]]:
            raise RuntimeError("boom")

    found = Screener("m08", classifier=Broken({})).screen("傻逼")
    assert [f.via for f in found] == ["exact"]


def test_missing_or_broken_model_file_means_rules_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BANSHA_MODEL", str(tmp_path / "absent.skops"))
    assert load_default_classifier() is None
    assert Screener("m08").classifier is None
    broken = tmp_path / "broken.skops"
    broken.write_bytes(b"not a model at all")
    monkeypatch.setenv("BANSHA_MODEL", str(broken))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert load_default_classifier() is None
    assert [f.term for f in Screener("m08").screen("傻逼")] == ["傻逼"]


# --- lexicon hits as classifier features ----------------------------------------------------


def test_category_hits_for_features() -> None:
    from moderation.lexicon import category_hits

    assert ("insult", "homophone") in category_hits("你这个沙比")
    assert ("oath", "pattern") in category_hits("我拿人格担保")
    assert category_hits("查杀3号，金水7号") == []


def test_screener_hands_its_hits_to_the_classifier_features() -> None:
    from moderation.lexicon import category_hits

    seen: list[list[tuple[str, str]]] = []

    class Recording(FakeClassifier):
        def predict(self, texts: Sequence[str]) -> list[dict[str, float]]:
            seen.extend(category_hits(t) for t in texts)
            return super().predict(texts)

    Screener("m08", classifier=Recording({})).screen("你是傻逼")
    assert seen == [[("insult", "exact")]]
