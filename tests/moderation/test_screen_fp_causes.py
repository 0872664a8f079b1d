"""Clean posts flagged by a rule on independently written posts, by cause; each cause fixed in
general (a reading cue, a sense, a pattern's exception) and tested here with posts of our own.

Written for this project (none is a blind-set post). A "no finding" case is checked to need the
layer that clears it: with that layer off the same post has a finding. Cases cleared by a
pattern's own exception (no layer to switch) are paired with the violation the pattern must still
find, so that a pattern loosened too far fails as surely as one left too tight.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from types import MappingProxyType

import pytest

from moderation.layers import Layer
from moderation.screen import Finding, Screener
from tests.moderation.stand_ins import WordModel

RULESETS = ("m08", "m72")
NO_RULES = Layer.ALL & ~Layer.QUOTED_RULES
NO_PLAYERS = Layer.ALL & ~Layer.QUOTED_PLAYERS
NO_SENSES = Layer.ALL & ~Layer.GAME_SENSES


def _screen(text: str, ruleset: str, layers: Layer = Layer.ALL) -> list[Finding]:
    return Screener(ruleset, classifier=None, layers=layers).screen(text)


def _categories(text: str, layers: Layer = Layer.ALL) -> set[str]:
    return {f.category for r in RULESETS for f in _screen(text, r, layers)}


# -- questions about the rules: relayed, asked of the director, labelled -----------------------

RULE_QUESTIONS = [
    # a relayed question whether something is allowed
    ("楼上问能不能在帖里说替补的事，不能，规则帖写着呢。", "vest"),
    ("刚有人问：“可不可以发聊天记录当证据？”我也想知道。", "evidence"),
    # the poster asking the director about a rule, up to the question mark
    ("请问导演，替补上场以后前任吃过的牌还算不算？规则里没找到。", "vest"),
    ("想问一下法官，场外助理按规则是不是只有新人能申请？", "vest"),
    # a question the poster labels as one about the rules: the sentence before the label
    ("如果一个人的替补也来不了会怎样。纯规则疑问，别多想。", "vest"),
]


@pytest.mark.parametrize(("text", "category"), RULE_QUESTIONS)
def test_a_question_about_the_rules_is_no_violation(text: str, category: str) -> None:
    assert _categories(text) == set(), [_screen(text, r) for r in RULESETS]
    assert category in _categories(text, NO_RULES)


@pytest.mark.parametrize(
    "text",
    [
        "有人私下问我能不能当他的替补，我答应了。",  # asked in private: vest talk all the same
        "导演能不能给我找个替补？我明天去外地。",  # a request, not a question about the rules
        "问一下导演，我明天出差，替补什么时候能上？",  # no rule asked about
    ],
)
def test_asking_for_a_substitute_is_still_vest_talk(text: str) -> None:
    assert "vest" in _categories(text), [_screen(text, r) for r in RULESETS]


# -- the rules cited: numbering, 写得很清楚, 会判的, 也违规, 有解释 --------------------------

RULES_CITED = [
    ("规则帖7(2)说不许反对导演的判罚，有疑问私下沟通。", "director"),
    ("规则帖3楼写得很清楚，禁止讨论马甲，大家收着点。", "vest"),
    ("别在楼里贴私聊截图，规则5(1)会判的。", "evidence"),
    ("场上聊替补的事也违规，大家换个话题。", "vest"),
    ("场外助理怎么申请，规则里有解释，我就不重复了。", "vest"),
    ("规则里替补只限每人一次，所以别指望换两次。", "vest"),
]


@pytest.mark.parametrize(("text", "category"), RULES_CITED)
def test_the_rules_cited_are_no_violation(text: str, category: str) -> None:
    assert _categories(text) == set(), [_screen(text, r) for r in RULESETS]
    assert category in _categories(text, NO_RULES)


# -- words judged, words refused, the poster's abstention ---------------------------------------

JUDGED = [
    ("你刚才那句像发誓了，换个说法吧。", "oath", NO_RULES),
    ("张口就卧槽这种口头禅咱们都收敛点。", "insult", NO_RULES),
    ("我收回刚才那个“滚”字，是我冲动了。", "insult", NO_PLAYERS),
    ("不谈马甲，只谈票型。", "vest", NO_RULES),
]


@pytest.mark.parametrize(("text", "category", "without"), JUDGED)
def test_words_judged_or_refused_are_no_violation(text: str, category: str, without: Layer) -> None:
    assert _categories(text) == set(), [_screen(text, r) for r in RULESETS]
    assert category in _categories(text, without)


def test_abstaining_in_one_clause_keeps_the_next() -> None:
    # the abstention reaches to its clause's end: the vest talk after it is the poster's
    assert "vest" in _categories("不聊马甲，但7号就是上一场那个老玩家的小号。")


# -- the director's story ------------------------------------------------------------------------


def test_what_characters_do_in_the_story_is_not_the_posters() -> None:
    text = "晨报里两个主角对着灯塔发誓永不分开，写得真好。"
    assert _categories(text) == set(), [_screen(text, r) for r in RULESETS]
    assert "oath" in _categories(text, NO_PLAYERS)


# -- game senses ---------------------------------------------------------------------------------

SENSES = [
    ("导演的晨报里她披着一件毛线马甲出门，配图好温暖。", "vest"),  # the garment
    ("7号的发言风格像在开会，一二三四列得很整齐。", "real_life"),  # a simile
    ("他那帖是在写论文吗，两千字，不过有干货。", "real_life"),
    ("白痴被投出去可以翻牌免死，所以海豚今天说她是白痴，先别投她。", "insult"),  # a claimed role
    ("我说个会被骂的想法：今天弃票。", "insult"),  # 被骂的 is scolded, not 妈的
]


@pytest.mark.parametrize(("text", "category"), SENSES)
def test_a_game_or_ordinary_sense_is_no_violation(text: str, category: str) -> None:
    assert _categories(text) == set(), [_screen(text, r) for r in RULESETS]
    assert category in _categories(text, NO_SENSES)


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("他换了个新马甲又来了，穿了马甲我也认得。", "vest"),  # 穿马甲 is the alt-account slang
        ("这板子有白痴，可你就是个白痴，投你都嫌浪费。", "insult"),
        ("今天开会到九点，回来才看帖。", "real_life"),
    ],
)
def test_the_violating_sense_stays(text: str, category: str) -> None:
    assert category in _categories(text), [_screen(text, r) for r in RULESETS]


def test_a_rustic_nickname_is_no_insult() -> None:
    # allow.tsv: 狗剩 is a name; 狗 alone said of someone stays an insult
    assert "insult" not in _categories("狗剩今天的票投给了翠花。")
    assert "insult" in _categories("你就是条狗，谁给骨头跟谁走。")


# -- pattern exceptions --------------------------------------------------------------------------


def test_a_forum_quote_header_is_no_chat_timestamp() -> None:
    quoted = "[quote]原帖由 阿青 于 2021-9-3 22:15 发表\n我今天跟票[/quote]\n跟票可以，理由呢？"
    assert "evidence" not in _categories(quoted)
    # the same stamp in a chat log is posting evidence
    assert "evidence" in _categories("2021-9-3 22:15 阿青：我是狼，今晚刀谁")


def test_a_rulesets_code_in_rules_talk_is_no_past_game() -> None:
    assert "vest" not in _categories("M72里讨论输赢也算违规，大家注意。")
    assert "vest" not in _categories("猎人在M08里的机制是出局开枪。")
    assert "vest" in _categories("M08里你也是这么悍跳的，我记得。")


def test_waiting_for_the_directors_reply_relays_nothing() -> None:
    assert "director" not in _categories("有个疑问，已私聊导演，等导演回复再说。")
    assert "director" in _categories("我私聊了导演，导演回我说昨晚确实有人用了技能。")


def test_advice_to_take_complaints_private_opposes_nothing() -> None:
    assert "director" not in _categories("对判罚有意见的请私聊导演，别在楼里吵。")
    assert "director" in _categories("我对这次判罚有意见，导演给个说法。")


# -- counterfactual role talk: the classifier's oath opinion explained away ----------------------


class _Frames:
    """A stand-in model that reads every wager frame (我要是狼…) as an oath, as the trained one
    tends to: the screener must not report it when the frame argues rather than wagers."""

    thresholds: Mapping[str, float] = MappingProxyType({"oath": 0.5})

    def predict(self, texts: Sequence[str]) -> list[dict[str, float]]:
        return [{"oath": 0.9 if "狼" in t else 0.0} for t in texts]


COUNTERFACTUALS = [
    "我要是狼，前天就不会把票投给自己的狼队友了。",
    "我是狼的话何必第一个站出来报查杀？",
    "假如我是狼，昨晚怎么会刀一个平民？",
]


@pytest.mark.parametrize("text", COUNTERFACTUALS)
def test_a_counterfactual_of_ones_role_swears_nothing(text: str) -> None:
    screener = Screener("m08", classifier=_Frames())
    assert screener.screen(text) == []
    off = Screener("m08", classifier=_Frames(), layers=NO_PLAYERS)
    assert [f.category for f in off.screen(text)] == ["oath"]


@pytest.mark.parametrize(
    "text",
    [
        # a penalty wagered besides the argument (no rule finds these: the model's opinion stands)
        "我要是狼昨天就不会投他，真是狼的话号送给你们。",
        "我是狼的话何必跳出来，是狼我这辈子不碰版杀。",
        "我要是狼昨天就不会投他，是狼我磕头。",
    ],
)
def test_a_wager_stays_an_oath(text: str) -> None:
    found = Screener("m08", classifier=_Frames()).screen(text)
    assert "oath" in {f.category for f in found}, found


# -- a classifier opinion driven only by another's quoted words ---------------------------------


_Curse = partial(WordModel, "oath", "倒霉一辈子")  # another's curse, read by the model


def test_an_opinion_driven_by_anothers_quoted_words_is_not_the_posters() -> None:
    text = "他昨天说“谁投我谁倒霉一辈子”，这话太狠了，我不评价。"
    assert Screener("m08", classifier=_Curse()).screen(text) == []
    off = Screener("m08", classifier=_Curse(), layers=NO_PLAYERS)
    assert [f.category for f in off.screen(text)] == ["oath"]
    # the poster's own words driving it: the finding stands
    own = "谁投我谁倒霉一辈子，我是预言家。"
    assert [f.category for f in Screener("m08", classifier=_Curse()).screen(own)] == ["oath"]
