"""WithdrawNightAction: a choice entered tonight taken back before the night is resolved."""

from __future__ import annotations

import pytest

from game_rules import actions as act
from game_rules import new_game
from game_rules.errors import WithdrawalError
from game_rules.events import Told, withdrawn_positions
from game_rules.game import Game

NAMES = ["穗乃果", "绘里", "小鸟", "海未", "凛", "真姬", "希", "花阳", "妮可", "千歌", "梨子"]
ROLES = dict(zip(NAMES, ["wolf"] * 4 + ["villager"] * 4 + ["seer", "witch", "hunter"],
                 strict=True))  # fmt: skip


def m08_night() -> Game:
    g = new_game("m08", NAMES, seed="withdraw", roles=ROLES)
    g.apply(act.CloseDay())
    for wolf in NAMES[:4]:
        g.apply(act.UseSkill(wolf, "leader_vote", "穗乃果"))
    g.apply(act.UseSkill("绘里", "propose", "凛", reason="冲锋"))
    g.apply(act.UseSkill("小鸟", "propose", "希", reason="冲锋"))
    g.apply(act.UseSkill("穗乃果", "kill", "凛"))
    g.apply(act.UseSkill("妮可", "divine", "凛"))
    return g


def live_told(g: Game, to: str) -> list[str]:
    taken = withdrawn_positions(g.log)
    return [
        e.text for i, e in enumerate(g.log) if isinstance(e, Told) and to in e.to and i not in taken
    ]


def test_a_corrected_kill_changes_the_night_and_the_witchs_notice() -> None:
    g = m08_night()
    assert "通灵：今晚被指杀的角色是凛" in live_told(g, "千歌")
    g.apply(act.WithdrawNightAction("穗乃果", "kill"))
    assert ("穗乃果", "kill") not in g.state.night_actions
    # the others stand: the seer's choice and both proposals, the 狼头 elected
    assert {("妮可", "divine"), ("绘里", "propose"), ("小鸟", "propose")} <= set(
        g.state.night_actions
    )
    assert g.state.flags.get("leader") == "穗乃果"
    assert "通灵：今晚被指杀的角色是凛" not in live_told(g, "千歌")
    g.apply(act.UseSkill("穗乃果", "kill", "希"))
    assert "通灵：今晚被指杀的角色是希" in live_told(g, "千歌")
    rebuilt = Game.rebuild("m08", None, "withdraw", g.characters, g.event_dicts())
    assert rebuilt.state.snapshot() == g.state.snapshot()
    g.apply(act.EndNight())
    out = [e.character for e in g.state.eliminations]
    assert out == ["希"]


def test_a_choice_another_depends_on_is_refused_and_nothing_changes() -> None:
    g = m08_night()
    before = g.log_length
    with pytest.raises(WithdrawalError) as exc:
        g.apply(act.WithdrawNightAction("绘里", "propose"))
    assert exc.value.rule == "withdrawal_breaks_choice"
    assert "穗乃果" in str(exc.value)
    assert g.log_length == before and ("绘里", "propose") in g.state.night_actions


def test_nothing_entered_or_outside_the_night_is_refused() -> None:
    g = m08_night()
    with pytest.raises(WithdrawalError) as exc:
        g.apply(act.WithdrawNightAction("千歌", "save"))
    assert exc.value.rule == "nothing_to_withdraw"
    g.apply(act.EndNight())
    with pytest.raises(WithdrawalError):
        g.apply(act.WithdrawNightAction("妮可", "divine"))


def test_a_night_with_a_red_card_is_not_replayed() -> None:
    g = m08_night()
    g.apply(act.Eject("真姬", "串号"))
    with pytest.raises(WithdrawalError) as exc:
        g.apply(act.WithdrawNightAction("妮可", "divine"))
    assert exc.value.rule == "night_not_replayable"


def test_m72_withdrawn_twice_keeps_the_kill_order() -> None:
    names = [f"P{i}" for i in range(1, 13)]
    roles = dict(zip(names, ["wolf", "wolf_cub", "madman", "madman", "fox", "seer", "medium",
                             "guard", "crow_big", "crow_small", "villager", "villager"],
                     strict=True))  # fmt: skip
    g = new_game("m72", names, seed="m72w", roles=roles)
    g.apply(act.CloseDay())
    g.apply(act.UseSkill("P8", "guard", "P11"))
    g.apply(act.UseSkill("P1", "kill", "P11"))
    g.apply(act.UseSkill("P6", "divine", "P1"))
    g.apply(act.WithdrawNightAction("P8", "guard"))
    g.apply(act.WithdrawNightAction("P6", "divine"))
    assert set(g.state.night_actions) == {("P1", "kill")}
    g.apply(act.UseSkill("P8", "guard", "P12"))
    g.apply(act.EndNight())
    assert [e.character for e in g.state.eliminations] == ["P11"]
