"""Who is speaking: quoted rules, quoted players and M72 2(8) citations (moderation/speaker.py).

Written for this project in the way players post: rule reminders, questions to the director,
quotes of other posts, reported speech and hypotheticals (no finding: the words are not the
poster's), and the poster's own words around such quotes (still a finding). Every "no finding"
case is checked to need its layer: with that layer switched off the same post has a finding.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from moderation.layers import Layer, UnknownLayerError
from moderation.screen import Finding, Screener
from moderation.speaker import Voice, read

RULESETS = ("m08", "m72", "wa004")


def _screen(text: str, ruleset: str, layers: Layer = Layer.ALL) -> list[Finding]:
    return Screener(ruleset, classifier=None, layers=layers).screen(text)


def _categories(text: str, layers: Layer = Layer.ALL) -> set[str]:
    return {f.category for r in RULESETS for f in _screen(text, r, layers)}


# (post, the category its quoted words would be taken for)
QUOTED_RULES = [
    ("规则帖写了不许聊替补，大家注意一下", "vest"),
    ("規則帖寫了不能聊替補，大家注意點", "vest"),
    ("导演之前说过不许用场外助理，大家守规矩", "vest"),
    ("按规则，拿全家担保是要吃牌的，4号你自己掂量", "oath"),
    ("法官，拿人格担保算违规吗", "oath"),
    ("导演，我想问一下说滚算不算骂人？", "insult"),
    ("请问说自己对天发誓会被罚吗？", "oath"),
    ("大家别拿全家担保了，没用的", "oath"),
    # a floor and clause reference with a colon, and 禁了 as the rule's verb
    ("规则帖2楼第3条：不许讨论替补，大家注意", "vest"),
    ("规则禁了拿人格担保，别再用了", "oath"),
]

QUOTED_PLAYERS = [
    ("4号昨天说「我拿全家担保我是预言家」，今天又改口，你们自己品", "oath"),
    ("[quote]9号：你们这群傻逼，等着输吧[/quote]\n这种发言我建议导演看看", "insult"),
    ("引用 12楼：我发誓我是女巫\n这话你自己信吗？", "oath"),
    ("他骂我是傻逼，导演管不管？", "insult"),
    ("有人说“谁投我谁死全家”，这种话太过了", "oath"),
    ("如果有人骂你傻逼的话，直接找导演", "insult"),
    ("假如他发毒誓的话，你们会信吗？", "oath"),
    ("回复 傻狗不会叫 ：我觉得你说得对", "insult"),
    ("“拿全家担保”这种话谁信啊", "oath"),
]

# (post, category, the poster's own words that must still be found)
OWN_WORDS = [
    ("我发誓他是狼，不信你们看他说的「我才是真预言家」", "oath", "我发誓"),
    ("回复 7号 ：你个傻逼", "insult", "傻逼"),
    ("我说“我发誓我是预言家”，你们信不信随便", "oath", "我发誓"),
    ("要是我是狼，我天打雷劈", "oath", "天打雷劈"),
    ("他说我是狼，你才是傻逼", "insult", "傻逼"),
    ("傻逼导演，这算违规吗", "insult", "傻逼"),
    ("“傻逼”，说的就是你3号", "insult", "傻逼"),  # nothing marks the quote as a mention
    ("导演，这傻逼又在骂人，算不算违规？", "insult", "傻逼"),  # only the asking clause is asked
    ("他说：“我发誓我是女巫”，我发誓他在骗人", "oath", "我发誓他"),
    ("规则帖写了不许聊替补，但我就想问问上一场那个替补是谁", "vest", "上一场"),
    # relaying talk of a topic still talks of it: only 贴脸 is quoted away
    ("他说替补的事让我们别管", "vest", "替补"),
]


@pytest.mark.parametrize(("text", "category"), QUOTED_RULES)
def test_quoting_or_asking_about_the_rules_is_allowed(text: str, category: str) -> None:
    assert _categories(text) == set(), [_screen(text, r) for r in RULESETS]
    # the layer is what clears it
    assert category in _categories(text, Layer.ALL & ~Layer.QUOTED_RULES)


@pytest.mark.parametrize(("text", "category"), QUOTED_PLAYERS)
def test_words_quoted_from_another_player_are_not_the_posters(text: str, category: str) -> None:
    assert _categories(text) == set(), [_screen(text, r) for r in RULESETS]
    assert category in _categories(text, Layer.ALL & ~Layer.QUOTED_PLAYERS)


@pytest.mark.parametrize(("text", "category", "own"), OWN_WORDS)
def test_the_posters_own_words_around_a_quote_stay_theirs(
    text: str, category: str, own: str
) -> None:
    for ruleset in RULESETS:
        found = [f for f in _screen(text, ruleset) if f.category == category]
        start = text.index(own)
        assert any(f.start <= start < f.end for f in found), (ruleset, found)


# M72 2(8): (post, a piece of the cited words the finding must cover)
CITATIONS = [
    ("3号昨天赌咒发誓说自己是预言家，所以我信他", "赌咒发誓"),
    ("9号说“我以人格担保我是女巫”，那我信她是女巫", "我以人格担保"),
    ("他发誓说他是好人，所以我保他", "发誓"),
    # a player named by name, with a time word before the oath act, and judgements a player
    # draws without the words 信/站 (投不下去, 信一次, 不信他信谁)
    ("希昨天拿人格担保了，这票我投不下去", "拿人格担保"),
    ("绘里刚才用全家担保，那就信她一次", "用全家担保"),
    ("小鸟都以信仰担保了，不信她信谁", "以信仰担保"),
]
NOT_CITATIONS = [
    "他昨天说要拿全家担保，结果今天就改口了",  # reported, but no judgement drawn from it
    "别因为他发誓说自己是预言家就信他",  # refusing the oath as evidence
    "导演，他发誓说他是好人，这算贴脸吗？我信他",  # asking about the rule
]


@pytest.mark.parametrize(("text", "piece"), CITATIONS)
def test_citing_a_quoted_or_reported_tielian_is_m72_2_8(text: str, piece: str) -> None:
    found = _screen(text, "m72")
    assert [(f.category, f.article.code) for f in found] == [("meta", "2(8)")], found
    f = found[0]
    assert f.article.text == "以“贴脸”作为讨论依据"
    assert text[f.start : f.end] == f.match
    assert f.start <= text.index(piece) and text.index(piece) + len(piece) <= f.end
    # M08 and 白色相簿 (wa004) have no such clause, and the cited oath is not the poster's
    for ruleset in ("m08", "wa004"):
        assert _screen(text, ruleset) == []
    # without the layer no 2(8) finding is made
    off = _screen(text, "m72", Layer.ALL & ~Layer.CITATIONS)
    assert not [f for f in off if f.article.code == "2(8)"]


@pytest.mark.parametrize("text", NOT_CITATIONS)
def test_reported_oaths_without_an_argument_drawn_from_them_are_no_finding(text: str) -> None:
    for ruleset in RULESETS:
        assert _screen(text, ruleset) == [], ruleset


class SaysItIsAnOath:
    """A stand-in classifier that calls every post an oath (predict + thresholds)."""

    def __init__(self) -> None:
        self.thresholds = {"oath": 0.5}

    def predict(self, texts: Sequence[str]) -> list[dict[str, float]]:
        return [{"oath": 0.9} for _ in texts]


def test_the_classifier_adds_no_finding_for_words_read_as_quoted() -> None:
    quoted = "4号昨天说「我拿全家担保我是预言家」，今天又改口"
    screener = Screener("m08", classifier=SaysItIsAnOath())
    assert screener.screen(quoted) == []
    # without the layer, the quoted oath is a rule finding and the model agrees with it
    off = Screener("m08", classifier=SaysItIsAnOath(), layers=Layer.ALL & ~Layer.QUOTED_PLAYERS)
    assert {f.via for f in off.screen(quoted)} == {"pattern", "classifier"}
    # a post with no quote is left to the model
    assert [f.via for f in screener.screen("我站他边")] == ["classifier"]


def test_reading_spans_and_voices() -> None:
    text = "我发誓他是狼，你看他说的「我是预言家」"
    quoted = read(text).quoted
    assert (Voice.PLAYER, "我是预言家") in {(q.voice, text[q.start : q.end]) for q in quoted}
    assert all(q.start >= text.index("你看") for q in quoted)  # the oath before stays own
    reply = "回复 傻狗不会叫 ：我同意"
    (name,) = read(reply).quoted
    assert reply[name.start : name.end] == "傻狗不会叫"  # a name, not the reply after it
    assert read("我发誓我是好人").quoted == ()


def test_layer_names() -> None:
    assert Layer.parse("quoted_rules, citations") == Layer.QUOTED_RULES | Layer.CITATIONS
    assert Layer.parse("none") == Layer.NONE
    with pytest.raises(UnknownLayerError) as err:
        Layer.parse("quotes")
    assert "未知的检查层" in str(err.value)


# pieces of posts: quotation marks, cues, terms, noise
_PIECES = [
    "「",
    "」",
    "“",
    "”",
    '"',
    "[quote]",
    "[/quote]",
    "引用",
    "回复",
    "：",
    "，",
    "。",
    "？",
    "规则帖写了",
    "导演，",
    "算不算违规",
    "他说",
    "3号",
    "发誓",
    "拿全家担保",
    "傻逼",
    "白痴",
    "如果",
    "的话",
    "别",
    "我",
    "妈的",
    "我妈的",
    "马上一场",
    "破防",
    "所以我信他",
    "[b]",
    "😀",
    "說",
    "骂我",
    "\n",
    " ",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=14).map("".join))
def test_reading_only_removes_what_the_matcher_found(text: str) -> None:
    # quotes lie inside the post; the layers that only read hits away never add a category
    for q in read(text).quoted:
        assert 0 <= q.source <= q.start < q.end <= len(text)
    removing = Layer.ALL & ~(Layer.CITATIONS | Layer.KINSHIP)
    for ruleset in RULESETS:
        found = _screen(text, ruleset, removing)
        assert {f.category for f in found} <= {
            f.category for f in _screen(text, ruleset, Layer.NONE)
        }
        for f in _screen(text, ruleset):
            assert text[f.start : f.end] == f.match
