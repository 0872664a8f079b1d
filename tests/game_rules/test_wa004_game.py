"""wa004 start, day, red cards, last words, 公示 and win/lose (seed 000)."""

from __future__ import annotations

from typing import Any

import pytest

from game_rules import (
    CastVote,
    CloseDay,
    DeadlinePassed,
    DeclareFactionLost,
    LeaveLastWords,
    ScheduleDay,
    UseSkill,
)
from game_rules.errors import (
    DeadActorError,
    InvalidTargetError,
    UnknownCharacterError,
    WrongPhaseError,
)
from game_rules.events import FactionLost, LastWordsGranted
from game_rules.game import Game, new_game
from game_rules.randomness import verify_commitment
from game_rules.votes import VoteRejectedError
from game_rules.wa004.couples import couples, lover_of, true_love_of
from game_rules.wa004.errors import SelfTargetError, TrueLoveChosenError
from game_rules.wa004.setups import (
    NAMES,
    arranged_game,
    choose_true_loves,
    order,
    play_day,
    play_night,
)
from game_rules.wa004.views import love_view

NOBLE = "P13"
BG6 = [("betrayer", "guardian")] * 6


def start(
    kinds: Any = BG6, loves: dict[str, str] | None = None, params: Any = None, seed: str = "g"
) -> tuple[Game, list[tuple[str, str]]]:
    """Day 1; every 变节者's true love is the 单身贵族 unless ``loves`` says otherwise."""
    g, pairs = arranged_game(kinds, seed=seed, params=params)
    base = {b: NOBLE for b in g.state.with_role("betrayer")}
    choose_true_loves(g, {**base, **(loves or {})})
    return g, pairs


def texts(g: Game) -> list[str]:
    return [a.text for a in g.public_view().announcements]


# -- start ----------------------------------------------------------------------------------------


def test_couples_pair_everyone_but_the_noble() -> None:
    g = new_game("wa004", NAMES, seed="deal")
    pairs = couples(g.state)
    paired = [c for p in pairs for c in p]
    nobles = g.state.with_role("noble")
    assert len(pairs) == 6 and sorted(paired + nobles) == sorted(NAMES)
    assert all(lover_of(g.state, n) is None for n in nobles)


def test_couples_come_from_the_seed() -> None:
    a = couples(new_game("wa004", NAMES, seed="same").state)
    b = couples(new_game("wa004", NAMES, seed="same").state)
    others = {tuple(couples(new_game("wa004", NAMES, seed=f"s{i}").state)) for i in range(5)}
    assert a == b and len(others) > 1


def test_commitment_verifies_against_the_revealed_seed() -> None:
    g = new_game("wa004", NAMES, seed="commit")
    assert verify_commitment(g.state.commitment, "commit", g.state.roles)


def test_role_counts_follow_the_seed() -> None:
    g = new_game("wa004", NAMES, seed="count")
    counts = {r: len(g.state.with_role(r)) for r in ("betrayer", "guardian", "noble")}
    assert counts == {"betrayer": 6, "guardian": 6, "noble": 1}


def test_lovers_are_told_only_after_every_true_love_is_chosen() -> None:
    g, pairs = arranged_game(BG6, seed="g")
    betrayers = g.state.with_role("betrayer")
    for b in betrayers[:-1]:
        g.apply(UseSkill(b, "true_love", NOBLE))
    b0, g0 = pairs[0]
    assert love_view(g, g0).lover is None
    assert not any("情侣" in m for m in love_view(g, g0).messages)
    assert g.state.phase == "setup"
    g.apply(UseSkill(betrayers[-1], "true_love", NOBLE))
    assert love_view(g, g0).lover == b0 and f"你的情侣：{b0}" in love_view(g, g0).messages
    assert g.state.phase == "day" and g.state.day == 1


def test_true_love_may_be_any_other_player_even_the_noble() -> None:
    g, pairs = arranged_game(BG6, seed="g")
    b = pairs[0][0]
    g.apply(UseSkill(b, "true_love", NOBLE))  # refusing would reveal the noble
    assert true_love_of(g.state, b) == NOBLE
    assert love_view(g, b).true_love == NOBLE


def test_true_love_refusals() -> None:
    g, pairs = arranged_game(BG6, seed="g")
    b, guard = pairs[0]
    with pytest.raises(SelfTargetError):
        g.apply(UseSkill(b, "true_love", b))
    g.apply(UseSkill(b, "true_love", guard))
    with pytest.raises(TrueLoveChosenError):
        g.apply(UseSkill(b, "true_love", NOBLE))
    with pytest.raises(WrongPhaseError):
        g.apply(CastVote(guard, b))


