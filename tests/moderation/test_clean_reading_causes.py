"""Six causes of clean posts flagged, each fixed by its mechanism and tested with our posts.

1. A rule article quoted after a colon (规则写了：…) runs over the clauses of its sentence, not
   only the first, until the poster speaks again (…，但我…).
2. A ruleset's code before how a role's skill works (W80里猎人被毒也是…) names the current rules,
   not a past game; 那届/那局 and a past night (…被刀了) still are one.
3. 发 and a count of posts (发十帖) is posting, not 发誓 with 誓 swapped for 十.
4. What the board does not have (这板子本来就不支持投降) states a rule; 我投降 stays surrender.
5. Under M72 another's oath set aside (这种话我一律无视) is no basis of the vote after it, so no
   2(8) citation; an oath cited to trust someone still is.
6. A denial of an outburst (不是摆烂, 没破防) is no outburst; 我摆烂了 stays one.

Each clean reading fails with its layer switched off (1, 3, 4) or its data line removed (2, 5 and
6: a pattern's exception, a citation's exception and allow-list words belong to no layer).
Written for this project; no post comes from a blind set.
"""

from __future__ import annotations

import pytest

from moderation.layers import Layer
from moderation.screen import Finding, Screener


def _screen(text: str, ruleset: str = "m08", layers: Layer = Layer.ALL) -> list[Finding]:
    return Screener(ruleset, classifier=None, layers=layers).screen(text)


def _categories(text: str, ruleset: str = "m08", layers: Layer = Layer.ALL) -> set[str]:
    return {f.category for f in _screen(text, ruleset, layers)}


# -- 1. a rule article after a colon ------------------------------------------------------------

ARTICLES = [
    "规则写了：掉线满一天的，玩家不可私下寻找替补。发在这儿提醒新来的",
    "规则里说：替补须经导演同意，玩家不能私下找替补，违者按马甲处理。贴出来给大家看看",
    "规则帖写了：玩家不可私下联系替补，也不可帮人顶号",
]


@pytest.mark.parametrize("text", ARTICLES)
def test_a_rule_article_after_a_colon_is_quoted_to_the_end_of_its_sentence(text: str) -> None:
    assert "vest" not in _categories(text), _screen(text)


@pytest.mark.parametrize("text", ARTICLES)
def test_a_rule_article_is_vest_talk_without_the_rules_layer(text: str) -> None:
    assert "vest" in _categories(text, layers=Layer.ALL & ~Layer.QUOTED_RULES)


@pytest.mark.parametrize(
    "text", ["规则写了：不许发誓，但我发誓他是狼", "规则里说：不能发誓，我偏要发誓他是狼"]
)
def test_the_posters_own_clause_after_an_article_stays_theirs(text: str) -> None:
    assert "oath" in _categories(text)


def test_a_vest_request_after_the_article_sentence_stays() -> None:
    text = "规则写了：玩家不可私下寻找替补。谁来帮我顶号两天"
    assert "vest" in _categories(text)


# -- 2. a ruleset's code before how a skill works -------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["但M72里狂人被占卜也还是好人阵营", "M08里猎人被毒也是不能开枪的吧", "M08里女巫能不能自救"],
)
def test_a_ruleset_code_before_a_skills_effect_is_no_past_game(text: str) -> None:
    for ruleset in ("m08", "m72"):
        assert "vest" not in _categories(text, ruleset), _screen(text, ruleset)


@pytest.mark.parametrize(
    "text", ["M72里他被刀了，我记得很清楚", "M72里我是狂人，被查杀了还赢了", "M72那局你也是狼"]
)
def test_a_past_game_named_by_its_code_stays(text: str) -> None:
    assert "vest" in _categories(text, "m72")


# -- 3. 发 and a count of posts -------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["我保证今晚发十帖，绝不潜水", "明天我至少发十帖，不当潜水党", "我发十帖总结一下"]
)
def test_a_count_of_posts_is_no_sworn_oath(text: str) -> None:
    assert "oath" not in _categories(text), _screen(text)
    assert "oath" in _categories(text, layers=Layer.ALL & ~Layer.GAME_SENSES)


@pytest.mark.parametrize(
    "text", ["我保证我是好人，不然我全家出门被车撞", "我发十我是好人", "我发十，骗人就天打雷劈"]
)
def test_an_oath_with_a_stake_or_the_homophone_alone_stays(text: str) -> None:
    assert "oath" in _categories(text)


# -- 4. what the board does not have --------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["认输？这个板子本来就不支持投降", "板子不设投降，打完吧", "这板子根本不支持投降"]
)
def test_what_the_board_does_not_have_is_a_rule(text: str) -> None:
    for ruleset in ("m08", "m72"):
        assert "oath" not in _categories(text, ruleset), _screen(text, ruleset)
        # (不支持/不设 投降 is also the board's sense of the word in senses.yaml: both off)
        off = Layer.ALL & ~Layer.QUOTED_RULES & ~Layer.GAME_SENSES
        assert "oath" in _categories(text, ruleset, off)


@pytest.mark.parametrize("text", ["我投降，别刀我了", "我认输了，你们随便投", "投降吧你们"])
def test_a_surrender_stays(text: str) -> None:
    assert "oath" in _categories(text)


# -- 5. another's oath set aside ------------------------------------------------------------------

SET_ASIDE = [
    "4号说“我要是狼就天打雷劈”，这种话我一律当没看见，该投还是投他",
    "8号发毒誓说自己是民，这种誓我直接无视，照样投他",
    "5号昨天拿人格担保说自己是预言家，那句话我不当真，今天还是出他",
]


@pytest.mark.parametrize("text", SET_ASIDE)
def test_an_oath_set_aside_is_no_citation(text: str) -> None:
    assert "meta" not in _categories(text, "m72"), _screen(text, "m72")


@pytest.mark.parametrize(
    "text", ["8号发毒誓说自己是民，所以我信他", "4号说“我要是狼就天打雷劈”，这么狠都敢说，我信他"]
)
def test_an_oath_cited_to_trust_stays_2_8(text: str) -> None:
    found = _screen(text, "m72")
    assert [f.article.code for f in found if f.category == "meta"] == ["2(8)"], found


# -- 6. a denied outburst -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["这一票我弃了，不是摆烂，是真没看清", "我没破防，就事论事而已", "这轮不投，不是在摆烂啊"],
)
def test_a_denied_outburst_is_none(text: str) -> None:
    assert "emotional" not in _categories(text), _screen(text)


@pytest.mark.parametrize("text", ["我不玩了摆烂了", "摆烂了，随便投吧", "我真的破防了"])
def test_an_outburst_stays(text: str) -> None:
    assert "emotional" in _categories(text)
