"""Game scripts and ``bansha replay``: the examples replay to their documented outcome."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from game_rules import ScriptError
from game_rules.cli import replay_main
from game_rules.events import DecisionClosed, DecisionOpened
from game_rules.script import replay_file, run_script
from game_rules.wa004.couples import couples, lover_of
from game_rules.wa004.events import NightJudged
from game_rules.wa004.views import love_view

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def test_m72_example_replays_to_its_outcome() -> None:
    result = replay_file(EXAMPLES / "m72.yaml")
    assert result.failures == []
    outcome = result.game.outcome()
    assert outcome.winner == "villagers"
    assert [e.character for e in outcome.eliminations] == ["抖音", "微博", "淘宝", "百度", "微信"]
    assert [e.cause for e in outcome.eliminations] == [
        "divined",
        "vote",
        "red_card",
        "kill",
        "vote",
    ]
    assert outcome.seed == "m72-example-2026-11"
    assert any("废票" in n for n in result.notes)  # 滴滴's vote without a reason
    assert any("超过行动时限" in n for n in result.notes)  # the late crow
    # 淘宝's three yellow cards merged into a red one: 红牌罚下 (cards numbered from 1)
    assert result.cards() == {"淘宝": "红牌1张（由三张黄牌升级）"}
    assert any("三张黄牌（#1、#2、#3）升级为一张红牌（#4）" in n for n in result.notes)
    # day 3: 4 of 8 living ask before 18:00 (大于等于存活人数的一半); the fifth asks too late
    assert any("申请加速4人，存活8人：加速" in n for n in result.notes)
    assert any("豆瓣申请加速已过时限，不计入" in n for n in result.notes)


def test_m08_example_replays_to_its_outcome() -> None:
    result = replay_file(EXAMPLES / "m08.yaml")
    assert result.failures == []
    outcome = result.game.outcome()
    assert outcome.winner == "villagers"
    assert [e.cause for e in outcome.eliminations] == [
        "vote", "kill", "shot", "poison", "red_card", "vote",
    ]  # fmt: skip
    assert result.game.state.players["花阳"] == "新来的花阳"
    assert "希成为狼头（争权当选）" in result.game.character_view("绘里").messages()


def test_wa004_consent_example_replays_to_its_outcome() -> None:
    """examples/wa004_consent.yaml: the three 牛头人 questions end as its header says."""
    result = replay_file(EXAMPLES / "wa004_consent.yaml")
    game = result.game
    assert result.failures == [] and result.notes == []
    outcome = game.outcome()
    assert outcome.winner == "guardians"
    assert outcome.reason == "第3个游戏夜晚没有情侣解除情侣状态或者处于情侣状态的角色出局"
    assert [(e.character, e.cause) for e in outcome.eliminations] == [
        ("森川由绮", "vote"),
        ("杉浦小春", "barbecue"),
        ("七濑彰", "martyr"),
        ("饭塚武也", "vote"),
        ("河岛遥", "barbecue"),
    ]
    # one question per night, answered 同意, 不同意, and not at all (the director's deadline);
    # 饭塚武也's answer for 北原春希 was refused (expect_error) and closed nothing
    opened = [(e.day, e.actor) for e in game.log if isinstance(e, DecisionOpened)]
    closed = [
        (e.actor, e.result, e.how)
        for e in game.log
        if isinstance(e, DecisionClosed) and e.decision == "ntr_consent"
    ]
    assert opened == [(1, "北原春希"), (2, "北原春希"), (3, "和泉千晶")]
    assert closed == [
        ("北原春希", "yes", "chosen"),
        ("北原春希", "no", "chosen"),
        ("和泉千晶", "no", "deadline"),
    ]
    # 同意 changed the couple; 不同意 and the missed answer changed nothing
    assert couples(game.state) == [("冬马和纱", "北原春希"), ("和泉千晶", "观月真奈美")]
    assert lover_of(game.state, "小木曾雪菜") is None and lover_of(game.state, "水泽依绪") is None
    assert "你与北原春希成为情侣" in love_view(game, "冬马和纱").messages
    assert "你与饭塚武也的情侣关系已解除" in love_view(game, "北原春希").messages
    # the users of the refused and the unanswered 牛头人 learn nothing of it
    assert not any("北原春希" in m for m in love_view(game, "小木曾雪菜").messages)
    assert not any("和泉千晶" in m for m in love_view(game, "水泽依绪").messages)
    assert "你未按时答复，视为不同意和水泽依绪成为情侣" in love_view(game, "和泉千晶").messages
    # the missed answer left night 3 quiet: that is the guardians' win
    judged = [(e.night, e.quiet) for e in game.log if isinstance(e, NightJudged)]
    assert judged == [(1, False), (2, False), (3, True)]


def test_wa004_consent_example_turns_on_the_missed_answer(tmp_path: Path) -> None:
    """Had 和泉千晶 answered 同意 on night 3, her couple would have ended and the game gone on."""
    text = (EXAMPLES / "wa004_consent.yaml").read_text(encoding="utf-8")
    agreed = "- {skill: {by: 和泉千晶, use: ntr_consent, choice: 同意}}"
    assert text.count("- {deadline: true}") == 1
    script = tmp_path / "agreed.yaml"
    script.write_text(text.replace("- {deadline: true}", agreed), encoding="utf-8")
    result = replay_file(script)
    assert not result.game.state.ended and result.game.state.day == 4
    assert lover_of(result.game.state, "和泉千晶") == "水泽依绪"
    assert result.failures == ["winner: expected guardians, got None"]


def test_replay_cli_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert replay_main([str(EXAMPLES / "m72.yaml")]) == 0
    out = capsys.readouterr().out
    assert "== 第2天 ==" in out and "村民阵营胜利" in out and "微博获得4票" in out


def test_replay_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert replay_main([str(EXAMPLES / "m08.yaml"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["outcome"]["winner"] == "villagers"
    assert "穗乃果当选警长" in doc["announcements"]["1"]


def test_replay_through_bansha_dispatcher(capsys: pytest.CaptureFixture[str]) -> None:
    from bansha.cli import main

    assert main(["replay", str(EXAMPLES / "m08.yaml")]) == 0
    assert "希被投票出局" in capsys.readouterr().out


def test_failed_expectation_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        (EXAMPLES / "m72.yaml")
        .read_text(encoding="utf-8")
        .replace("winner: villagers", "winner: wolves")
    )
    script = tmp_path / "wrong.yaml"
    script.write_text(text, encoding="utf-8")
    assert replay_main([str(script)]) == 1
    assert "winner: expected wolves, got villagers" in capsys.readouterr().out


BASE = """
ruleset: m08
seed: s
players: [A, B, C, D, E, F, G, H, I, J, K]
roles: {A: wolf, B: wolf, C: wolf, D: wolf, E: seer, F: witch, G: hunter}
"""


def write(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "game.yaml"
    p.write_text(BASE + body, encoding="utf-8")
    return p


def test_bad_step_names_file_line_and_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = write(
        tmp_path,
        """days:
  - day: 1
    steps:
      - {vote: {by: A, target: B}}
      - {skill: {by: E, use: divine, target: A}}
