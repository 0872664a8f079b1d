"""M08 (seed 003): every skill, exclusion, announcement rule and win/lose condition."""

from __future__ import annotations

import pytest

from game_rules import (
    CastVote,
    CloseDay,
    DeadActorError,
    DeadlinePassed,
    EndNight,
    Game,
    IllegalActionError,
    InvalidTargetError,
    LeaveLastWords,
    NotYourSkillError,
    PendingDecisionError,
    SkillUsedUpError,
    UseSkill,
    WrongPhaseError,
    new_game,
)
from game_rules.events import ActionTaken
from game_rules.night import duel_wins
from game_rules.shorthand import M08_ROLES, announcements, make_game, play_night, vote_day
from game_rules.shorthand import private_messages as private

ROLES = M08_ROLES
ALL = list(ROLES)
WOLVES = ["狼A", "狼B", "狼C", "狼D"]


def out(game: Game) -> list[str]:
    return [e.character for e in game.state.eliminations]


def elect_leader(game: Game, leader: str = "狼A") -> None:
    for w in WOLVES:
        if w in game.state.alive:
            game.apply(UseSkill(w, "leader_vote", leader))


def propose_and_kill(game: Game, target: str, leader: str = "狼A") -> None:
    game.apply(UseSkill(leader, "propose", target, reason="刀你"))
    game.apply(UseSkill(leader, "kill", target))


def to_day2(game: Game, sheriff: str = "村1", leader: str = "狼A") -> None:
    vote_day(game, {c: sheriff for c in ALL})
    elect_leader(game, leader)
    game.apply(EndNight())
    assert game.state.phase == "day" and game.state.day == 2


# -- day 1 sheriff, 1.5 votes, ties ---------------------------------------------------------


def test_day1_elects_sheriff_only(m08: Game) -> None:
    vote_day(m08, {"狼A": "预", "狼B": "预", "村1": "猎"})
    assert m08.state.sheriff == "预" and out(m08) == []
    assert "预当选警长" in announcements(m08, 1)


def test_sheriff_vote_counts_one_and_a_half(m08: Game) -> None:
    to_day2(m08, "村1")
    vote_day(m08, {"村1": "狼B", "狼A": "村2"})
    assert out(m08) == ["狼B"]
    tally = [a.text for a in m08.public_view().announcements if a.kind == "tally" and a.day == 2]
    assert tally[0].splitlines() == ["狼B获得1.5票", "村2获得1票"]


def test_a_tie_the_sheriff_did_not_vote_into_sends_nobody_out(m08: Game) -> None:
    # 平票则按以下顺序：警长投票的角色出局、无人出局 — the sheriff (1.5) voted for neither tied one
    to_day2(m08, "村1")
    vote_day(m08, {"村1": "预", "狼A": "村2", "狼C": "村2", "村3": "狼B", "狼D": "狼B"})
    tally = [a.text for a in m08.public_view().announcements if a.kind == "tally" and a.day == 2]
    assert sorted(tally[0].splitlines()) == ["村2获得2票", "狼B获得2票", "预获得1.5票"]
    assert out(m08) == []
    assert "平票，无人出局" in announcements(m08, 2)


def test_exact_tie_broken_by_sheriff_ballot() -> None:
    g = new_game("m08", ALL, seed="t", roles=ROLES, params={"sheriff_weight": 1})
    to_day2(g, "村1")
    vote_day(g, {"村1": "狼B", "狼A": "村2"})
    assert out(g) == ["狼B"]


def test_tie_without_sheriff_ballot_means_nobody() -> None:
    g = new_game("m08", ALL, seed="t", roles=ROLES, params={"sheriff_weight": 1})
    to_day2(g, "村1")
    vote_day(g, {"狼A": "村2", "村3": "狼B", "村1": "预", "狼C": "预"})
    # 村2 1, 狼B 1, 预 2 -> 预 out; now a real tie:
    assert out(g) == ["预"]
    play_night(g)
    vote_day(g, {"狼A": "村2", "村3": "狼B"})
    assert out(g) == ["预"]
    assert "平票，无人出局" in announcements(g, 3)


