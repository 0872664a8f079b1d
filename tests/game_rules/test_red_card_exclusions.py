"""What a red card takes away, per ruleset: one test per exclusion the seeds write.

Each test red-cards the character by day, where the same elimination by vote would open the
right, and checks that it does not; removing the ``cause`` check it names makes it fail.
"""

from __future__ import annotations

from game_rules import Game, new_game
from game_rules.actions import CastVote, CloseDay, EndNight, UseSkill
from game_rules.events import DecisionOpened, LastWordsGranted
from game_rules.shorthand import M08_ROLES, M72_ROLES, make_game, vote_day

M08_ALL = list(M08_ROLES)
M72_ALL = list(M72_ROLES)


def opened(game: Game, character: str) -> list[str]:
    return [e.decision for e in game.log if isinstance(e, DecisionOpened) and e.actor == character]


def granted(game: Game, character: str) -> bool:
    return any(isinstance(e, LastWordsGranted) and e.character == character for e in game.log)


def m08_day2(sheriff: str = "村1", leader: str = "狼A") -> Game:
    g = make_game("m08", M08_ROLES)
    vote_day(g, {c: sheriff for c in M08_ALL})
    for w in ("狼A", "狼B", "狼C", "狼D"):
        g.apply(UseSkill(w, "leader_vote", leader))
    g.apply(EndNight())
    assert g.state.phase == "day" and g.state.day == 2
    return g


def m72_day2(sheriff: str = "村甲") -> Game:
    g = make_game("m72", M72_ROLES)
    vote_day(g, {c: sheriff for c in M72_ALL})
    g.apply(EndNight())
    return g


# -- M08: 红牌罚下出局的角色没有遗言权利，不能发动以下技能：猎人<最后一枪>、警长<殉职>。


def test_m08_voted_out_hunter_shoots_but_red_carded_one_does_not() -> None:
    """M08「当猎人并非因红牌罚下而出局后，猎人可以选择一名其他角色，对其开枪」."""
    voted = m08_day2()
    vote_day(voted, {"狼A": "猎", "狼B": "猎"})
    assert opened(voted, "猎") == ["shoot"]
    carded = m08_day2()
    carded.eject("猎", "恶意破坏")
    assert opened(carded, "猎") == [] and not carded.state.decisions
    carded.apply(CloseDay())
    assert carded.state.phase == "night"  # nothing waits for a shot


def test_m08_red_carded_sheriff_has_no_succession() -> None:
    """M08「殉职<强制> —— 警长并非因为红牌罚下而出局后，须选择……」;
    「红牌罚下的警长随机指定下任」."""
    g = m08_day2(sheriff="村1")
    g.eject("村1", "恶意破坏")
    assert opened(g, "村1") == []
    assert g.state.sheriff in g.state.alive and g.state.sheriff != "村1"


def test_m08_red_carded_leader_has_no_succession() -> None:
    """M08「传位<强制> —— 狼头并非因为红牌罚下而出局后，须选择一名未出局的狼人来继任狼头」;
    「狼头因罚下而出局后，下任狼头将被随机指定」."""
    g = m08_day2(leader="狼A")
    g.eject("狼A", "恶意破坏")
    assert opened(g, "狼A") == []
    leader = g.state.flags.get("leader")
    assert leader in {"狼B", "狼C", "狼D"}


def test_m08_red_carded_character_has_no_last_words() -> None:
    """M08「红牌罚下出局的角色没有遗言权利」."""
    g = m08_day2()
    g.eject("村2", "恶意破坏")
    vote_day(g, {"狼A": "村3"})
    assert granted(g, "村3") and not granted(g, "村2")


# -- M72 ------------------------------------------------------------------------------------


def test_m72_red_carded_sheriff_has_no_succession() -> None:
    """M72「殉职<强制> —— 警长并非因为罚下而出局后，须选择……」; 「警长因红牌罚下而出局后，下任警长将
    被随机指定」."""
    g = m72_day2(sheriff="村甲")
    g.eject("村甲", "恶意破坏")
    g.apply(CloseDay())  # M72: 白天红牌罚下导致的出局结算在投票结算之后执行
    assert opened(g, "村甲") == []
    assert g.state.sheriff in g.state.alive and g.state.sheriff != "村甲"


def test_m72_red_carded_character_has_no_last_words() -> None:
    """M72「靠前出局且可以留下遗言的角色会收到可以留下遗言的通知」: a red card is no such exit
    (docs/rulings/m72.md); the quota goes to the next character out."""
    g = m72_day2()
    g.eject("村乙", "恶意破坏")
    g.apply(CastVote("狼", "狂甲"))
    g.apply(CloseDay())
    assert not granted(g, "村乙") and granted(g, "狂甲")


def test_m72_red_carded_cub_gives_no_incite() -> None:
    """M72「激励<强制> —— 当幼狼并非因红牌罚下而出局后，仅限下一个夜晚，狼人可以再使用一次
    <杀人>」 (the options, as the console lists them)."""
    g = m72_day2()
    g.eject("幼", "恶意破坏")
    g.apply(CloseDay())
    g.apply(UseSkill("狼", "kill", "村乙"))
    assert "extra_kill" not in {a.skill for a in g.legal_actions("狼") if isinstance(a, UseSkill)}


# -- 004 ------------------------------------------------------------------------------------


def wa004_day1() -> Game:
    """A 004 game at day 1: B1–G1 … B6–G6 are couples, N is the 单身贵族, every 变节者 loves N."""
    betrayers = [f"B{i}" for i in range(1, 7)]
    guardians = [f"G{i}" for i in range(1, 7)]
    roles = {**dict.fromkeys(betrayers, "betrayer"), **dict.fromkeys(guardians, "guardian")}
    roles["N"] = "noble"
    couples = [[b, g] for b, g in zip(betrayers, guardians, strict=True)]
    g = new_game("wa004", list(roles), seed="rc", roles=roles, params={"couples": couples})
    for b in betrayers:
        g.apply(UseSkill(b, "true_love", "N"))
    assert g.state.phase == "day" and g.state.day == 1
    return g


def test_wa004_red_carded_character_has_no_last_words() -> None:
    """004「所有出局角色都有遗言机会」, read with its red card (docs/rulings/wa004.md R17): the
    red-carded character has none; its lover's 殉情 and the voted-out keep theirs."""
    g = wa004_day1()
    g.eject("B1", "恶意破坏")
    assert [e.character for e in g.state.eliminations] == ["B1", "G1"]  # 殉情 follows (R16)
    vote_day(g, {c: "B2" for c in g.state.living()})
    assert not granted(g, "B1")
    assert granted(g, "G1") and granted(g, "B2")
