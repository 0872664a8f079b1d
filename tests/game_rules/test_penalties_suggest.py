"""suggest_card and the penalty data: first offence, repeat, deliberate, fixed penalties."""

from __future__ import annotations

import pytest

from game_rules.errors import ParameterError, UnknownRulesetError
from game_rules.penalties import (
    KNOWN_CATEGORIES,
    Card,
    CardColour,
    CardLedger,
    PenaltyError,
    load_penalty_rules,
    normalise_article_code,
    penalty_rules_from_mapping,
    suggest_card,
)

GREEN, BLUE, YELLOW, RED = CardColour.GREEN, CardColour.BLUE, CardColour.YELLOW, CardColour.RED
RULESETS = ("m08", "m72", "wa004")


def test_first_offence_is_blue_everywhere() -> None:
    for rid in RULESETS:
        s = suggest_card("oath", rules=rid)
        assert s.colour is BLUE and not s.fixed
        assert "此前没有同类违规" in s.reasons
        assert any("首次违规" in r for r in s.reasons)


def test_same_kind_after_a_blue_is_yellow() -> None:
    s = suggest_card("insult", rules="wa004", history={"insult": [BLUE]})
    assert s.colour is YELLOW
    assert any("蓝牌1张" in r for r in s.reasons)
    assert any("明知故犯" in r for r in s.reasons)


def test_other_kind_after_a_blue_is_still_blue() -> None:
    assert suggest_card("vest", rules="m72", history={"insult": [BLUE]}).colour is BLUE


def test_same_kind_after_a_yellow_is_red_where_no_ceiling() -> None:
    s = suggest_card("vest", rules="m72", history={"vest": ["blue", "yellow"]})
    assert s.colour is RED and any("屡教不改" in r for r in s.reasons)


def test_deliberate_disruption_is_red() -> None:
    s = suggest_card("zombie", rules="wa004", deliberate=True)
    assert s.colour is RED and any("恶意破坏游戏进行" in r for r in s.reasons)


def test_green_history_is_not_an_offence() -> None:
    assert suggest_card("oath", rules="m08", history={"oath": [GREEN, GREEN]}).colour is BLUE


def test_severity_raises_the_floor() -> None:
    s = suggest_card("evidence", rules="m08", severity="黄牌")
    assert s.colour is YELLOW and any("至少应判黄牌" in r for r in s.reasons)
    assert suggest_card("evidence", rules="m08", severity=BLUE).colour is BLUE


def test_m08_articles_1_to_4_stop_at_yellow() -> None:
    # 可私下提醒、也可直接判作蓝牌或黄牌
    for cat in ("insult", "oath", "vest"):
        s = suggest_card(cat, rules="m08", deliberate=True)
        assert s.colour is YELLOW, cat
        assert s.allowed == (GREEN, BLUE, YELLOW)
        assert any("本条最高判至黄牌" in r for r in s.reasons)


def test_m08_article_6_allows_up_to_red() -> None:
    s = suggest_card("zombie", rules="m08", history={"zombie": [YELLOW]})
    assert s.colour is RED and s.allowed == (GREEN, BLUE, YELLOW, RED)
    assert any("可私下提醒，也可直接判作蓝牌、黄牌或红牌" in r for r in s.reasons)


def test_m08_multi_account_is_red_directly() -> None:
    s = suggest_card("multi_account", rules="m08")
    assert s.colour is RED and s.fixed and s.allowed == (RED,)
    assert s.article is not None and s.article.code == "9(1)"
    assert "此类行为直接判作红牌。" in s.reasons


def test_m08_cheating_is_red_directly() -> None:
    s = suggest_card("cheating", rules="m08")
    assert s.colour is RED and s.fixed and s.article is not None and s.article.code == "10(1)"


def test_m08_fixed_red_ignores_history_and_severity() -> None:
    assert suggest_card("cheating", rules="m08", severity=BLUE).colour is RED


def test_cheating_is_not_fixed_in_m72_and_wa004() -> None:
    for rid in ("m72", "wa004"):
        assert suggest_card("cheating", rules=rid).colour is BLUE


def test_lurking_and_no_vote_are_fixed_yellow() -> None:
    for rid in RULESETS:
        for cat in ("lurking", "no_vote"):
            s = suggest_card(cat, rules=rid, history={cat: [YELLOW, YELLOW]})
            assert s.colour is YELLOW and s.fixed, (rid, cat)