def test_true_love_deadline_draws_the_missing_at_random() -> None:
    g, pairs = arranged_game(BG6, seed="g")
    first = pairs[0][0]
    g.apply(UseSkill(first, "true_love", NOBLE))
    g.apply(DeadlinePassed())
    loves = {b: true_love_of(g.state, b) for b in g.state.with_role("betrayer")}
    assert loves[first] == NOBLE
    assert all(t is not None and t != b for b, t in loves.items())
    assert g.state.phase == "day"


# -- day vote -------------------------------------------------------------------------------------


def test_highest_vote_goes_out() -> None:
    g, pairs = start()
    b0, g0 = pairs[0]
    votes: dict[str, str | None] = {}
    for v in [v for v in g.state.living() if v != b0][:5]:
        votes[v] = b0
    votes[b0] = g0
    play_day(g, votes)
    assert not g.state.is_alive(b0)
    assert f"{b0}获得5票" in texts(g)[-3]


def test_tie_means_nobody_goes_out() -> None:
    g, pairs = start()
    (b0, _g0), (b1, _g1) = pairs[:2]
    play_day(g, {b0: b1, b1: b0})
    assert g.state.is_alive(b0) and g.state.is_alive(b1)
    assert texts(g)[-1] == "平票，无人出局"


def test_vote_changes_once_only() -> None:
    g, pairs = start()
    (b0, g0), (b1, g1) = pairs[:2]
    g.apply(CastVote(b0, b1))
    g.apply(CastVote(b0, g1, is_change=True))
    with pytest.raises(VoteRejectedError):
        g.apply(CastVote(b0, g0, is_change=True))


def test_the_eliminated_neither_vote_nor_are_voted_for() -> None:
    g, pairs = start()
    (b0, _g0), (b1, _g1) = pairs[:2]
    play_day(g, {v: b0 for v in g.state.living()})
    play_night(g, order(NOBLE, "barbecue", b1))
    snap = g.state.snapshot()
    with pytest.raises(DeadActorError):
        g.apply(CastVote(b0, b1))
    with pytest.raises(InvalidTargetError):
        g.apply(CastVote(pairs[2][0], b0))
    assert g.state.snapshot() == snap


# -- red cards, last words ------------------------------------------------------------------------


def test_red_card_acts_before_the_vote_and_gives_no_last_words() -> None:
    g, pairs = start()
    (b0, g0), (b1, g1) = pairs[:2]
    living = g.state.living()
    for v in living[:6]:
        g.apply(CastVote(v, b0))
    g.apply(CastVote(living[6], b1))
    g.eject(b0, "恶意破坏游戏")
    g.apply(CloseDay())
    order_out = [(e.character, e.cause) for e in g.state.eliminations]
    # votes on the ejected are void: the next highest goes out, after the red card
    assert order_out == [(b0, "red_card"), (g0, "martyr"), (b1, "vote"), (g1, "martyr")]
    granted = [e.character for e in g.log if isinstance(e, LastWordsGranted)]
    assert b0 not in granted and {g0, b1, g1} <= set(granted)
    assert f"{b0}被红牌罚下" in texts(g)


def test_red_card_of_an_eliminated_character_is_recorded_only() -> None:
    g, pairs = start()
    b0, _g0 = pairs[0]
    play_day(g, {v: b0 for v in g.state.living()})
    before = list(g.state.eliminations)
    g.eject(b0, "诈尸")
    assert list(g.state.eliminations) == before
    assert g.state.cards[-1].already_out


def test_red_card_may_judge_the_faction_lost_silently() -> None:
    g, pairs = start()
    b0, _ = pairs[0]
    g.eject(b0, "恶意破坏游戏", faction_loses=True)
    assert "betrayers" in g.state.lost and not g.state.ended
    assert not any("判负" in t or "变节者阵营" in t for t in texts(g))  # 不予公示


def test_last_words_are_published_when_the_next_day_begins() -> None:
    g, pairs = start()
    b0, g0 = pairs[0]
    play_day(g, {v: b0 for v in g.state.living()})
    g.apply(LeaveLastWords(b0, "我是好人"))
    g.apply(LeaveLastWords(g0, None))
    assert not any("我是好人" in t for t in texts(g))
    play_night(g, order(NOBLE, "barbecue", pairs[1][0]))
    assert f"{b0}的遗言：我是好人" in texts(g)


# -- 公示 -----------------------------------------------------------------------------------------