def test_vote_change_only_once(m08: Game) -> None:
    to_day2(m08)
    m08.apply(CastVote("狼A", "村2"))
    m08.apply(CastVote("狼A", "村3", is_change=True))
    with pytest.raises(IllegalActionError) as err:
        m08.apply(CastVote("狼A", "村4", is_change=True))
    assert err.value.rule == "change_limit"


# -- 狼头: 争权, 传位, proposals ---------------------------------------------------------------


def test_leader_is_first_to_reach_most_votes(m08: Game) -> None:
    vote_day(m08, {})
    for voter, target in [("狼A", "狼B"), ("狼B", "狼C"), ("狼C", "狼C"), ("狼D", "狼B")]:
        m08.apply(UseSkill(voter, "leader_vote", target))
    # 狼C reached 2 (3rd vote) before 狼B (4th)
    assert m08.state.flags["leader"] == "狼C"
    assert "狼C成为狼头（争权当选）" in private(m08, "狼A")


def test_missing_leader_votes_are_not_counted(m08: Game) -> None:
    vote_day(m08, {})
    m08.apply(UseSkill("狼A", "leader_vote", "狼D"))
    m08.apply(EndNight())
    assert m08.state.flags["leader"] == "狼D"
    assert m08.state.flags["missed_leader_vote"] == ["狼B", "狼C", "狼D"]


def test_no_leader_votes_gives_a_random_leader(m08: Game) -> None:
    vote_day(m08, {})
    m08.apply(EndNight())
    assert m08.state.flags["leader"] in WOLVES


def test_leader_vote_must_name_a_wolf(m08: Game) -> None:
    vote_day(m08, {})
    with pytest.raises(InvalidTargetError):
        m08.apply(UseSkill("狼A", "leader_vote", "村1"))


def test_kill_reason_must_be_two_characters(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {})
    with pytest.raises(IllegalActionError) as err:
        m08.apply(UseSkill("狼B", "propose", "村2", reason="刀"))
    assert err.value.rule == "kill_reason_two_chars"


def test_leader_chooses_among_proposals_and_wolves_learn_it(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {})
    m08.apply(UseSkill("狼B", "propose", "村2", reason="可疑"))
    with pytest.raises(InvalidTargetError) as err:
        m08.apply(UseSkill("狼A", "kill", "村3"))
    assert err.value.rule == "kill_not_proposed"
    with pytest.raises(NotYourSkillError):
        m08.apply(UseSkill("狼B", "kill", "村2"))
    m08.apply(UseSkill("狼A", "kill", "村2"))
    told = private(m08, "狼D")
    assert "狼头选择的指杀结果：村2" in told
    # the result only (狼人不共群): not who proposed it, nor the reason
    assert "可疑" not in "".join(told)
    assert not [t for t in told if "指杀" in t and "狼B" in t]
    seen = m08.character_view("狼D").events
    assert not [e for e in seen if isinstance(e, ActionTaken) and e.skill in ("kill", "propose")]
    m08.apply(EndNight())
    assert out(m08) == ["村2"]


def test_leader_succession_chosen(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {"村1": "狼A"})
    with pytest.raises(InvalidTargetError):
        m08.apply(UseSkill("狼A", "leader_succession", "村2"))
    m08.apply(UseSkill("狼A", "leader_succession", "狼C"))
    assert m08.state.flags["leader"] == "狼C"
    assert "狼C成为狼头（传位）" in private(m08, "狼B")


def test_leader_red_card_random_successor(m08: Game) -> None:
    to_day2(m08)
    m08.eject("狼A", "恶意破坏")
    assert not m08.state.decisions
    assert m08.state.flags["leader"] in ["狼B", "狼C", "狼D"]


def test_leader_deadline_random(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {"村1": "狼A"})
    m08.apply(DeadlinePassed())
    assert m08.state.flags["leader"] in ["狼B", "狼C", "狼D"]


# -- witch -------------------------------------------------------------------------------------


def test_witch_is_told_the_kill_and_saves(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {})
    propose_and_kill(m08, "村3")
    assert "通灵：今晚被指杀的角色是村3" in private(m08, "巫")
    m08.apply(UseSkill("巫", "save", "村3"))
    m08.apply(EndNight())
    assert out(m08) == []


def test_witch_cannot_save_herself(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {})
    propose_and_kill(m08, "巫")
    before = m08.state.snapshot()
    with pytest.raises(InvalidTargetError) as err:
        m08.apply(UseSkill("巫", "save", "巫"))
    assert err.value.rule == "witch_self_save"
    assert m08.state.snapshot() == before


