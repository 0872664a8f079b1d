"""M72 (seed 001): every skill, exclusion, announcement rule and win/lose condition."""

from __future__ import annotations

import pytest

from game_rules import (
    CastVote,
    CloseDay,
    DeadActorError,
    DeadlinePassed,
    DeclareFactionLost,
    EndNight,
    Game,
    IllegalActionError,
    InvalidTargetError,
    LeaveLastWords,
    NotYourSkillError,
    SkillUsedUpError,
    UseSkill,
    WrongPhaseError,
)
from game_rules.shorthand import M72_ROLES, announcements, make_game, vote_day
from game_rules.shorthand import play_night as night
from game_rules.shorthand import private_messages as private

ALL = list(M72_ROLES)


def to_day2(game: Game, sheriff: str = "村甲") -> None:
    """Day 1 elects ``sheriff`` (everyone votes for them); a quiet night 1."""
    vote_day(game, {c: sheriff for c in ALL})
    night(game)
    assert game.state.phase == "day" and game.state.day == 2


def to_night2(game: Game) -> None:
    """Night 2 (red cards at night take effect at once)."""
    to_day2(game)
    vote_day(game, {})


def out(game: Game) -> list[str]:
    return [e.character for e in game.state.eliminations]


def tally_text(game: Game, day: int) -> str:
    return "\n".join(
        a.text for a in game.public_view().announcements if a.kind == "tally" and a.day == day
    )


# -- day 1: 竞岗 ---------------------------------------------------------------------------------


def test_day1_vote_elects_sheriff_and_eliminates_nobody(m72: Game) -> None:
    vote_day(m72, {"狼": "村甲", "幼": "村甲", "占": "灵"})
    assert m72.state.sheriff == "村甲"
    assert m72.state.eliminations == []
    assert "村甲当选警长" in announcements(m72, 1)


def test_day1_tie_goes_to_first_to_reach_top_count(m72: Game) -> None:
    # 灵 reaches 2 first (3rd ballot), 村甲 only with the 4th
    vote_day(m72, {"狼": "灵", "幼": "村甲", "占": "灵", "守": "村甲"})
    assert m72.state.sheriff == "灵"


def test_day1_elect_and_eliminate_is_a_parameter() -> None:
    from game_rules import new_game

    g = new_game("m72", ALL, seed="p", roles=M72_ROLES, params={"day1_vote": "elect_and_eliminate"})
    vote_day(g, {"狼": "村甲", "幼": "村甲"})
    assert out(g) == ["村甲"]
    assert ("村甲", "succession") in g.state.decisions  # the new sheriff at once 殉职


# -- votes -----------------------------------------------------------------------------------


def test_sheriff_ballot_counts_two(m72: Game) -> None:
    to_day2(m72, "村甲")
    vote_day(m72, {"村甲": "狐", "狼": "占"})
    assert out(m72) == ["狐"]
    assert tally_text(m72, 2).splitlines() == ["狐获得2票", "占获得1票"]


def test_tie_means_nobody_out(m72: Game) -> None:
    to_day2(m72)
    vote_day(m72, {"狼": "占", "幼": "狐"})
    assert out(m72) == []
    assert "平票，无人出局" in announcements(m72, 2)


def test_vote_changes_unlimited(m72: Game) -> None:
    to_day2(m72)
    m72.apply(CastVote("狼", "占"))
    for target in ("狐", "占", "狐"):
        m72.apply(CastVote("狼", target, is_change=True))
    m72.apply(CloseDay())
    assert out(m72) == ["狐"]


# -- crows ----------------------------------------------------------------------------------


def test_big_crow_slander_adds_hidden_vote(m72: Game) -> None:
    vote_day(m72, {c: "村甲" for c in ALL})
    night(m72, ("大鸦", "slander", "狐"), ("小鸦", "slander", "占"))
    vote_day(m72, {"狼": "占"})
    # 狐 1 (hidden) vs 占 1 -> tie, nobody; the small crow's slander did nothing
    assert out(m72) == []
    assert tally_text(m72, 2) == "占获得1票"  # 不公示