def test_day_start_lists_the_previous_day_and_night_in_order() -> None:
    """「进入下一天讨论日，公示前一天投票出局角色名单，昨晚出局角色名单」: the vote's list holds
    the voted-out only (the lover's 殉情 was announced at once: 「白天因投票出局的所有角色将立即
    公示」)."""
    g, pairs = start()
    (b0, g0), (_b1, g1) = pairs[:2]
    play_day(g, {v: b0 for v in g.state.living()})
    day1 = texts(g)
    assert day1[-2:] == [f"{b0}被投票出局", f"{g0}出局"]
    play_night(g, order(NOBLE, "barbecue", g1))
    assert texts(g)[-2:] == [f"前一天投票出局角色：{b0}", f"夜晚出局角色：{g1}"]


def test_public_announcements_never_name_a_role() -> None:
    g, pairs = start()
    play_day(g, {v: pairs[0][0] for v in g.state.living()})
    play_night(g, order(NOBLE, "barbecue", pairs[1][1]))
    play_day(g, {v: NOBLE for v in g.state.living()})
    for t in texts(g):
        assert not any(w in t for w in ("变节者", "守护者", "单身贵族", "殉情", "烧烤"))


def test_private_notices_reach_only_their_addressees() -> None:
    g, pairs = start()
    b0, g0 = pairs[0]
    public = g.public_view()
    assert not any("情侣" in a.text for a in public.announcements)
    assert f"你的情侣：{g0}" in love_view(g, b0).messages
    assert not any(g0 in m for m in love_view(g, pairs[1][0]).messages)
    assert love_view(g, b0).noble_group == ()


# -- win / lose -----------------------------------------------------------------------------------


def _results(g: Game) -> dict[str, str]:
    return dict(g.outcome().results)


def test_betrayers_win_when_every_living_one_is_with_its_true_love() -> None:
    g, pairs = arranged_game(BG6, seed="g")
    choose_true_loves(g, dict(pairs))  # each already coupled with its choice
    assert g.state.ended and g.state.winner == "betrayers"
    assert list(_results(g).values()).count("win") == 1


def test_a_win_stops_the_night_resolution() -> None:
    """Mutual 私奔 completes the 变节者 win in step (4); the kill of step (5) never happens."""
    kinds = [("betrayer", "guardian"), ("betrayer", "guardian")] + [("betrayer", "guardian")] * 4
    g, pairs = arranged_game(kinds, seed="g")
    (b0, g0), (b1, _g1) = pairs[:2]
    loves = dict(pairs)
    loves.update({b0: b1, b1: b0})
    choose_true_loves(g, loves)
    play_day(g)
    play_night(g, order(b0, "elope", b1), order(b1, "elope", b0), order(NOBLE, "barbecue", g0))
    assert g.state.winner == "betrayers"
    assert g.state.is_alive(g0)


ONE_BETRAYER = {"roles": {"betrayer": {"count": 1}, "guardian": {"count": 11}}}
KINDS_1B = [("betrayer", "guardian")] + [("guardian", "guardian")] * 5


def test_betrayers_lose_when_all_are_out_and_the_game_goes_on() -> None:
    g, pairs = start(KINDS_1B, params=ONE_BETRAYER)
    b0 = pairs[0][0]
    play_day(g, {v: b0 for v in g.state.living()})
    lost = [e for e in g.log if isinstance(e, FactionLost)]
    assert [(e.faction, e.reason) for e in lost] == [("betrayers", "变节者全部出局")]
    assert not g.state.ended and _results(g)["betrayers"] == "lose"


def test_betrayers_lose_when_the_last_one_converts() -> None:
    g, pairs = start(KINDS_1B, params={**ONE_BETRAYER, "rules": {"marks_to_convert": 1}})
    b0, g0 = pairs[0]
    play_day(g, {v: g0 for v in g.state.living()})
    assert g.state.is_alive(b0) and g.state.role(b0) == "noble"
    assert "betrayers" in g.state.lost


def test_nobles_win_when_nobody_is_in_a_couple() -> None:
    params = {"roles": {"betrayer": {"count": 1}, "guardian": {"count": 1}, "noble": {"count": 11}}}
    g, pairs = arranged_game([("betrayer", "guardian")], seed="g", params=params)
    b0, _g0 = pairs[0]
    choose_true_loves(g, {b0: g.state.with_role("noble")[0]})
    play_day(g, {v: b0 for v in g.state.living()})
    assert g.state.winner == "nobles"
    assert g.outcome().reason == "场上没有角色处于情侣状态"


def test_guardians_win_on_a_quiet_night_from_the_second_on() -> None:
    g, pairs = start()
    (_b0, g0), (_b1, g1) = pairs[:2]
    play_day(g)
    play_night(g, order(g0, "defend"), order(NOBLE, "barbecue", g0))
    assert not g.state.ended  # night 1 does not count
    play_day(g)
    play_night(g, order(g1, "defend"), order(NOBLE, "barbecue", g1))
    assert g.state.winner == "guardians"


