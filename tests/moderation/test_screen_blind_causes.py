"""The causes of blind-set errors, each fixed in general and tested here with posts of our own.

Written for this project (none is a blind-set post). A "no finding" case is checked to need the
layer or data row that clears it: with that layer off the same post has a finding. A "finding"
case names the rule that finds it.
"""

from __future__ import annotations

import pytest

from moderation.layers import Layer
from moderation.screen import Finding, Screener

RULESETS = ("m08", "m72")


def _screen(text: str, ruleset: str, layers: Layer = Layer.ALL) -> list[Finding]:
    return Screener(ruleset, classifier=None, layers=layers).screen(text)


def _categories(text: str, layers: Layer = Layer.ALL) -> set[str]:
    return {f.category for r in RULESETS for f in _screen(text, r, layers)}


# -- who is speaking -----------------------------------------------------------------------------

# the rule cited after the clause (…，规则禁了 / ——这是规则帖原文 / 规则第4条), or words named to be
# left unsaid (…这种话大家都别说)
RULES_AFTER = [
    ("拿全家担保没意义的，规则禁了，省省吧。", "oath"),
    ("聊谁是谁的马甲会吃牌，规则里写着的。", "vest"),
    ("替补每局只能申请一次——这是规则帖原文。", "vest"),
    ("场外助理的事别问了，规则第4条。", "vest"),
    ("以命担保这种话大家都别说，判罚依据里有。", "oath"),
    ("你个傻逼这种话我不会说，我只说他的票有问题。", "insult"),
]


@pytest.mark.parametrize(("text", "category"), RULES_AFTER)
def test_a_rule_cited_after_its_clause_is_no_violation(text: str, category: str) -> None:
    assert _categories(text) == set(), [_screen(text, r) for r in RULESETS]
    assert category in _categories(text, Layer.ALL & ~Layer.QUOTED_RULES)


@pytest.mark.parametrize(
    "text",
    ["我发誓他是狼，规则禁了我也照说", "你个傻逼，规则第4条我比你熟", "傻逼这种话我偏要说"],
)
def test_defying_the_rule_is_still_the_posters_violation(text: str) -> None:
    assert _categories(text)


def test_the_poster_before_a_condition_keeps_the_curse() -> None:
    # 我要是狼 + a curse in pinyin: the poster's own wager, not a hypothetical about someone else
    text = "我要是狼 wu lei hong ding"
    found = _categories(text)
    assert "oath" in found, [_screen(text, r) for r in RULESETS]
    assert "oath" not in _categories("要是有人狼 wu lei hong ding，那就出他", Layer.ALL)


# -- M72 2(8): a named player's outburst or past oath as the reason for a vote --------------------

CITATIONS = [
    "团子哭成那样，我下不去手投她",
    "石头骂人骂得那么凶，急了就是狼",
    "青柠用人格担保过，我不敢投她",
    "阿秀情绪都崩了，这是被冤枉的好人",
]


@pytest.mark.parametrize("text", CITATIONS)
def test_a_named_players_outburst_used_as_argument_is_a_citation(text: str) -> None:
    found = _screen(text, "m72")
    assert [f.article.code for f in found if f.category == "meta"] == ["2(8)"], found
    assert not [
        f for f in _screen(text, "m72", Layer.ALL & ~Layer.CITATIONS) if f.term == "cite-quoted"
    ]


@pytest.mark.parametrize("text", ["气哭了，你们为什么不信我", "心态崩了，不玩了"])
def test_the_posters_own_outburst_stays_theirs(text: str) -> None:
    assert "emotional" in _categories(text)


# -- game senses -----------------------------------------------------------------------------------

SENSES = [
    ("白痴跳出来翻牌就能免死吧？我记得这板子里没有白痴", "insult"),  # the role, twice
    ("骑士、白痴、守墓人这几个身份今天都没人跳", "insult"),  # a list of roles
    ("老子要是狼，今晚就被雷劈", "insult"),  # the poster's "I" in an oath (the oath stays)
    ("你那个马甲老子早看穿了", "insult"),  # the poster's "I" (the vest talk stays)
    ("我讲大话就冚家富贵，三号是狼", "insult"),  # the self-curse of an oath (the oath stays)
]


@pytest.mark.parametrize(("text", "category"), SENSES)
def test_game_and_pronoun_senses(text: str, category: str) -> None:
    assert category not in _categories(text), [_screen(text, r) for r in RULESETS]
    assert category in _categories(text, Layer.ALL & ~Layer.GAME_SENSES)


@pytest.mark.parametrize(
    "text", ["你就是个白痴，这都看不出来", "老子今天就投你", "我是你老子", "你个冚家铲"]
)
def test_the_same_words_aimed_at_someone_stay_insults(text: str) -> None:
    assert "insult" in _categories(text)


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("被查杀的人会急，但别急着投", "real_life"),  # 会急 is no 会计
        ("我扒了一下票型，五号最可疑", "real_life"),  # 我扒 is no 我爸
    ],
)
def test_ordinary_phrases_are_no_homophones(text: str, category: str) -> None:
    assert category not in _categories(text), [_screen(text, r) for r in RULESETS]
    assert category in _categories(text, Layer.ALL & ~Layer.GAME_SENSES)


# allowed words (lexicons/allow.tsv): the term inside them is no hit, the term alone still is
@pytest.mark.parametrize(
    ("clean", "violation", "category"),
    [
        ("票在滚雪球，越滚越多了", "滚，别在这刷屏", "insult"),
        ("我那句是分析，根本不是发誓", "我发誓他是狼", "oath"),
        ("作业交了：今天投八号", "今晚要写作业，先潜水", "real_life"),
        ("晨报写得真好，笑出声了", "你这个畜生", "insult"),
    ],
)
def test_ordinary_words_are_no_terms(clean: str, violation: str, category: str) -> None:
    assert category not in _categories(clean), [_screen(clean, r) for r in RULESETS]
    assert category in _categories(violation)


# -- evasions and free wording the lexicon and patterns now cover ----------------------------------

FOUND = [
    ("三号是好人，错了我的人格随你们踩", "oath"),  # the stake given
    ("押上人挌，她是女巫", "oath"),  # 押上人格 with a look-alike (generated shape)
    ("人木各作保，五号是狼", "oath"),  # 人格作保 split (generated)
    ("ｆｓ，我昨晚没刀人", "oath"),  # full-width initials of 发誓
    ("ＸＨ一看就是新注册的", "vest"),  # 小号
    ("我的 alt 明天上线", "vest"),
    ("谁能帮我顶三天号？", "vest"),
    ("他在另一局里当过狼", "vest"),
    ("侬只戆大", "insult"),
    ("fxxk，又平票", "insult"),
    ("all of you, go to hell", "oath"),
    ("信不信我顺着网线去找你", "oath"),
    ("谁投我，我祝他们把把被刀", "oath"),
    ("为什么每次都是我？？？", "emotional"),
    ("这张黄牌我不服，根本没道理", "director"),
]


@pytest.mark.parametrize(("text", "category"), FOUND)
def test_evasions_and_free_wording_are_found(text: str, category: str) -> None:
    assert category in _categories(text), [_screen(text, r) for r in RULESETS]


@pytest.mark.parametrize(
    "text",
    [
        "要不是二号乱投，我们早就赢了",
        "最佳发言奖应该颁给石头",
        "揭秘后我们开个语音复盘",
        "输了别怪女巫",
    ],
)
def test_m72_duty_and_after_game_talk(text: str) -> None:
    assert "meta" in {f.category for f in _screen(text, "m72")}
    assert "meta" not in {f.category for f in _screen(text, "m08")}  # M08 has no such clause