def test_save_then_no_poison_the_same_night(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {})
    m08.apply(UseSkill("巫", "save", "村3"))
    with pytest.raises(SkillUsedUpError) as err:
        m08.apply(UseSkill("巫", "poison", "狼B"))
    assert err.value.rule == "one_potion_per_night"


def test_poison_then_no_save_the_same_night(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {})
    m08.apply(UseSkill("巫", "poison", "狼B"))
    with pytest.raises(SkillUsedUpError):
        m08.apply(UseSkill("巫", "save", "村3"))


def test_save_costs_save_and_clairvoyance(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {})
    m08.apply(UseSkill("巫", "save", "村3"))  # saving someone not killed: accepted, no effect
    m08.apply(EndNight())
    vote_day(m08, {})
    propose_and_kill(m08, "村4")
    assert not any("村4" in m for m in private(m08, "巫"))  # 失去<通灵>
    with pytest.raises(SkillUsedUpError) as err:
        m08.apply(UseSkill("巫", "save", "村4"))
    assert err.value.rule == "save_used"


def test_poison_once_per_game_and_after_the_kill(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {})
    propose_and_kill(m08, "村3")
    m08.apply(UseSkill("巫", "poison", "狼B"))
    m08.apply(EndNight())
    assert out(m08) == ["村3", "狼B"]
    assert [e.cause for e in m08.state.eliminations] == ["kill", "poison"]
    vote_day(m08, {})
    with pytest.raises(SkillUsedUpError):
        m08.apply(UseSkill("巫", "poison", "狼C"))


# -- seer ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("target", "word"), [("狼B", "非村民阵营"), ("猎", "村民阵营")])
def test_seer_sees_the_faction(m08: Game, target: str, word: str) -> None:
    to_day2(m08)
    vote_day(m08, {})
    play_night(m08, ("预", "divine", target))
    assert f"预言结果：{target}<{word}>" in private(m08, "预")


# -- hunter -----------------------------------------------------------------------------------


def test_hunter_voted_out_shoots_and_it_is_announced_at_once(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {"狼A": "猎"})
    assert ("猎", "shoot") in m08.state.decisions
    m08.apply(UseSkill("猎", "shoot", "狼B"))
    assert out(m08) == ["猎", "狼B"]
    assert "猎发动<最后一枪>，狼B出局" in announcements(m08, 2)
    assert m08.state.phase == "night"


def test_hunter_may_decline(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {"狼A": "猎"})
    m08.apply(UseSkill("猎", "shoot", None))
    assert out(m08) == ["猎"]


def test_hunter_deadline_means_no_shot(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {"狼A": "猎"})
    m08.apply(DeadlinePassed())
    assert out(m08) == ["猎"] and m08.state.phase == "night"


def test_red_carded_hunter_cannot_shoot(m08: Game) -> None:
    to_day2(m08)
    m08.eject("猎", "恶意破坏")
    assert not m08.state.decisions
    assert "猎" not in m08.state.last_words_granted


def test_poisoned_hunter_may_shoot(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {})
    m08.apply(UseSkill("巫", "poison", "猎"))
    m08.apply(EndNight())
    assert ("猎", "shoot") in m08.state.decisions


def test_poisoned_hunter_rule_is_a_parameter() -> None:
    g = new_game("m08", ALL, seed="p", roles=ROLES, params={"poisoned_hunter_shoots": False})
    to_day2(g)
    vote_day(g, {})
    g.apply(UseSkill("巫", "poison", "猎"))
    g.apply(EndNight())
    assert not g.state.decisions and g.state.day == 3


def test_night_shot_goes_out_right_after_the_hunter(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {})
    propose_and_kill(m08, "猎")
    m08.apply(UseSkill("巫", "poison", "狼B"))
    m08.apply(EndNight())
    assert out(m08) == ["猎"]  # paused for 最后一枪 before the poison
    m08.apply(UseSkill("猎", "shoot", "狼C"))
    assert out(m08) == ["猎", "狼C", "狼B"]
    assert m08.state.day == 3
    assert "夜晚出局角色：猎、狼C、狼B" in announcements(m08, 3)