""",
    )
    with pytest.raises(ScriptError) as err:
        replay_file(p)
    assert f"{p}:10: day 1 step 2" in str(err.value)
    assert "skill_outside_night" in str(err.value)
    assert replay_main([str(p)]) == 2
    assert "day 1 step 2" in capsys.readouterr().err


def test_expect_error_lets_a_script_assert_a_rejection(tmp_path: Path) -> None:
    p = write(
        tmp_path,
        """days:
  - day: 1
    steps:
      - {skill: {by: E, use: divine, target: A}, expect_error: skill_outside_night}
""",
    )
    state = replay_file(p).game.state
    assert (state.phase, state.day) == ("night", 1)  # the day closed as usual


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("days: 5\n", "days must be a list"),
        ("days:\n  - {steps: []}\n", "each day needs 'day: N'"),
        ("days:\n  - day: 2\n", "not day 2"),
        ("days:\n  - day: 1\n    steps:\n      - {frob: 1}\n", "exactly one of"),
        (
            "days:\n  - day: 1\n    steps:\n      - {at: '12:00', vote: {by: A, target: B}}\n",
            "needs the day's 'date'",
        ),
        ("days:\n  - day: 1\n    steps:\n      - {vote: {by: A}}\n", "missing 'target'"),
    ],
)
def test_bad_scripts_are_clear_errors(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(ScriptError) as err:
        replay_file(write(tmp_path, body))
    assert message in str(err.value)


def test_unreadable_and_invalid_yaml(tmp_path: Path) -> None:
    with pytest.raises(ScriptError) as err:
        replay_file(tmp_path / "missing.yaml")
    assert "cannot read" in str(err.value)
    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleset: [m08\n", encoding="utf-8")
    with pytest.raises(ScriptError) as err:
        replay_file(bad)
    assert "not valid YAML" in str(err.value)


def test_open_decision_must_be_scripted(tmp_path: Path) -> None:
    p = write(
        tmp_path,
        """days:
  - day: 1
    steps:
      - {vote: {by: A, target: G}}
  - day: 2
    steps:
      - {vote: {by: A, target: G}}
    night: []