def test_big_crow_slander_decides_the_vote(m72: Game) -> None:
    vote_day(m72, {c: "村甲" for c in ALL})
    night(m72, ("大鸦", "slander", "狐"))
    vote_day(m72, {"狼": "狐", "幼": "占"})
    assert out(m72) == ["狐"]


def test_small_crow_slander_has_no_effect(m72: Game) -> None:
    vote_day(m72, {c: "村甲" for c in ALL})
    night(m72, ("小鸦", "slander", "狐"))
    vote_day(m72, {"狼": "占"})
    assert out(m72) == ["占"]


def test_slander_lasts_one_day_only(m72: Game) -> None:
    vote_day(m72, {c: "村甲" for c in ALL})
    night(m72, ("大鸦", "slander", "狐"))
    vote_day(m72, {"狼": "占", "幼": "狐"})  # 狐 2 (1 hidden) > 占 1
    night(m72)
    vote_day(m72, {"狼": "灵", "幼": "守"})  # day 3: no slander -> tie
    assert out(m72) == ["狐"]


def test_crows_are_told_only_crow() -> None:
    g = make_game("m72", M72_ROLES)
    for crow in ("大鸦", "小鸦"):
        view = g.character_view(crow)
        assert view.role == "crow" and view.role_name == "乌鸦"


def test_crow_flies_over_while_a_crow_lives(m72: Game) -> None:
    assert "「乌鸦飞过」" in announcements(m72, 1)
    to_day2(m72)
    m72.eject("大鸦", "测试")
    m72.eject("小鸦", "测试")
    vote_day(m72, {})
    night(m72)
    assert "「乌鸦飞过」" not in announcements(m72, 3)


# -- guard --------------------------------------------------------------------------------


def test_guard_blocks_the_kill(m72: Game) -> None:
    to_day2(m72)
    vote_day(m72, {})
    night(m72, ("守", "guard", "占"), ("狼", "kill", "占"))
    assert out(m72) == []


def test_guard_cannot_guard_self(m72: Game) -> None:
    to_day2(m72)
    vote_day(m72, {})
    before = m72.state.snapshot()
    with pytest.raises(InvalidTargetError) as err:
        m72.apply(UseSkill("守", "guard", "守"))
    assert err.value.rule == "guard_self"
    assert m72.state.snapshot() == before


def test_guard_each_character_once_per_game(m72: Game) -> None:
    to_day2(m72)
    vote_day(m72, {})
    night(m72, ("守", "guard", "占"))
    vote_day(m72, {})
    before = len(m72.log)
    with pytest.raises(InvalidTargetError) as err:
        m72.apply(UseSkill("守", "guard", "占"))
    assert err.value.rule == "guard_repeat_target"
    assert len(m72.log) == before


# -- wolves, fox, madman, seer, medium -----------------------------------------------------


def test_wolf_kill_eliminates(m72: Game) -> None:
    to_day2(m72)
    vote_day(m72, {})
    night(m72, ("幼", "kill", "村乙"))
    assert out(m72) == ["村乙"]
    assert "前一天出局角色：村乙" in announcements(m72, 3)


def test_pack_kills_once_per_night(m72: Game) -> None:
    to_day2(m72)
    vote_day(m72, {})
    m72.apply(UseSkill("狼", "kill", "村乙"))
    with pytest.raises(SkillUsedUpError):
        m72.apply(UseSkill("幼", "kill", "村甲"))


def test_fox_survives_the_kill(m72: Game) -> None:
    to_day2(m72)
    vote_day(m72, {})
    night(m72, ("狼", "kill", "狐"))
    assert out(m72) == []


def test_fox_dies_when_divined_and_reads_not_wolf(m72: Game) -> None:
    to_day2(m72)
    vote_day(m72, {})
    night(m72, ("占", "divine", "狐"))
    assert m72.state.eliminations[0].cause == "divined"
    assert "占卜结果：狐<不是狼>" in private(m72, "占")