def test_hunter_sheriff_shoots_then_passes_the_badge(m08: Game) -> None:
    to_day2(m08, "猎")
    vote_day(m08, {"狼A": "猎", "狼B": "猎"})
    with pytest.raises(PendingDecisionError) as err:
        m08.apply(UseSkill("猎", "succession", "村2"))
    assert err.value.rule == "decision_order"
    m08.apply(UseSkill("猎", "shoot", "狼A"))
    m08.apply(UseSkill("猎", "succession", "村2"))
    assert m08.state.sheriff == "村2"


# -- red card before the vote ------------------------------------------------------------------


def test_red_card_comes_before_the_vote(m08: Game) -> None:
    to_day2(m08)
    m08.apply(CastVote("狼B", "村2"))
    m08.apply(CastVote("狼C", "村3"))
    m08.apply(CastVote("村3", "狼B"))
    m08.eject("狼B", "恶意破坏")
    assert "狼B" not in m08.state.alive  # 白天红牌罚下在被投票出局之前
    m08.apply(CloseDay())
    # 狼B's ballot no longer counts and the ballot on 狼B is void: 村3 alone on top
    assert out(m08) == ["狼B", "村3"]


# -- last words -----------------------------------------------------------------------------


def test_three_last_words(m08: Game) -> None:
    to_day2(m08)
    for victim in ["村2", "狼B", "村3", "狼C"]:
        vote_day(m08, {"狼A": victim})
        if victim != "狼C":
            m08.apply(LeaveLastWords(victim, f"{victim}说再见"))
            play_night(m08)
    assert m08.state.last_words_granted == ["村2", "狼B", "村3"]  # the fourth gets none
    assert "村2的遗言：村2说再见" in announcements(m08, 3)


def test_unsubmitted_last_words_lapse_at_next_day(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {"狼A": "村2"})
    play_night(m08)
    assert m08.state.last_words_given == {"村2": None}
    with pytest.raises(IllegalActionError):
        m08.apply(LeaveLastWords("村2", "晚了"))


def test_night_victim_gives_last_words_during_the_next_day(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {})
    propose_and_kill(m08, "村2")
    m08.apply(EndNight())
    m08.apply(LeaveLastWords("村2", "我是村民"))
    assert "村2的遗言：我是村民" in announcements(m08, 3)


# -- 决战 ------------------------------------------------------------------------------------


def test_duel_with_unused_save_loses(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {})
    m08.apply(UseSkill("狼A", "duel", choice="预,巫,猎"))
    for w in ["狼B", "狼C"]:
        m08.apply(UseSkill(w, "duel_agree", choice="yes"))
    assert m08.state.ended and m08.state.winner == "villagers"
    assert "女巫仍未使用过救药" in m08.outcome().reason


def test_duel_needs_a_majority(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {})
    m08.apply(UseSkill("狼A", "duel", choice="预,巫,猎"))
    m08.apply(UseSkill("狼B", "duel_agree", choice="yes"))  # 2 of 4 is not more than half
    assert not m08.state.ended
    m08.apply(UseSkill("狼C", "duel_agree", choice="no"))
    m08.apply(UseSkill("狼D", "duel_agree", choice="no"))
    assert m08.state.flags["duel"]["agreed"] is False
    with pytest.raises(SkillUsedUpError):
        m08.apply(UseSkill("狼A", "duel", choice="预"))


def test_duel_win_when_three_kills_suffice(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {})
    m08.apply(UseSkill("巫", "save", "村1"))
    m08.apply(UseSkill("预", "divine", "狼A"))
    m08.apply(EndNight())
    # day 3: vote out three villagers' worth so that three kills reach a win
    vote_day(m08, {"狼A": "村2"})
    play_night(m08)
    vote_day(m08, {"狼A": "村3"})
    m08.apply(UseSkill("狼A", "duel", choice="村4,村1,预"))
    for w in ["狼B", "狼C"]:
        m08.apply(UseSkill(w, "duel_agree", choice="yes"))
    assert m08.state.ended


