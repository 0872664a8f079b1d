"""CardColour and CardLedger: the seeds' escalation arithmetic, substitutes, conservation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game_rules.errors import GameRuleError, SubstitutionError
from game_rules.penalties import (
    Card,
    CardColour,
    CardLedger,
    CardSource,
    Escalation,
    PenaltyError,
    load_penalty_rules,
)

BLUE, YELLOW, RED, GREEN = CardColour.BLUE, CardColour.YELLOW, CardColour.RED, CardColour.GREEN


def card(colour: CardColour, reason: str = "x", **kw: object) -> Card:
    return Card(colour, reason, **kw)  # type: ignore[arg-type]


def add_all(ledger: CardLedger, colours: list[CardColour]) -> tuple[CardLedger, list[Escalation]]:
    ups: list[Escalation] = []
    for c in colours:
        ledger, got = ledger.add(card(c))
        ups.extend(got)
    return ledger, ups


def test_colour_names_in_chinese() -> None:
    assert [c.chinese for c in CardColour] == ["绿牌", "蓝牌", "黄牌", "红牌"]
    assert [c.meaning for c in CardColour] == ["没有违规", "提醒", "警告", "罚下"]
    assert [c.rank for c in CardColour] == [0, 1, 2, 3]


def test_colour_parse() -> None:
    assert CardColour.parse("蓝牌") is BLUE and CardColour.parse("RED") is RED
    assert CardColour.parse(YELLOW) is YELLOW
    with pytest.raises(PenaltyError):
        CardColour.parse("紫牌")


def test_two_blues_do_not_escalate() -> None:
    ledger, ups = add_all(CardLedger("饺子"), [BLUE, BLUE])
    assert ups == [] and ledger.count(BLUE) == 2


def test_three_blues_make_one_yellow() -> None:
    ledger, ups = add_all(CardLedger("饺子"), [BLUE, BLUE, BLUE])
    assert len(ups) == 1 and ups[0].colour is YELLOW
    assert [c.id for c in ups[0].merged] == [0, 1, 2]
    assert ups[0].card.source is CardSource.ESCALATION and ups[0].card.merged_from == (0, 1, 2)
    assert ledger.count(BLUE) == 0 and ledger.count(YELLOW) == 1
    assert len(ledger.cards) == 4  # the merged blues stay in the audit trail


def test_three_yellows_make_one_red() -> None:
    ledger, ups = add_all(CardLedger("饺子"), [YELLOW, YELLOW, YELLOW])
    assert [e.colour for e in ups] == [RED]
    assert ledger.is_red and ledger.count(YELLOW) == 0


def test_escalated_yellow_counts_towards_red() -> None:
    ledger, ups = add_all(CardLedger("饺子"), [YELLOW, YELLOW, BLUE, BLUE, BLUE])
    assert [e.colour for e in ups] == [YELLOW, RED]
    assert ledger.count(RED) == 1 and ledger.blue_equivalents() == 9


def test_nine_blues_chain_to_red() -> None:
    ledger, ups = add_all(CardLedger("饺子"), [BLUE] * 9)
    assert [e.colour for e in ups] == [YELLOW, YELLOW, YELLOW, RED]
    red = ups[-1]
    assert [c.id for c in red.merged] == [3, 7, 11]  # the three escalation yellows
    assert ledger.active() == (red.card,) and ledger.is_red


def test_ninth_blue_returns_both_escalations_at_once() -> None:
    ledger, _ = add_all(CardLedger("饺子"), [BLUE] * 8)
    assert not ledger.is_red
    _, ups = ledger.add(card(BLUE))
    assert [e.colour for e in ups] == [YELLOW, RED]
    assert "三张黄牌" in ups[1].describe()


def test_oldest_cards_merge_first() -> None:
    ledger, ups = add_all(CardLedger("饺子"), [BLUE] * 4)
    assert [c.id for c in ups[0].merged] == [0, 1, 2]
    assert ledger.count(BLUE) == 1 and ledger.active()[0].id == 3


def test_green_is_recorded_and_never_escalates() -> None:
    ledger, ups = add_all(CardLedger("饺子"), [GREEN] * 5)
    assert ups == [] and len(ledger.cards) == 5 and ledger.blue_equivalents() == 0
    assert ledger.describe() == "无牌"


def test_red_after_red_is_recorded() -> None:
    # 红牌也可以针对已出局的……玩家: a second red is kept, not an error
    ledger, _ = add_all(CardLedger("饺子"), [RED, RED])
    assert ledger.count(RED) == 2


def test_escalation_cards_cannot_be_added_by_hand() -> None:
    with pytest.raises(PenaltyError):
        CardLedger("饺子").add(card(YELLOW, source=CardSource.ESCALATION))


def test_adding_does_not_change_the_old_ledger() -> None:
    before = CardLedger("饺子")
    after, _ = before.add(card(BLUE))
    assert before.cards == () and len(after.cards) == 1


def test_history_by_category_ignores_escalations() -> None:
    ledger = CardLedger("饺子")
    for cat in ["oath", "oath", "insult"]:
        ledger, _ = ledger.add(card(BLUE, category=cat))
    assert dict(ledger.history_by_category()) == {"oath": (BLUE, BLUE), "insult": (BLUE,)}


def test_describe_in_chinese() -> None:
    ledger, _ = add_all(CardLedger("饺子"), [BLUE] * 4 + [YELLOW])
    assert ledger.describe() == "蓝牌1张、黄牌2张（其中1张由三张蓝牌升级）"


def test_ruleset_ledgers_use_three_and_three() -> None:
    for rid in ("m08", "m72", "wa004"):
        rules = load_penalty_rules(rid)
        assert (rules.blues_per_yellow, rules.yellows_per_red) == (3, 3)
        ledger = rules.new_ledger("饺子", "甲")
        assert ledger.players == ("甲",)


def test_replay_rebuilds_the_same_ledger() -> None:
    ledger, _ = add_all(CardLedger("饺子"), [BLUE, YELLOW, BLUE, BLUE, YELLOW])
    again = CardLedger.replay("饺子", ledger.cards)  # escalation cards are skipped and recomputed
    assert again.cards == ledger.cards


# --- 替补 -----------------------------------------------------------------------------------


def test_substitute_inherits_every_card() -> None:
    ledger, _ = add_all(load_penalty_rules("wa004").new_ledger("饺子", "甲"), [BLUE, BLUE])
    sub = ledger.for_substitute("乙")
    assert sub.cards == ledger.cards and sub.players == ("甲", "乙")
    sub, ups = sub.add(card(BLUE, player="乙"))  # the substitute's first blue is the third
    assert [e.colour for e in ups] == [YELLOW]


def test_substitution_only_once() -> None:
    ledger = CardLedger("饺子", players=("甲",)).for_substitute("乙")
    with pytest.raises(SubstitutionError) as info:
        ledger.for_substitute("丙")
    assert isinstance(info.value, GameRuleError) and info.value.rule == "substitution_once"
    assert ledger.for_substitute("丙", limit=None).players == ("甲", "乙", "丙")


def test_substitute_rules_per_ruleset() -> None:
    for rid in ("m08", "m72", "wa004"):
        rules = load_penalty_rules(rid)
        assert rules.substitute_inherits and rules.substitutions_per_character == 1
    assert "继承前任玩家受到的一切判罚" in load_penalty_rules("wa004").substitute_quote


# --- property: blue-equivalents are conserved ------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([GREEN, BLUE, YELLOW, RED]), max_size=40))
def test_blue_equivalents_never_lost(colours: list[CardColour]) -> None:
    weight = {GREEN: 0, BLUE: 1, YELLOW: 3, RED: 9}
    ledger = CardLedger("饺子")
    given_total = 0
    for c in colours:
        ledger, ups = ledger.add(card(c))
        given_total += weight[c]
        assert ledger.blue_equivalents() == given_total
        for e in ups:
            assert len(e.merged) == 3 and {m.colour for m in e.merged} == {
                YELLOW if e.colour is RED else BLUE
            }
        # never three of a mergeable colour left standing
        assert ledger.count(BLUE) < 3 and ledger.count(YELLOW) < 3
    merged = [i for c in ledger.cards for i in c.merged_from]
    assert len(merged) == len(set(merged))  # no card merged twice
