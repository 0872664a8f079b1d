"""What a game script can say beyond ballots and skills: posts and the service's 潜水 / 未投票
yellows, 加速 requests, fixed-card breaches, 004 couples, 决战 kills after the agreement, 诈尸
notes and the private notices (docs/game-script.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from game_rules import ScriptError
from game_rules.cli import replay_main
from game_rules.script import replay_file, run_script
from game_rules.shorthand import M08_ROLES, M72_ROLES
from game_rules.wa004.events import CouplesDrawn

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def script(ruleset: str, roles: dict[str, str], days: list[dict[str, Any]], **top: Any) -> Any:
    return run_script({"ruleset": ruleset, "seed": "s", "players": list(roles), "roles": roles,
                       "days": days, **top})  # fmt: skip


def requests(names: list[str], at: str | None = None) -> list[dict[str, Any]]:
    timed = {"at": at} if at else {}
    return [{**timed, "request_acceleration": {"by": n}} for n in names]


def accelerated(result: Any) -> bool:
    return any("：加速（" in n for n in result.notes)


# -- the example ------------------------------------------------------------------------------


def test_m08_night_end_example_replays_to_its_outcome() -> None:
    """examples/m08_night_end.yaml: as its header says."""
    result = replay_file(EXAMPLES / "m08_night_end.yaml")
    assert result.failures == []
    outcome = result.game.outcome()
    assert outcome.winner == "wolves" and result.game.state.phase == "ended"
    assert [e.cause for e in outcome.eliminations] == ["kill", "red_card", "vote", "kill", "shot"]
    notes = "\n".join(result.notes)
    assert "花阳：黄牌（判罚依据5(1)：潜水（第1日3帖）" in notes
    assert "梨子：黄牌（判罚依据5(2)：第1日未投票" in notes
    assert "诈尸：千歌已出局" in notes and "判罚依据第6条（发贴与诈尸）（1）" in notes
    assert "梨子：红牌（串号：判罚依据第9条（串号）" in notes
    assert "申请加速5人，存活9人：加速" in notes
    # 进程加速以前: day 2 (accelerated) carded nobody for its posts or votes
    assert result.cards() == {"花阳": "黄牌1张", "梨子": "黄牌1张、红牌1张"}


# -- 潜水 and 未投票 -----------------------------------------------------------------------------


def test_m72_lurking_and_no_vote_yellows_at_the_close() -> None:
    """M72「5、潜水（以下行为均固定判罚一张“黄牌”）（1）在未执行加速的讨论日不足五帖……（3）在未执行
    加速的讨论日未投票」, judged at each close as the service does."""
    votes = [{"vote": {"by": c, "target": "村甲"}} for c in M72_ROLES if c != "狐"]
    result = script(
        "m72", M72_ROLES, [{"day": 1, "posts": {"*": 8, "狼": 4}, "steps": votes}], activity=True
    )
    assert result.cards() == {"狼": "黄牌1张", "狐": "黄牌1张"}
    assert any("狼：黄牌（判罚依据5(1)：潜水（第1日4帖）" in n for n in result.notes)
    assert any("狐：黄牌（判罚依据5(3)：第1日未投票" in n for n in result.notes)


def test_activity_is_not_judged_on_an_accelerated_m72_day() -> None:
    """M72「执行加速时，所有人不可改票，且发言不足或未投票者将不被判罚」."""
    steps = [{"accelerate": True}]
    result = script("m72", M72_ROLES, [{"day": 1, "posts": {"*": 0}, "steps": steps}],
                    activity=True)  # fmt: skip
    assert result.cards() == {}


def test_three_yellows_from_lurking_make_a_red_card() -> None:
    """M72「累计三张“黄牌”合并为一张“红牌”」: the third fixed yellow ejects after the tally."""
    days = [
        {"day": d, "posts": {"*": 12, "村乙": 1}, "steps": [
            {"vote": {"by": c, "target": "狼" if d > 1 else "村甲"}} for c in M72_ROLES
            if c not in {"村乙", "狼"}
        ], "night": []}
        for d in (1, 2)
    ]  # fmt: skip
    days[1]["steps"].append({"card": {"character": "村乙", "colour": "黄牌", "reason": "讨论替补"}})
    result = script("m72", M72_ROLES, days, activity=True)
    assert "村乙" not in result.game.state.alive
    assert result.game.state.eliminations[-1].cause == "red_card"
    assert result.cards()["村乙"] == "红牌1张（由三张黄牌升级）"


# -- 加速 ----------------------------------------------------------------------------------------


def test_m72_acceleration_at_least_half_before_1800() -> None:
    """M72「当日申请人数在讨论日结束三个小时前（一般为最后一个自然日的18:00）大于等于存活人数的一半，
    即判定加速……成功」: 6 of 12 is enough; a request after 19:00 (close 22:00) is not counted."""
    names = list(M72_ROLES)
    day = {"day": 1, "date": "2026-11-02", "closes": "22:00"}
    on = script("m72", M72_ROLES, [{**day, "steps": requests(names[:6], at="15:00")}])
    assert accelerated(on)
    late = requests(names[:5], at="15:00") + requests(names[5:6], at="19:30")
    off = script("m72", M72_ROLES, [{**day, "steps": late}])
    assert not accelerated(off) and any("申请加速已过时限" in n for n in off.notes)


def test_m08_acceleration_needs_more_than_half() -> None:
    """M08「若过半数的玩家通过QQ私聊法官申请加速，则游戏进程加速」: 5 of 10 is not 过半数."""
    first = {"day": 1, "steps": [], "night": [
        {"skill": {"by": w, "use": "leader_vote", "target": "狼A"}}
        for w in ("狼A", "狼B", "狼C", "狼D")
    ] + [{"skill": {"by": "狼A", "use": "propose", "target": "村4", "reason": "刀你"}},
         {"skill": {"by": "狼A", "use": "kill", "target": "村4"}}]}  # fmt: skip
    living = [c for c in M08_ROLES if c != "村4"]
    half = script("m08", M08_ROLES, [first, {"day": 2, "steps": requests(living[:5])}])
    assert not accelerated(half)
    more = script("m08", M08_ROLES, [first, {"day": 2, "steps": requests(living[:6])}])
    assert accelerated(more)


def test_wa004_acceleration_needs_more_than_half() -> None:
    """004「如果在进程帖中申请加速的玩家超过所有存活玩家的二分之一则游戏进程加速」."""
    roles, couples, loves = wa004_cast()
    setup = [{"skill": {"by": b, "use": "true_love", "target": "N"}} for b in loves]
    names = list(roles)
    six = run_script(wa004_script(roles, couples, setup, requests(names[:6])))
    assert not accelerated(six)
    seven = run_script(wa004_script(roles, couples, setup, requests(names[:7])))
    assert accelerated(seven)


# -- breaches whose card the seed fixes ----------------------------------------------------------


def test_m08_chuanhao_breach_is_a_red_card() -> None:
    """M08「9、串号（1）禁止两名或多名玩家使用同一账号或QQ号交替发言或投票」「此类行为直接判作
    红牌」."""
    step = {"card": {"character": "村2", "breach": "串号"}}
    result = script("m08", M08_ROLES, [{"day": 1, "steps": [step]}])
    assert result.game.state.eliminations[0].character == "村2"
    assert result.game.state.eliminations[0].cause == "red_card"
    assert result.cards() == {"村2": "红牌1张"}
    wrong = {"card": {"character": "村2", "breach": "串号", "colour": "黄牌"}}
    with pytest.raises(ScriptError, match="固定判作红牌"):
        script("m08", M08_ROLES, [{"day": 1, "steps": [wrong]}])


def test_a_breach_without_a_fixed_card_needs_a_colour() -> None:
    """004「10、串号」 fixes no card (the director judges): the script must give the colour."""
    roles, couples, loves = wa004_cast()
    setup = [{"skill": {"by": b, "use": "true_love", "target": "N"}} for b in loves]
    bare = [{"card": {"character": "B1", "breach": "串号"}}]
    with pytest.raises(ScriptError, match="没有固定的判罚"):
        run_script(wa004_script(roles, couples, setup, bare))
    given = [{"card": {"character": "B1", "breach": "串号", "colour": "黄牌"}}]
    assert run_script(wa004_script(roles, couples, setup, given)).cards() == {"B1": "黄牌1张"}
    m72_breach = {"card": {"character": "狼", "breach": "串号"}}
    with pytest.raises(ScriptError, match="没有「串号」一条"):  # M72 has no such article
        script("m72", M72_ROLES, [{"day": 1, "steps": [m72_breach]}])


# -- 004 couples -------------------------------------------------------------------------------


def wa004_cast() -> tuple[dict[str, str], list[list[str]], list[str]]:
    betrayers = [f"B{i}" for i in range(1, 7)]
    guardians = [f"G{i}" for i in range(1, 7)]
    roles = {**dict.fromkeys(betrayers, "betrayer"), **dict.fromkeys(guardians, "guardian")}
    roles["N"] = "noble"
    return roles, [[b, g] for b, g in zip(betrayers, guardians, strict=True)], betrayers


def wa004_script(roles: Any, couples: Any, setup: Any, steps: Any) -> dict[str, Any]:
    return {"ruleset": "wa004", "seed": "s", "players": list(roles), "roles": roles,
            "couples": couples, "setup": setup, "days": [{"day": 1, "steps": steps}]}  # fmt: skip


def test_wa004_couples_are_written_down() -> None:
    """004「游戏开始时，除单身贵族（1人）以外的角色两个一组随机被连为情侣」: the pairs the director
    drew, as the script writes them."""
    roles, couples, loves = wa004_cast()
    setup = [{"skill": {"by": b, "use": "true_love", "target": "N"}} for b in loves]
    game = run_script(wa004_script(roles, couples, setup, [])).game
    drawn = next(e for e in game.log if isinstance(e, CouplesDrawn))
    assert [list(p) for p in drawn.couples] == couples


def test_wa004_couples_must_pair_everyone_but_the_noble() -> None:
    roles, couples, _ = wa004_cast()
    with_noble = [*couples[:-1], ["B6", "N"]]
    with pytest.raises(ScriptError, match="单身贵族不能有情侣"):
        run_script(wa004_script(roles, with_noble, [], []))


# -- 决战 --------------------------------------------------------------------------------------


def test_m08_duel_kills_come_after_the_agreement() -> None:
    """M08「决战 —— ……若过半数同意，则执行轮次决胜」, then 「狼人可以在夜晚连续提交之后三天的
    刀法」: kills before the majority are refused; after it, they are judged at once."""
    night = [{"skill": {"by": w, "use": "leader_vote", "target": "狼A"}}
             for w in ("狼A", "狼B", "狼C", "狼D")]  # fmt: skip
    night += [
        {"skill": {"by": "狼A", "use": "duel"}},
        {"skill": {"by": "狼A", "use": "duel_kills", "choice": "预,巫,猎"},
         "expect_error": "duel_not_agreed"},
        {"skill": {"by": "狼B", "use": "duel_agree", "choice": "yes"}},
        {"skill": {"by": "狼C", "use": "duel_agree", "choice": "yes"}},  # 3 of 4: 过半数
        {"skill": {"by": "狼A", "use": "duel_kills", "choice": "预,巫,猎"}},
    ]  # fmt: skip
    result = script("m08", M08_ROLES, [{"day": 1, "steps": [], "night": night}])
    game = result.game
    assert game.state.ended and game.state.winner == "villagers"  # 女巫仍未使用过救药
    assert "狼人阵营发动<决战>，执行轮次决胜" in [a.text for a in game.public_view().announcements]


# -- 诈尸 --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "roles", "article"),
    [
        (
            "m72",
            M72_ROLES,
            "判罚依据第6条（账号回帖）（2）：已出局角色在讨论帖、投票帖、进程帖中发言",
        ),
        ("m08", M08_ROLES, "判罚依据第6条（发贴与诈尸）（1）：禁止在游戏期间已出局角色在讨论贴"),
    ],
)
def test_a_dead_characters_vote_post_is_flagged_as_zombie(
    ruleset: str, roles: dict[str, str], article: str
) -> None:
    """M72「（2）已出局角色在讨论帖、投票帖、进程帖中发言（即“诈尸”）」;
    M08「6、发贴与诈尸（1）」."""
    victim = next(iter(roles))
    day1 = {"day": 1, "steps": [{"eject": {"character": victim, "cause": "恶意破坏"}}], "night": []}
    post = {"post": {"by": victim, "text": "投票对象：弃权\n投票理由：不服"}}
    result = script(ruleset, roles, [day1, {"day": 2, "steps": [post]}])
    zombie = [n for n in result.notes if "诈尸" in n]
    assert len(zombie) == 1 and f"{victim}已出局" in zombie[0] and article in zombie[0]


# -- private notices -----------------------------------------------------------------------------


def test_json_private_output_holds_the_private_notices(capsys: pytest.CaptureFixture[str]) -> None:
    """``--json --private``: what each character was told, by day; the crows are told only 乌鸦
    (M72「※收到的身份都是乌鸦，不知道自己是大乌鸦还是小乌鸦」)."""
    assert replay_main([str(EXAMPLES / "m72.yaml"), "--json", "--private"]) == 0
    data = json.loads(capsys.readouterr().out)
    roles = {t["to"][0]: t["text"] for t in data["told"]["0"] if t["kind"] == "role"}
    assert roles["豆瓣"] == roles["优酷"] == "你的身份：乌鸦"
    assert any(t["kind"] == "team" for t in data["told"]["0"])
    assert replay_main([str(EXAMPLES / "m72.yaml"), "--json"]) == 0
    assert "told" not in json.loads(capsys.readouterr().out)  # never without --private


def test_text_replay_prints_the_final_night_under_its_own_heading(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A game that ends at night: that night's 公示 follow the day's, under ``-- 夜晚 --``."""
    assert replay_main([str(EXAMPLES / "m08_night_end.yaml")]) == 0
    out = capsys.readouterr().out
    day2 = out[out.index("== 第2天 ==") : out.index("== 备注 ==")]
    night = day2[day2.index("-- 夜晚 --") :].splitlines()
    assert [line.strip() for line in night[1:3]] == [
        "夜晚出局角色：凛、花阳",
        "狼人阵营胜利，游戏结束（狼人阵营存活的人数占总存活人数的一半或一半以上）",
    ]
    assert day2.index("妮可被投票出局") < day2.index("-- 夜晚 --")


def test_bad_post_counts_are_a_script_error() -> None:
    with pytest.raises(ScriptError, match="not a post count"):
        script("m72", M72_ROLES, [{"day": 1, "posts": {"狼": "many"}, "steps": []}], activity=True)