def test_a_single_victim_leaves_the_night_quiet() -> None:
    """处于情侣状态的角色出局: killing a single character does not disturb the night."""
    g, pairs = start()
    (b0, _g0), (_b1, g1) = pairs[:2]
    play_day(g)
    play_night(g, order(b0, "breakup"), order(NOBLE, "barbecue", g1))
    assert not g.state.ended
    play_day(g)
    play_night(g, order(NOBLE, "barbecue", b0))
    assert not g.state.is_alive(b0) and g.state.winner == "guardians"


def test_a_breakup_keeps_the_night_from_being_quiet() -> None:
    g, pairs = start()
    (_b0, g0), (b1, _g1), (_b2, g2) = pairs[:3]
    play_day(g)
    play_night(g, order(g0, "defend"), order(NOBLE, "barbecue", g0))
    play_day(g)
    play_night(g, order(b1, "breakup"), order(g2, "defend"), order(NOBLE, "barbecue", g2))
    assert not g.state.ended


def test_the_only_faction_not_lost_wins() -> None:
    g, _ = start()
    g.apply(DeclareFactionLost("guardians", "导演判负"))
    assert not g.state.ended
    g.apply(DeclareFactionLost("nobles", "导演判负"))
    assert g.state.winner == "betrayers"
    assert g.outcome().reason == "场上仅有一个阵营尚未被判负"


def test_an_empty_faction_loses_only_as_a_parameter() -> None:
    params = {"roles": {"betrayer": {"count": 1}, "guardian": {"count": 1}, "noble": {"count": 11}}}
    for empty_loses, expected in ((False, "nobles"), (True, "nobles")):
        g, pairs = arranged_game(
            [("betrayer", "guardian")], seed="g",
            params={**params, "rules": {"empty_faction_loses": empty_loses}},
        )  # fmt: skip
        choose_true_loves(g, {pairs[0][0]: NOBLE})
        play_day(g, {v: pairs[0][0] for v in g.state.living()})
        lost = {e.faction for e in g.log if isinstance(e, FactionLost)}
        assert ("guardians" in lost) is empty_loses
        assert g.state.winner == expected


def test_a_lost_faction_cannot_win_again() -> None:
    """已经被判负的阵营无法再次达到胜利条件."""
    g, pairs = arranged_game(BG6, seed="g")
    g.apply(DeclareFactionLost("betrayers", "导演判负"))
    choose_true_loves(g, dict(pairs))  # the 变节者 win condition now holds
    assert not g.state.ended and g.state.phase == "day"


def test_no_vote_change_after_acceleration() -> None:
    """进程加速后不允许改票，所有改票作废."""
    g, pairs = start()
    (b0, g0), (b1, _) = pairs[:2]
    g.apply(CastVote(b0, b1))
    g.apply(CastVote(b0, g0, is_change=True))
    g.apply(ScheduleDay(accelerated=True))
    g.apply(CastVote(g0, b1))
    with pytest.raises(VoteRejectedError):
        g.apply(CastVote(g0, b0, is_change=True))
    g.apply(CloseDay())
    assert not g.state.is_alive(b1)  # b0's change was voided: both ballots name b1


def test_start_phase_legal_actions() -> None:
    g, pairs = arranged_game(BG6, seed="g")
    b0, g0 = pairs[0]
    assert len(g.legal_actions(b0)) == 12 and g.legal_actions(g0) == []
    assert g.legal_actions() == [DeadlinePassed()]
    g.apply(UseSkill(b0, "true_love", g0))
    assert g.legal_actions(b0) == []
    before = g.state.snapshot()
    with pytest.raises(UnknownCharacterError):
        g.apply(UseSkill("无名氏", "true_love", g0))
    assert g.state.snapshot() == before


def test_red_card_during_the_start_lets_the_rest_choose_and_reveal() -> None:
    g, pairs = arranged_game(BG6, seed="g")
    b0, g0 = pairs[0]
    g.eject(b0, "恶意破坏游戏")
    assert not g.state.is_alive(g0)  # 殉情 follows the red card (R16)
    g.apply(LeaveLastWords(g0, "来不及了"))  # before the next day begins
    assert g.state.phase == "setup"
    for b, _ in pairs[1:]:
        g.apply(UseSkill(b, "true_love", NOBLE))
    assert g.state.phase == "day" and g.state.day == 1
    assert f"{g0}的遗言：来不及了" in texts(g)
