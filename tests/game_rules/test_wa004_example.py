"""examples/wa004.yaml replays to its documented outcome (see the comment at its top)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from game_rules.events import Eliminated, RoleChanged
from game_rules.game import Game
from game_rules.script import replay_file
from game_rules.wa004.couples import couples, true_love_of
from game_rules.wa004.views import love_view

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "wa004.yaml"


def test_example_replays_to_its_documented_outcome() -> None:
    result = replay_file(EXAMPLE)
    game = result.game
    assert result.failures == []
    outcome = game.outcome()
    assert outcome.winner == "betrayers"
    assert outcome.results == {"betrayers": "win", "guardians": "lose", "nobles": "lose"}
    assert outcome.reason == "所有存活的变节者都与其真爱对象成为情侣"
    causes = [(e.character, e.cause) for e in game.log if isinstance(e, Eliminated)]
    assert causes == [
        ("水泽依绪", "vote"),
        ("观月真奈美", "martyr"),
        ("森川由绮", "barbecue"),
        ("七濑彰", "martyr"),
        ("杉浦小春", "red_card"),
        ("藤井冬弥", "barbecue"),
        ("和泉千晶", "martyr"),
        ("绪方理奈", "vote"),
    ]
    converted = [e.character for e in game.log if isinstance(e, RoleChanged)]
    assert converted == ["河岛遥", "小木曾雪菜", "饭塚武也"]
    assert couples(game.state) == [("冬马和纱", "北原春希")]
    assert true_love_of(game.state, "冬马和纱") == "北原春希"


def test_example_notes_the_invalid_vote_and_the_late_order() -> None:
    notes = replay_file(EXAMPLE).notes
    assert len(notes) == 2
    assert "饭塚武也的投票无效（废票）" in notes[0]
    assert "饭塚武也的<breakup>超过行动时限（关门后90分钟），视为放弃" in notes[1]


def test_example_announcements_follow_the_seed() -> None:
    game = replay_file(EXAMPLE).game
    by_day = game.public_view().by_day()
    assert by_day[1][1:] == ["水泽依绪被投票出局", "观月真奈美出局"]
    assert by_day[2][:3] == [
        "前一天投票出局角色：水泽依绪",
        "夜晚无人出局",
        "水泽依绪的遗言：我只是不爱说话而已",
    ]
    assert "无人出局" in by_day[2] and "无人出局" in by_day[3]  # 捍卫, then 尊贵
    assert "杉浦小春被红牌罚下" in by_day[3]
    # the red card was announced at once: the opening's list is the vote's (nobody on day 3)
    assert by_day[4][:2] == ["前一天无人投票出局", "夜晚出局角色：藤井冬弥、和泉千晶"]
    assert by_day[4][-2:] == [
        "变节者阵营胜利，游戏结束（所有存活的变节者都与其真爱对象成为情侣）",
        "随机种子公开：wa004-example",
    ]


def test_example_private_notices() -> None:
    game = replay_file(EXAMPLE).game
    haruki = love_view(game, "北原春希").messages
    assert "冬马和纱对你使用了牛头人（NTR）" in haruki
    assert "小木曾雪菜对你使用了牛头人（NTR）" in haruki  # told even though 挽留 stopped it
    assert any("强制转变为单身贵族" in m for m in love_view(game, "河岛遥").messages)
    assert love_view(game, "绪方理奈").noble_group == (
        "小木曾雪菜",
        "饭塚武也",
        "绪方理奈",
        "河岛遥",
    )
    assert love_view(game, "藤井冬弥").character == "藤井冬弥"
    assert game.state.players["藤井冬弥"] == "替补玩家"


def test_example_log_rebuilds_the_same_game() -> None:
    game = replay_file(EXAMPLE).game
    again = Game.rebuild("wa004", None, "wa004-example", game.characters, game.event_dicts())
    assert again.state.snapshot() == game.state.snapshot()


def test_rulings_doc_cites_only_real_tests() -> None:
    """docs/rulings/wa004.md names the tests that check each reading: they must exist."""
    root = Path(__file__).resolve().parents[2]
    doc = (root / "docs" / "rulings" / "wa004.md").read_text(encoding="utf-8")
    cited = set(re.findall(r"`(test_[a-z0-9_]+)`", doc))
    defined = set()
    for path in (root / "tests" / "game_rules").glob("test_wa004*.py"):
        defined |= set(
            re.findall(r"^def (test_[a-z0-9_]+)", path.read_text(encoding="utf-8"), re.M)
        )
    assert cited and cited <= defined, sorted(cited - defined)


def test_spent_skills_are_listed_in_the_seed_order(monkeypatch: Any) -> None:
    # a set's iteration order changes with each process's string hashing: the view must not
    import game_rules.wa004.views as views

    game = replay_file(EXAMPLE).game
    monkeypatch.setattr(views, "has_spent", lambda state, character, skill: True)
    assert love_view(game, "北原春希").spent == ("breakup", "elope", "ntr", "defend")