def test_missed_action_fixed_yellow_where_written() -> None:
    assert suggest_card("missed_action", rules="m08").colour is YELLOW
    assert suggest_card("missed_action", rules="wa004").colour is YELLOW
    assert suggest_card("missed_action", rules="m72").colour is GREEN  # M72 has no such article


def test_category_without_article_is_green() -> None:
    s = suggest_card("real_life", rules="m72")
    assert s.colour is GREEN and s.article is None and s.allowed == (GREEN,)
    assert any("没有对应" in r for r in s.reasons)
    assert suggest_card("real_life", rules="m08").colour is BLUE  # M08 6(6)
    assert suggest_card("font", rules="m08").colour is GREEN
    assert suggest_card("water", rules="wa004").colour is GREEN


def test_explicit_article_code_overrides_category_default() -> None:
    s = suggest_card("insult", rules="wa004", article="2（1）")
    assert s.article is not None and s.article.code == "2(1)"
    assert s.reasons[0] == "判罚依据第2条（侮辱性评论）（1）：禁止以任何方式嘲讽或贬低玩家的智商"


def test_unknown_article_and_category_are_errors() -> None:
    with pytest.raises(PenaltyError) as info:
        suggest_card("insult", rules="m08", article="99")
    assert info.value.rule == "unknown_article"
    with pytest.raises(PenaltyError):
        suggest_card("insult", rules="m08", article="1(9)")
    with pytest.raises(PenaltyError) as info:
        suggest_card("spam", rules="m08")
    assert info.value.rule == "unknown_category"


def test_ledger_history_and_escalation_preview() -> None:
    ledger = CardLedger("饺子")
    for cat in ("oath", "insult"):
        ledger, _ = ledger.add(Card(BLUE, "x", category=cat))
    s = suggest_card("vest", rules="wa004", history=ledger)
    assert s.colour is BLUE
    assert s.escalations == ("三张蓝牌（#1、#2、#3）升级为一张黄牌（#4）",)  # numbered from 1
    assert any("此牌将引起升级" in r and "三张【蓝牌】升级为一张【黄牌】" in r for r in s.reasons)
    assert len(ledger.cards) == 2  # a suggestion changes nothing


def test_every_category_has_a_suggestion_in_every_ruleset() -> None:
    for rid in RULESETS:
        for cat in KNOWN_CATEGORIES:
            s = suggest_card(cat, rules=rid)
            assert s.reasons and s.colour in s.allowed


# --- ruleset data -------------------------------------------------------------------------------


def test_ruleset_flags() -> None:
    for rid in RULESETS:
        rules = load_penalty_rules(rid)
        assert rules.red_may_declare_faction_lost and rules.red_faction_quote
        assert rules.eliminated_can_be_carded and rules.eliminated_quote
        rules.check_cardable(RED, eliminated=True)
        rules.check_cardable(BLUE, eliminated=True)
    assert load_penalty_rules("m72").eliminated_quote == "已出局角色仍可被判罚。"


def test_not_cardable_when_data_says_so() -> None:
    data = dict(load_penalty_rules("m08").raw)
    data["eliminated_can_be_carded"] = False
    rules = penalty_rules_from_mapping(data)
    with pytest.raises(PenaltyError):
        rules.check_cardable(BLUE, eliminated=True)
    rules.check_cardable(BLUE, eliminated=False)


def test_variant_falls_back_to_base_ruleset() -> None:
    assert load_penalty_rules("m08_12").ruleset == "m08"
    with pytest.raises(UnknownRulesetError):
        load_penalty_rules("zz")


def test_bad_penalty_data() -> None:
    data = dict(load_penalty_rules("m08").raw)
    with pytest.raises(ParameterError):
        penalty_rules_from_mapping({**data, "categories": {"spam": "1"}})
    with pytest.raises(ParameterError):
        penalty_rules_from_mapping({**data, "categories": {"insult": "42"}})
    with pytest.raises(ParameterError):
        penalty_rules_from_mapping({k: v for k, v in data.items() if k != "articles"})


def test_article_codes() -> None:
    assert normalise_article_code("5（1）") == "5(1)"
    assert normalise_article_code("第9条") == "9"
    with pytest.raises(PenaltyError):
        normalise_article_code("")


def test_colour_wording_is_the_seeds() -> None:
    m08 = load_penalty_rules("m08")
    assert "因为对规则不熟悉而导致的首次违规行为" in m08.colours[BLUE]
    assert "对规则或判罚尺度不熟悉导致的首次违规行为" in load_penalty_rules("m72").colours[BLUE]