def judge(plan: tuple[str, ...], *, save_used: bool = True) -> bool:
    """Duel verdict on a 7-character board whose witch X is already out."""
    factions = {"W1": "wolves", "W2": "wolves", "S": "villagers", "H": "villagers"}
    factions.update({"V1": "villagers", "V2": "villagers", "X": "villagers"})
    return duel_wins(
        alive=frozenset(factions) - {"X"},
        factions=factions,
        gods=frozenset({"S", "H", "X"}),
        plain_villagers=frozenset({"V1", "V2"}),
        plan=plan,
        save_used=save_used,
        poison_ready=False,
        hunter="H",
        witch="X",
    )


def test_duel_judgement_as_written() -> None:
    # kill V1, the village votes W1 out, kill V2: 村民全部出局 within the kills -> win
    assert judge(("V1", "V2"))
    # the same plan while the witch never used 救药: 直接判负
    assert not judge(("V1", "V2"), save_used=False)
    # killing the hunter costs a wolf at once; the day vote takes the other -> lose
    assert not judge(("H", "S", "V1"))


# -- winning --------------------------------------------------------------------------------


def test_villagers_win_when_all_wolves_out(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {})
    for w in WOLVES:
        m08.eject(w, "测试")
    assert m08.state.winner == "villagers"


def test_wolves_win_at_half(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {})
    for c in ["村1", "村2"]:
        m08.eject(c, "测试")
    assert not m08.state.ended  # 4 wolves of 9
    m08.eject("村3", "测试")  # 4 of 8: 一半或一半以上
    assert m08.state.winner == "wolves"


def test_wolves_win_when_gods_out(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {"村1": "狼B"})  # 狼A is the leader: no decision
    m08.eject("预", "测试")
    m08.eject("巫", "测试")
    m08.eject("猎", "测试")
    assert m08.state.winner == "wolves"
    assert m08.outcome().reason == "村民阵营的预言家、女巫、猎人出局"


def test_wolves_win_when_villagers_out() -> None:
    g = make_game("m08", ROLES)
    to_day2(g)
    vote_day(g, {})
    g.eject("狼A", "测试")
    g.eject("狼B", "测试")
    for c in ["村1", "村2", "村3", "村4"]:
        g.eject(c, "测试")
    assert g.state.winner == "wolves"
    assert g.outcome().reason == "村民阵营的村民全部出局"


def test_red_card_may_declare_the_faction_lost(m08: Game) -> None:
    to_day2(m08)
    m08.eject("村1", "作弊", faction_loses=True)
    assert m08.state.winner == "wolves"


# -- illegal ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "error", "rule"),
    [
        (UseSkill("预", "divine", "预"), InvalidTargetError, "self_target"),
        (UseSkill("村1", "poison", "狼A"), NotYourSkillError, "not_your_skill"),
        (UseSkill("狼B", "duel", choice="村1"), NotYourSkillError, "not_leader"),
        (UseSkill("狼A", "duel", choice="狼B"), InvalidTargetError, "duel_target"),
        (UseSkill("狼A", "duel_agree", choice="yes"), WrongPhaseError, "no_duel"),
        (UseSkill("狼A", "leader_vote", "狼B"), WrongPhaseError, "leader_vote_closed"),
        (CastVote("村1", "村2"), WrongPhaseError, "vote_outside_day"),
    ],
)
def test_illegal_night_actions(m08: Game, action: object, error: type, rule: str) -> None:
    to_day2(m08)
    vote_day(m08, {})
    before, n = m08.state.snapshot(), len(m08.log)
    with pytest.raises(error) as err:
        m08.apply(action)  # type: ignore[arg-type]
    assert getattr(err.value, "rule", None) == rule
    assert m08.state.snapshot() == before and len(m08.log) == n


def test_dead_cannot_act(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {"狼A": "预"})
    with pytest.raises(DeadActorError):
        m08.apply(UseSkill("预", "divine", "狼A"))


def test_twelve_player_variant_is_data_only() -> None:
    g = new_game("m08_12", [f"P{i}" for i in range(12)], seed="x")
    roles = list(g.state.roles.values())
    assert roles.count("villager") == 5 and roles.count("wolf") == 4
    assert g.params.engine == "m08"


# -- vote rules through the engine -------------------------------------------------------------


def test_the_change_limit_is_a_vote_policy_parameter() -> None:
    g = new_game("m08", ALL, seed="c", roles=ROLES, params={"vote_policy": {"max_changes": 2}})
    g.apply(CastVote("狼A", "村2"))
    g.apply(CastVote("狼A", "村3", is_change=True))
    g.apply(CastVote("狼A", "村4", is_change=True))
    with pytest.raises(IllegalActionError) as err:
        g.apply(CastVote("狼A", "村1", is_change=True))
    assert err.value.rule == "change_limit"


