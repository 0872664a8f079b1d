"""The 公示 as each seed orders it, one test per rule per ruleset, quoting the line it enforces.

The wording of every fact is shared (game_rules/rulesets/common.announcements.yaml); which facts
a day opens with is each ruleset's ``day_opening``.
"""

from __future__ import annotations

from pathlib import Path

from game_rules import Game, new_game
from game_rules.actions import CastVote, CloseDay, EndNight, UseSkill
from game_rules.script import replay_file
from game_rules.shorthand import M08_ROLES, M72_ROLES, make_game, vote_day

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
M08_ALL = list(M08_ROLES)
M72_ALL = list(M72_ROLES)


def said(game: Game, day: int, phase: str | None = None) -> list[str]:
    return [
        a.text
        for a in game.public_view().announcements
        if a.day == day and (phase is None or a.phase == phase)
    ]


def m08_day2(sheriff: str = "村1", kill: str | None = None) -> Game:
    g = make_game("m08", M08_ROLES)
    vote_day(g, {c: sheriff for c in M08_ALL})
    for w in ("狼A", "狼B", "狼C", "狼D"):
        g.apply(UseSkill(w, "leader_vote", "狼A"))
    if kill is not None:
        g.apply(UseSkill("狼A", "propose", kill, reason="刀你"))
        g.apply(UseSkill("狼A", "kill", kill))
    g.apply(EndNight())
    return g


def m72_day2(sheriff: str = "村甲") -> Game:
    g = make_game("m72", M72_ROLES)
    vote_day(g, {c: sheriff for c in M72_ALL})
    g.apply(EndNight())
    return g


def wa004_day1() -> Game:
    betrayers = [f"B{i}" for i in range(1, 7)]
    guardians = [f"G{i}" for i in range(1, 7)]
    roles = {**dict.fromkeys(betrayers, "betrayer"), **dict.fromkeys(guardians, "guardian")}
    roles["N"] = "noble"
    couples = [[b, g] for b, g in zip(betrayers, guardians, strict=True)]
    g = new_game("wa004", list(roles), seed="an", roles=roles, params={"couples": couples})
    for b in betrayers:
        g.apply(UseSkill(b, "true_love", "N"))
    return g


# -- what each day opens with ---------------------------------------------------------------


def test_m08_day_opens_with_the_vote_the_night_the_sheriff_and_the_living() -> None:
    """M08「每个游戏日白天开始时，都会公示前一天因投票出局角色名单、夜晚出局角色名单、当日警长与
    存活角色状态」: all four, in that order, the vote's list even when nobody went out by vote."""
    g = m08_day2(kill="村4")
    living = "、".join(g.state.living())
    assert said(g, 2)[:4] == [
        "前一天无人投票出局",  # day 1 elects the sheriff: nobody out
        "夜晚出局角色：村4",
        "当日警长：村1",
        f"存活角色：{living}",
    ]
    vote_day(g, {"村1": "村3"})
    g.apply(EndNight())  # no kill: 夜晚无人出局
    assert said(g, 3)[:3] == ["前一天投票出局角色：村3", "夜晚无人出局", "当日警长：村1"]


def test_wa004_day_opens_with_the_vote_and_the_night() -> None:
    """004「进入下一天讨论日，公示前一天投票出局角色名单，昨晚出局角色名单」: only these two (no
    sheriff, no status list)."""
    g = wa004_day1()
    vote_day(g, {c: "B2" for c in g.state.living()})  # B2 out, G2 follows (殉情)
    g.apply(UseSkill("N", "barbecue", "B3"))
    g.apply(EndNight())
    assert said(g, 2)[:2] == ["前一天投票出局角色：B2", "夜晚出局角色：B3、G3"]
    assert not any(t.startswith(("当日警长", "存活角色")) for t in said(g, 2))


def test_m72_day_opens_with_the_previous_days_eliminations_in_order() -> None:
    """M72「每个游戏日白天开始时，公示前一天出局角色名单……公示出局名单时按角色出局的顺序排序」:
    one list, the vote, the red card settled after it and the night's kill, in that order."""
    game = replay_file(EXAMPLES / "m72.yaml").game
    assert said(game, 3)[0] == "前一天出局角色：微博、淘宝、百度"
    assert said(game, 2)[0] == "前一天出局角色：抖音"  # the fox divined on night 1