""",
    )
    with pytest.raises(ScriptError) as err:
        replay_file(p)
    assert "decisions still open" in str(err.value)


def test_script_mapping_without_players_is_an_error() -> None:
    with pytest.raises(ScriptError) as err:
        run_script({"ruleset": "m08"}, "inline")
    assert "missing key 'players'" in str(err.value)


def test_the_example_in_the_docs_replays(tmp_path: Path) -> None:
    doc = (ROOT / "docs" / "game-script.md").read_text(encoding="utf-8")
    block = doc.split("## Example", 1)[1].split("```yaml", 1)[1].split("```", 1)[0]
    script = tmp_path / "doc.yaml"
    script.write_text(block, encoding="utf-8")
    result = replay_file(script)
    assert result.failures == []
    assert [e.character for e in result.game.outcome().eliminations] == ["E"]


def test_cards_escalate_and_eject(tmp_path: Path) -> None:
    p = write(
        tmp_path,
        """days:
  - day: 1
    steps:
      - {card: {character: H, colour: 蓝牌, reason: 侮辱性语言}}
      - {card: {character: H, colour: blue, reason: 侮辱性语言}}
      - {card: {character: I, colour: 黄牌, reason: 马甲}}
      - {card: {character: H, colour: 蓝牌, reason: 侮辱性语言}}
""",
    )
    result = replay_file(p)
    assert result.cards() == {"H": "黄牌1张（由三张蓝牌升级）", "I": "黄牌1张"}
    assert result.game.state.alive >= {"H", "I"}


def test_red_card_step_ejects_and_bad_colour_is_an_error(tmp_path: Path) -> None:
    p = write(
        tmp_path,
        """days:
  - day: 1
    steps:
      - {card: {character: H, colour: 红牌, reason: 串号, article: "9(1)"}}
""",
    )
    result = replay_file(p)
    assert [(e.character, e.cause) for e in result.game.state.eliminations] == [("H", "red_card")]
    bad = write(
        tmp_path,
        "days:\n  - day: 1\n    steps:\n      - {card: {character: H, colour: 紫牌, reason: x}}\n",
    )
    with pytest.raises(ScriptError):
        replay_file(bad)


def test_replay_help_and_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert replay_main(["--help"]) == 0
    assert "bansha replay" in capsys.readouterr().out
    assert replay_main([]) == 2


def test_substitute_inherits_cards(tmp_path: Path) -> None:
    p = write(
        tmp_path,
        """days:
  - day: 1
    steps:
      - {card: {character: H, colour: 黄牌, reason: 潜水}}
      - {substitute: {character: H, player: 替补甲}}
      - {card: {character: H, colour: 黄牌, reason: 潜水}}
""",
    )
    result = replay_file(p)
    assert result.ledgers["H"].players[-1] == "替补甲"
    assert result.cards() == {"H": "黄牌2张"}
    assert result.game.state.players["H"] == "替补甲"


def test_replay_private_prints_what_each_character_was_told(
    capsys: pytest.CaptureFixture[str],
) -> None:
    question = "北原春希：牛头人（NTR）：是否同意和冬马和纱成为情侣？"
    assert replay_main([str(EXAMPLES / "wa004_consent.yaml")]) == 0
    public = capsys.readouterr().out
    assert question not in public and "私下告知" not in public
    assert replay_main([str(EXAMPLES / "wa004_consent.yaml"), "--private"]) == 0
    private = capsys.readouterr().out
    day1 = private[private.index("== 第1天 ==") : private.index("== 第2天 ==")]
    assert "  -- 私下告知 --" in day1 and f"  {question}" in day1
    assert "  冬马和纱：你与北原春希成为情侣" in day1
    # the public part is unchanged: every public line is still there, in the same order
    assert [line for line in private.splitlines() if line in public.splitlines()] == [
        line for line in public.splitlines()
    ]