def test_divined_fox_goes_out_before_the_kill_victim(m72: Game) -> None:
    to_day2(m72)
    vote_day(m72, {})
    night(m72, ("狼", "kill", "村乙"), ("占", "divine", "狐"))
    assert out(m72) == ["狐", "村乙"]


@pytest.mark.parametrize(
    ("target", "word"), [("狼", "是狼"), ("幼", "是狼"), ("狂甲", "不是狼"), ("村甲", "不是狼")]
)
def test_divination_results(m72: Game, target: str, word: str) -> None:
    to_day2(m72, "灵")
    vote_day(m72, {})
    night(m72, ("占", "divine", target))
    assert f"占卜结果：{target}<{word}>" in private(m72, "占")


@pytest.mark.parametrize(("target", "word"), [("幼", "是狼"), ("狂乙", "不是狼")])
def test_medium_reads_the_voted_out_character(m72: Game, target: str, word: str) -> None:
    to_day2(m72, "灵")
    vote_day(m72, {"狼": target})
    night(m72)
    assert f"通灵结果：{target}<{word}>" in private(m72, "灵")


def test_medium_gets_nothing_without_a_vote_out(m72: Game) -> None:
    to_day2(m72)
    vote_day(m72, {})
    night(m72)
    assert not any("通灵" in m for m in private(m72, "灵"))


def test_madmen_do_not_know_the_pack(m72: Game) -> None:
    assert private(m72, "狼") == private(m72, "幼")
    assert "狼人共群" in private(m72, "狼")[0]
    assert private(m72, "狂甲") == []


# -- 幼狼 激励 ----------------------------------------------------------------------------------


def test_cub_voted_out_gives_an_extra_kill_that_night(m72: Game) -> None:
    to_day2(m72)
    vote_day(m72, {"狼": "幼"})
    night(m72, ("狼", "kill", "村甲"), ("狼", "extra_kill", "村乙"))
    assert out(m72) == ["幼", "村甲", "村乙"]


def test_incite_only_the_next_night(m72: Game) -> None:
    to_day2(m72)
    vote_day(m72, {"狼": "幼"})
    night(m72)
    vote_day(m72, {})
    with pytest.raises(SkillUsedUpError) as err:
        m72.apply(UseSkill("狼", "extra_kill", "村乙"))
    assert err.value.rule == "no_incite"


def test_red_carded_cub_gives_no_incite(m72: Game) -> None:
    """「激励<强制> —— 当幼狼并非因红牌罚下而出局后，仅限下一个夜晚，狼人可以再使用一次<杀人>」:
    a cub red-carded by day gives the wolves no second kill that night (the night that would be
    "the next night" had it gone out otherwise: a vote-out the same day opens it)."""
    to_day2(m72)
    m72.eject("幼", "恶意破坏")  # by day: settled after the vote (M72)
    vote_day(m72, {})
    assert "幼" not in m72.state.alive and m72.state.phase == "night" and m72.state.day == 2
    m72.apply(UseSkill("狼", "kill", "村甲"))
    with pytest.raises(SkillUsedUpError) as err:
        m72.apply(UseSkill("狼", "extra_kill", "村乙"))
    assert err.value.rule == "no_incite"
    assert not any(t.kind == "incite" for t in m72.state.told)


# -- sheriff 殉职 -------------------------------------------------------------------------------


def test_sheriff_voted_out_chooses_successor(m72: Game) -> None:
    to_day2(m72, "村甲")
    vote_day(m72, {"狼": "村甲"})
    assert m72.state.phase == "day"  # waiting for 殉职
    with pytest.raises(WrongPhaseError):
        m72.apply(EndNight())
    m72.apply(UseSkill("村甲", "succession", "占"))
    assert m72.state.sheriff == "占" and m72.state.phase == "night"


def test_sheriff_succession_deadline_is_random(m72: Game) -> None:
    to_day2(m72, "村甲")
    vote_day(m72, {"狼": "村甲"})
    m72.apply(DeadlinePassed())
    assert m72.state.sheriff in m72.state.alive