# -- what is announced at once ----------------------------------------------------------------


def test_m08_vote_triggered_shot_and_succession_are_announced_at_once() -> None:
    """M08「投票结束后，因投票而触发的警长<殉职>、猎人<最后一枪>立即公示」 (猎人警长依次发动
    <最后一枪>、<殉职>): both on the day of the vote, not at the next day's start."""
    g = m08_day2(sheriff="猎")
    vote_day(g, {"狼A": "猎", "狼B": "猎"})
    g.apply(UseSkill("猎", "shoot", "村2"))
    g.apply(UseSkill("猎", "succession", "预"))
    assert said(g, 2, "day")[-3:] == [
        "猎被投票出局",
        "猎发动<最后一枪>，村2出局",
        "猎<殉职>，预继任警长",
    ]
    assert g.state.phase == "night"


def test_m72_red_card_is_announced_at_once() -> None:
    """M72「立即公示以下原因出局角色的名单：红牌罚下」: by day, before the tally that settles it."""
    g = m72_day2()
    g.eject("村乙", "恶意破坏")
    assert said(g, 2)[-1] == "村乙被红牌罚下"
    g.apply(CloseDay())
    day2 = said(g, 2)
    assert day2.index("村乙被红牌罚下") < day2.index("无人出局")


def test_m08_and_wa004_red_card_is_announced_when_given() -> None:
    """M08/004「白天红牌罚下在被投票出局之前」: the card is announced as it is given."""
    g = m08_day2()
    g.eject("村2", "恶意破坏")
    assert said(g, 2)[-1] == "村2被红牌罚下"
    w = wa004_day1()
    w.eject("B1", "恶意破坏")
    assert said(w, 1)[-2:] == ["B1被红牌罚下", "G1出局"]  # and the lover's 殉情 at once


# -- the tally ------------------------------------------------------------------------------


def test_m08_tally_leaves_out_a_character_red_carded_before_the_vote() -> None:
    """M08「白天红牌罚下在被投票出局之前」; 「已经公示的出局角色不属于游戏范畴，不允许被选为技能或
    投票的目标」: votes on the red-carded character count for nobody and are not listed."""
    g = m08_day2()
    for voter in ("狼A", "狼B", "狼C"):
        g.apply(CastVote(voter, "村2"))
    g.apply(CastVote("预", "村3"))
    g.apply(CastVote("巫", "村3"))
    g.eject("村2", "恶意破坏")
    g.apply(CloseDay())
    tally = [a.text for a in g.public_view().announcements if a.kind == "tally"][-1]
    assert tally == "村3获得2票"
    assert said(g, 2)[-2:] == ["村3获得2票", "村3被投票出局"]


def test_wa004_tally_leaves_out_a_character_red_carded_before_the_vote() -> None:
    """004「白天红牌罚下在被投票出局之前」; 「已经公示的出局角色……不允许被选为技能或投票的目标」."""
    g = wa004_day1()
    for voter in ("B3", "B4", "B5"):
        g.apply(CastVote(voter, "B1"))
    g.apply(CastVote("G3", "B2"))
    g.eject("B1", "恶意破坏")
    g.apply(CloseDay())
    tally = [a.text for a in g.public_view().announcements if a.kind == "tally"][-1]
    assert tally == "B2获得1票"
    assert "B2被投票出局" in said(g, 1)


def test_m72_tally_still_counts_a_character_red_carded_by_day() -> None:
    """M72「白天红牌罚下导致的出局结算在投票结算之后执行」: the contrast — the carded character is
    still a target when the votes are counted."""
    g = m72_day2()
    for voter in ("狼", "幼", "狂甲"):
        g.apply(CastVote(voter, "村乙"))
    g.apply(CastVote("占", "狂乙"))
    g.eject("村乙", "恶意破坏")
    g.apply(CloseDay())
    assert [a.text for a in g.public_view().announcements if a.kind == "tally"][-1] == (
        "村乙获得3票\n狂乙获得1票"
    )