def test_last_hour_and_proxy_deadlines_use_the_scheduled_close(m08: Game) -> None:
    from datetime import datetime

    from game_rules import ScheduleDay

    close = datetime(2026, 11, 2, 23, 0)
    m08.apply(ScheduleDay(closes_at=close))
    m08.apply(CastVote("狼A", "村2", at=datetime(2026, 11, 2, 21, 0)))
    before = len(m08.log)
    with pytest.raises(IllegalActionError) as err:
        m08.apply(CastVote("狼A", "村3", at=datetime(2026, 11, 2, 22, 30), is_change=True))
    assert err.value.rule == "last_hour" and len(m08.log) == before
    with pytest.raises(IllegalActionError) as err:
        m08.apply(CastVote("狼B", "村3", at=datetime(2026, 11, 2, 22, 45), proxy=True))
    assert err.value.rule == "proxy_late"
    m08.apply(CastVote("狼C", "村3", at=datetime(2026, 11, 2, 22, 20), proxy=True))
    m08.apply(CloseDay())
    assert m08.state.sheriff == "村2"  # equal counts: 村2 reached 1 first


def test_conditional_proxy_counts_as_abstention(m08: Game) -> None:
    m08.apply(CastVote("狼A", "村2", proxy=True, conditional=True))
    assert m08.state.ballots["狼A"].target is None  # 否则视为弃权


def test_sheriff_succession_after_vote_is_announced_at_once(m08: Game) -> None:
    to_day2(m08, "村1")
    vote_day(m08, {"狼A": "村1"})
    m08.apply(UseSkill("村1", "succession", "预"))
    assert "村1<殉职>，预继任警长" in announcements(m08, 2)
    assert m08.public_view().sheriff == "预"
    assert "你继任警长" in private(m08, "预")


def test_night_succession_waits_for_the_next_day(m08: Game) -> None:
    to_day2(m08, "村1")
    vote_day(m08, {})
    propose_and_kill(m08, "村1")
    m08.apply(EndNight())
    m08.apply(UseSkill("村1", "succession", "预"))
    assert m08.state.day == 3
    day3 = announcements(m08, 3)
    assert day3.index("夜晚出局角色：村1") < day3.index("村1<殉职>，预继任警长")
    assert "当日警长：预" in day3


def test_game_ends_at_once_even_before_the_hunters_shot(m08: Game) -> None:
    to_day2(m08)
    vote_day(m08, {})
    m08.eject("村2", "测试")
    m08.eject("村3", "测试")  # 4 wolves of 9
    m08.apply(EndNight())
    vote_day(m08, {"狼A": "猎"})  # 4 of 8: 游戏立即结束
    assert m08.state.ended and m08.state.winner == "wolves"
    with pytest.raises(IllegalActionError):
        m08.apply(UseSkill("猎", "shoot", "狼A"))


def test_untimed_ballots_follow_an_aware_close(m08: Game) -> None:
    from datetime import UTC, datetime

    from game_rules import ScheduleDay

    m08.apply(ScheduleDay(closes_at=datetime(2026, 11, 2, 15, tzinfo=UTC)))
    m08.apply(CastVote("狼A", "村2"))
    m08.apply(CastVote("狼B", "村2"))
    m08.apply(CloseDay())
    assert m08.state.sheriff == "村2"


def test_duel_options_name_every_allowed_character(m08: Game) -> None:
    # what a plan may hold is read off the options (the console builds its plan picker so)
    m08.apply(CloseDay())
    for w in ("狼A", "狼B", "狼C", "狼D"):
        m08.apply(UseSkill(w, "leader_vote", "狼A"))
    plans = [a.choice for a in m08.legal_actions("狼A") if a.skill == "duel"]
    allowed = [c for c in m08.state.living() if m08.state.role(c) != "wolf"]
    assert plans[0] == ",".join(allowed[:3])
    assert sorted(plans[1:]) == sorted(allowed)
    assert not {"狼B", "狼C", "狼D"} & {n for p in plans for n in (p or "").split(",")}