def test_sheriff_red_card_random_successor_without_choice(m72: Game) -> None:
    to_day2(m72, "村甲")
    vote_day(m72, {}, close=False)
    m72.eject("村甲", "恶意破坏")
    m72.apply(CloseDay())
    assert not m72.state.decisions
    assert m72.state.sheriff in m72.state.alive and m72.state.sheriff != "村甲"


# -- last words -------------------------------------------------------------------------------


def test_last_words_quota_is_number_of_wolves(m72: Game) -> None:
    assert m72.params.last_words == 2
    to_day2(m72)
    vote_day(m72, {"狼": "村乙"})
    m72.apply(LeaveLastWords("村乙", None))  # giving up does not pass the right on
    night(m72, ("狼", "kill", "灵"))
    vote_day(m72, {"狼": "守"})
    assert m72.state.last_words_granted == ["村乙", "灵"]
    with pytest.raises(NotYourSkillError):
        m72.apply(LeaveLastWords("守", "我是守卫"))


def test_last_words_are_published_next_day(m72: Game) -> None:
    to_day2(m72)
    vote_day(m72, {"狼": "村乙"})
    m72.apply(LeaveLastWords("村乙", "我是好人"))
    assert "村乙的遗言：我是好人" not in announcements(m72)
    night(m72)
    assert "村乙的遗言：我是好人" in announcements(m72, 3)


# -- red cards ---------------------------------------------------------------------------------


def test_red_card_in_m72_settles_after_the_vote(m72: Game) -> None:
    to_day2(m72)
    m72.apply(CastVote("狂甲", "占"))
    m72.eject("狂甲", "恶意破坏")
    assert "狂甲被红牌罚下" in announcements(m72, 2)  # 立即公示
    assert "狂甲" in m72.state.alive  # 出局结算在投票结算之后
    with pytest.raises(DeadActorError):
        m72.apply(CastVote("狂甲", "狐", is_change=True))
    m72.apply(CloseDay())
    assert out(m72) == ["占", "狂甲"]  # its ballot counted; then it went out
    assert m72.state.eliminations[1].cause == "red_card"
    assert "狂甲" not in m72.state.last_words_granted


def test_red_card_on_eliminated_character_is_recorded_only(m72: Game) -> None:
    to_day2(m72)
    vote_day(m72, {"狼": "村乙"})
    events = m72.eject("村乙", "诈尸")
    assert len(m72.state.cards) == 1 and m72.state.cards[0].already_out
    assert [e.character for e in m72.state.eliminations] == ["村乙"]
    assert len(events) == 1


def test_director_declares_faction_lost_with_red_card(m72: Game) -> None:
    to_day2(m72)
    m72.eject("狼", "作弊", faction_loses=True)
    # wolves lost; the fox lives -> 妖狐阵营 wins at once
    assert m72.state.ended and m72.state.winner == "foxes"


# -- winning and losing -----------------------------------------------------------------------


def test_wolves_win_at_half(m72: Game) -> None:
    to_night2(m72)
    for c in ["狂甲", "狂乙", "村甲", "村乙", "灵", "守", "大鸦"]:
        m72.eject(c, "测试")
    # 5 alive: 狼 幼 狐 占 小鸦 -> 2/5; one more
    assert not m72.state.ended
    m72.eject("小鸦", "测试")  # also villagers lose? 占 still lives
    assert m72.state.ended and m72.state.winner == "wolves"


def test_fox_wins_when_villagers_lose(m72: Game) -> None:
    to_night2(m72)
    for c in ["占", "灵", "守", "大鸦", "小鸦"]:
        m72.eject(c, "测试")
    assert m72.state.ended and m72.state.winner == "foxes"
    assert m72.state.results == {"wolves": "lose", "villagers": "lose", "foxes": "win"}


def test_villagers_win_when_wolves_and_fox_lost(m72: Game) -> None:
    to_night2(m72)
    m72.eject("狐", "测试")
    assert m72.state.lost == {"foxes": "狐狸出局"}
    m72.eject("狼", "测试")
    m72.eject("幼", "测试")
    assert m72.state.ended and m72.state.winner == "villagers"