def test_m08_abstentions_are_counted_in_characters() -> None:
    """M08「每人一票，允许弃权，弃权也需要发投票贴，并计为一次投票」: the 1.5-vote sheriff's 弃权 is
    one character's."""
    g = m08_day2(sheriff="村1")
    g.apply(CastVote("村1", None))
    g.apply(CastVote("村2", None))
    g.apply(CastVote("狼A", "村3"))
    g.apply(CloseDay())
    assert [a.text for a in g.public_view().announcements if a.kind == "tally"][-1] == (
        "村3获得1票\n弃权2票"
    )


def test_m72_abstentions_are_counted_in_characters() -> None:
    """M72「投弃权票时，须在投票对象中填写“弃权”」, the tally 「以XX获得X票的形式」: the 2-vote
    sheriff abstaining is 弃权1票."""
    g = m72_day2(sheriff="村甲")
    g.apply(CastVote("村甲", None))
    g.apply(CastVote("狼", "狂甲"))
    g.apply(CloseDay())
    assert [a.text for a in g.public_view().announcements if a.kind == "tally"][-1] == (
        "狂甲获得1票\n弃权1票"
    )


def test_wa004_abstentions_are_counted_in_characters() -> None:
    """004「每人一票，允许弃权，弃权也需要发投票帖，并计为一次投票」."""
    g = wa004_day1()
    for voter in ("B1", "B2", "B3"):
        g.apply(CastVote(voter, None))
    g.apply(CastVote("G1", "B4"))
    g.apply(CloseDay())
    assert [a.text for a in g.public_view().announcements if a.kind == "tally"][-1] == (
        "B4获得1票\n弃权3票"
    )


# -- the end --------------------------------------------------------------------------------


def test_m08_game_ending_at_night_announces_that_nights_deaths_and_the_reason() -> None:
    """M08「夜晚出局的角色将在白天开始时公示」, but 「游戏状态满足某阵营胜利条件之一，游戏立即结束，
    宣布此阵营胜利」: no day follows, so the night's deaths come with the win and its reason."""
    game = replay_file(EXAMPLES / "m08_night_end.yaml").game
    assert said(game, 2, "night") == [
        "夜晚出局角色：凛、花阳",
        "狼人阵营胜利，游戏结束（狼人阵营存活的人数占总存活人数的一半或一半以上）",
        "随机种子公开：m08-night-end-2026-11",
    ]


def test_m72_game_ending_at_night_announces_that_nights_deaths_and_the_reason() -> None:
    """M72「夜晚期间需要公示的内容全部在下一个白天开始时公布」, and 「某未判负阵营满足其胜利条件
    之一……宣布此阵营胜利、游戏结束」: the last key role killed at night, the fox wins then and
    there."""
    g = m72_day2()
    for c in ("灵", "守", "大鸦", "小鸦"):
        g.eject(c, "恶意破坏")
    g.apply(CloseDay())
    g.apply(UseSkill("狼", "kill", "占"))
    g.apply(EndNight())
    assert g.state.ended and g.state.winner == "foxes"
    assert said(g, 2, "night")[:2] == [
        "夜晚出局角色：占",
        "妖狐阵营胜利，游戏结束（村民阵营/狼人阵营有任意一方判负时，狐狸存活）",
    ]


def test_wa004_game_ending_at_night_announces_the_night_and_the_reason() -> None:
    """004「游戏状态满足某阵营胜利条件之一，游戏立即结束，宣布此阵营胜利」: night 4 of the example
    ends the game as it starts (nobody out that night), with the seed's win condition."""
    game = replay_file(EXAMPLES / "wa004.yaml").game
    assert said(game, 4, "night")[:2] == [
        "夜晚无人出局",
        "变节者阵营胜利，游戏结束（所有存活的变节者都与其真爱对象成为情侣）",
    ]


def test_a_game_ending_by_day_gives_the_reason_too() -> None:
    """M08「宣布此阵营胜利」: the reason is the seed's win condition that was met."""
    game = replay_file(EXAMPLES / "m08.yaml").game
    assert "村民阵营胜利，游戏结束（狼人阵营的角色全部出局）" in said(game, 3)