def test_lose_first_then_win(m72: Game) -> None:
    # the last key villager and ≥ half wolves: villagers lose first, and the fox still lives,
    # so the fox wins although the wolves reached half
    to_night2(m72)
    for c in ["狂甲", "狂乙", "村乙", "灵", "守", "大鸦", "小鸦"]:
        m72.eject(c, "测试")
    assert not m72.state.ended
    m72.eject("占", "测试")
    assert m72.state.winner == "foxes"


def test_cannot_declare_the_last_faction_lost(m72: Game) -> None:
    m72.apply(DeclareFactionLost("foxes", "导演判负"))
    with pytest.raises(IllegalActionError):
        m72.apply(DeclareFactionLost("foxes", "again"))
    assert m72.state.lost == {"foxes": "导演判负"}


# -- illegal actions leave the game unchanged ---------------------------------------------------


@pytest.mark.parametrize(
    ("action", "error", "rule"),
    [
        (UseSkill("占", "divine", "狐"), WrongPhaseError, "skill_outside_night"),
        (CastVote("占", "无名氏"), Exception, "unknown_character"),
        (UseSkill("占", "succession", "狐"), IllegalActionError, "no_open_decision"),
        (EndNight(), WrongPhaseError, "not_night"),
        (DeadlinePassed(), IllegalActionError, "no_open_decision"),
    ],
)
def test_illegal_day_actions(m72: Game, action: object, error: type, rule: str) -> None:
    before, n = m72.state.snapshot(), len(m72.log)
    with pytest.raises(error) as err:
        m72.apply(action)  # type: ignore[arg-type]
    assert getattr(err.value, "rule", None) == rule
    assert m72.state.snapshot() == before and len(m72.log) == n


@pytest.mark.parametrize(
    ("action", "error", "rule"),
    [
        (CastVote("占", "狐"), WrongPhaseError, "vote_outside_day"),
        (UseSkill("村甲", "divine", "狐"), NotYourSkillError, "not_your_skill"),
        (UseSkill("占", "divine", "占"), InvalidTargetError, "divine_self"),
        (UseSkill("占", "divine", "村乙"), InvalidTargetError, "dead_target"),
        (UseSkill("村乙", "divine", "狐"), DeadActorError, "dead_actor"),
        (UseSkill("狼", "extra_kill", "狐"), SkillUsedUpError, "no_incite"),
        (UseSkill("狼", "kill", None), InvalidTargetError, "target_required"),
    ],
)
def test_illegal_night_actions(m72: Game, action: object, error: type, rule: str) -> None:
    to_day2(m72)
    vote_day(m72, {"狼": "村乙"})
    before, n = m72.state.snapshot(), len(m72.log)
    with pytest.raises(error) as err:
        m72.apply(action)  # type: ignore[arg-type]
    assert getattr(err.value, "rule", None) == rule
    assert m72.state.snapshot() == before and len(m72.log) == n


def test_dead_character_cannot_vote_or_be_voted(m72: Game) -> None:
    to_day2(m72)
    vote_day(m72, {"狼": "村乙"})
    night(m72)
    with pytest.raises(DeadActorError):
        m72.apply(CastVote("村乙", "狼"))
    with pytest.raises(InvalidTargetError):
        m72.apply(CastVote("狼", "村乙"))


def test_skill_once_per_night(m72: Game) -> None:
    to_day2(m72)
    vote_day(m72, {})
    m72.apply(UseSkill("占", "divine", "狼"))
    with pytest.raises(SkillUsedUpError):
        m72.apply(UseSkill("占", "divine", "幼"))


def test_missed_night_deadline_means_no_action(m72: Game) -> None:
    to_day2(m72)
    vote_day(m72, {})
    night(m72)  # nobody acted: 视为放弃技能行使
    assert out(m72) == [] and m72.state.day == 3


def test_no_vote_change_while_accelerated(m72: Game) -> None:
    from game_rules import ScheduleDay

    m72.apply(CastVote("狼", "占"))
    m72.apply(ScheduleDay(accelerated=True))
    with pytest.raises(IllegalActionError) as err:
        m72.apply(CastVote("狼", "狐", is_change=True))
    assert err.value.rule == "accelerated"
