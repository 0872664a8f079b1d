"""wa004 skills, exclusions and the night order (seed 000), one named test per rule."""

from __future__ import annotations

from typing import Any

import pytest

from game_rules import EndNight
from game_rules.errors import (
    InvalidTargetError,
    NotYourSkillError,
    ParameterError,
    SkillUsedUpError,
)
from game_rules.events import ActionTaken, Eliminated, RoleChanged
from game_rules.game import Game
from game_rules.wa004 import events as ev
from game_rules.wa004.couples import has_spent, lover_of, marks_of, noble_group
from game_rules.wa004.errors import (
    ElopeWithLoverError,
    NobleTargetError,
    NotInCoupleError,
    NotSingleError,
    RetainWindowError,
    SelfTargetError,
)
from game_rules.wa004.roles import Skill
from game_rules.wa004.setups import (
    Seats,
    arranged_game,
    choose_true_loves,
    order,
    play_day,
    play_night,
)
from game_rules.wa004.setups import (
    standard_game as start,
)
from game_rules.wa004.views import group_view, love_view

NOBLE = "P13"


def told(g: Game, who: str) -> list[str]:
    return list(love_view(g, who).messages)


def causes(g: Game) -> list[tuple[str, str]]:
    return [(e.character, e.cause) for e in g.state.eliminations]


# -- 分手 ------------------------------------------------------------------------------------------


def test_breakup_ends_the_couple_and_marks_only_the_partner() -> None:
    g, s = start()
    play_day(g)
    play_night(g, order(s.b0, "breakup"), order(NOBLE, "barbecue", s.g4a))
    assert lover_of(g.state, s.b0) is None and lover_of(g.state, s.g0) is None
    assert marks_of(g.state, s.g0) == 1  # lost its lover not by its own skill
    assert marks_of(g.state, s.b0) == 0  # 如果不是你使用技能主动造成的
    assert f"你与{s.b0}的情侣关系已解除" in told(g, s.g0)
    assert not has_spent(g.state, s.b0, Skill.BREAKUP)  # the relation changed: use restored


def test_breakup_needs_a_couple() -> None:
    g, s = start()
    play_day(g)
    play_night(g, order(s.b0, "breakup"), order(NOBLE, "barbecue", s.g4a))
    play_day(g)
    with pytest.raises(NotInCoupleError):
        g.apply(order(s.b0, "breakup"))


def test_guardian_has_no_breakup() -> None:
    g, s = start()
    play_day(g)
    with pytest.raises(NotYourSkillError):
        g.apply(order(s.g0, "breakup"))


def test_retain_blocks_breakup_and_the_use_stays_spent() -> None:
    g, s = start()
    play_day(g)
    play_night(g, order(s.b0, "breakup"), order(s.g0, "retain"), order(NOBLE, "barbecue", s.g4a))
    assert lover_of(g.state, s.b0) == s.g0
    assert has_spent(g.state, s.b0, Skill.BREAKUP)
    play_day(g)
    with pytest.raises(SkillUsedUpError):
        g.apply(order(s.b0, "breakup"))


# -- 私奔 ------------------------------------------------------------------------------------------


def test_mutual_elope_makes_new_lovers_and_marks_the_left() -> None:
    g, s = start()
    play_day(g)
    play_night(
        g, order(s.b0, "elope", s.b1), order(s.b1, "elope", s.b0), order(NOBLE, "barbecue", s.g4a)
    )
    assert lover_of(g.state, s.b0) == s.b1
    assert lover_of(g.state, s.g0) is None and lover_of(g.state, s.g1) is None
    assert (marks_of(g.state, s.g0), marks_of(g.state, s.g1)) == (1, 1)
    assert (marks_of(g.state, s.b0), marks_of(g.state, s.b1)) == (0, 0)
    assert f"你与{s.b1}成为情侣" in told(g, s.b0)


def test_one_sided_elope_has_no_effect_and_spends_the_use() -> None:
    g, s = start()
    play_day(g)
    play_night(g, order(s.b0, "elope", s.b1), order(NOBLE, "barbecue", s.g4a))
    assert lover_of(g.state, s.b0) == s.g0 and lover_of(g.state, s.b1) == s.g1
    assert any(isinstance(e, ev.EffectBlocked) and e.skill == "elope" for e in g.log)
    play_day(g)
    with pytest.raises(SkillUsedUpError):
        g.apply(order(s.b0, "elope", s.b1))


def test_elope_with_own_lover_is_refused() -> None:
    g, s = start()
    play_day(g)
    with pytest.raises(ElopeWithLoverError):
        g.apply(order(s.b2a, "elope", s.b2b))


def test_elope_blocked_when_a_left_partner_retains() -> None:
    g, s = start()
    play_day(g)
    play_night(
        g,
        order(s.b0, "elope", s.b1),
        order(s.b1, "elope", s.b0),
        order(s.g0, "retain"),
        order(NOBLE, "barbecue", s.g4a),
    )
    assert lover_of(g.state, s.b0) == s.g0 and lover_of(g.state, s.b1) == s.g1


def test_one_love_skill_per_night_newer_replaces_older() -> None:
    g, s = start()
    play_day(g)
    g.apply(order(s.b0, "elope", s.b1))
    g.apply(order(s.b0, "breakup"))
    standing = [k for k in g.state.night_actions if k[0] == s.b0]
    assert standing == [(s.b0, "breakup")]


# -- 牛头人 ----------------------------------------------------------------------------------------


def _single_b0(seed: str = "t") -> tuple[Game, Seats]:
    """Night 2 of a game where b0 broke up with g0 on night 1."""
    g, s = start(seed)
    play_day(g)
    play_night(g, order(s.b0, "breakup"), order(NOBLE, "barbecue", s.g4a))
    play_day(g)
    return g, s


def test_ntr_needs_the_user_single() -> None:
    g, s = start()
    play_day(g)
    with pytest.raises(NotSingleError):
        g.apply(order(s.b1, "ntr", s.g0))


def test_ntr_takes_the_target_who_learns_the_source() -> None:
    g, s = _single_b0()
    play_night(g, order(s.b0, "ntr", s.g1), order(NOBLE, "barbecue", s.b5))
    assert lover_of(g.state, s.b0) == s.g1
    assert lover_of(g.state, s.b1) is None
    assert f"{s.b0}对你使用了牛头人（NTR）" in told(g, s.g1)
    assert marks_of(g.state, s.g1) == 1 and marks_of(g.state, s.b1) == 1
    assert not has_spent(g.state, s.b0, Skill.NTR)  # restored by the change


def test_ntr_on_the_noble_is_accepted_and_looks_like_a_blocked_one() -> None:
    g1, s = _single_b0()
    g1.apply(order(s.b0, "ntr", NOBLE))  # no error: a refusal would reveal the noble
    play_night(g1, order(NOBLE, "barbecue", s.b5))
    g2, _ = _single_b0()
    play_night(g2, order(s.b0, "ntr", s.g1), order(s.g1, "retain"), order(NOBLE, "barbecue", s.b5))
    assert lover_of(g1.state, s.b0) is None and lover_of(g2.state, s.b0) is None
    assert told(g1, s.b0) == told(g2, s.b0)  # the user cannot tell the two apart
    view1, view2 = g1.character_view(s.b0), g2.character_view(s.b0)
    assert [type(e) for e in view1.events] == [type(e) for e in view2.events]
    assert not any("牛头人" in m for m in told(g1, NOBLE))  # the noble gets no notice
    assert f"{s.b0}对你使用了牛头人（NTR）" in told(g2, s.g1)  # a retained target does
    assert has_spent(g1.state, s.b0, Skill.NTR)
    play_day(g1)
    with pytest.raises(SkillUsedUpError):
        g1.apply(order(s.b0, "ntr", s.g1))


def test_ntr_listed_on_the_noble_among_legal_actions() -> None:
    g, s = _single_b0()
    assert order(s.b0, "ntr", NOBLE) in g.legal_actions(s.b0)


# -- 挽留 ------------------------------------------------------------------------------------------


def test_retain_needs_a_couple() -> None:
    g, s = start()
    play_day(g)
    play_night(g, order(s.b0, "breakup"), order(NOBLE, "barbecue", s.g4a))
    play_day(g)
    with pytest.raises(NotInCoupleError):
        g.apply(order(s.g0, "retain"))


@pytest.mark.parametrize(
    ("window", "nights", "refused"),
    [
        ("pairs", (1, 2), 2),  # nights 1-2 are one window
        ("pairs", (2, 3), None),  # 2 and 3 are in different windows
        ("cooldown", (2, 3), 3),  # never two nights running
        ("cooldown", (1, 3), None),
    ],
)
def test_retain_once_in_every_two_nights(
    window: str, nights: tuple[int, int], refused: int | None
) -> None:
    g, s = start(params={"rules": {"retain_window": window}})
    victims = {1: s.g4a, 2: s.b5, 3: s.b3}
    for night in (1, 2, 3):
        play_day(g)
        if night in nights:
            if night == refused:
                with pytest.raises(RetainWindowError):
                    g.apply(order(s.g0, "retain"))
            else:
                g.apply(order(s.g0, "retain"))
        play_night(g, order(NOBLE, "barbecue", victims[night]))
    used = g.state.status[s.g0]["retain_nights"]
    assert used == [n for n in nights if n != refused]


# -- 捍卫 ------------------------------------------------------------------------------------------


def test_defend_stops_the_barbecue_on_user_and_lover() -> None:
    g, s = start()
    play_day(g)
    play_night(g, order(s.g0, "defend"), order(NOBLE, "barbecue", s.b0))
    assert g.state.is_alive(s.b0) and g.state.is_alive(s.g0)
    assert any(isinstance(e, ev.EffectBlocked) and e.skill == "defend" for e in g.log)


def test_defend_stops_the_next_day_vote() -> None:
    g, s = start()
    play_day(g)
    play_night(g, order(s.g0, "defend"), order(NOBLE, "barbecue", s.g4a))
    play_day(g, {v: s.b0 for v in g.state.living()})
    assert g.state.is_alive(s.b0)
    assert g.public_view().announcements[-1].text == "无人出局"


def test_defend_expires_when_the_next_night_begins() -> None:
    g, s = start()
    play_day(g)
    play_night(g, order(s.g0, "defend"), order(NOBLE, "barbecue", s.g4a))
    play_day(g)
    play_night(g, order(NOBLE, "barbecue", s.g0))
    assert not g.state.is_alive(s.g0)
    assert g.state.is_alive(s.b0) and marks_of(g.state, s.b0) == 1


def test_defend_is_spent_until_the_couple_changes() -> None:
    g, s = start()
    play_day(g)
    play_night(g, order(s.g0, "defend"), order(NOBLE, "barbecue", s.g4a))
    play_day(g)
    with pytest.raises(SkillUsedUpError):
        g.apply(order(s.g0, "defend"))
    play_night(g, order(s.b0, "breakup"), order(NOBLE, "barbecue", s.b5))
    play_day(g)
    assert order(s.g0, "defend") in g.legal_actions(s.g0)


def test_defend_stops_martyrdom_after_a_red_card() -> None:
    g, s = start()
    play_day(g)
    play_night(g, order(s.g0, "defend"), order(NOBLE, "barbecue", s.g4a))
    g.eject(s.b0, "恶意破坏游戏")
    assert not g.state.is_alive(s.b0)  # a red card ignores 捍卫
    assert g.state.is_alive(s.g0) and marks_of(g.state, s.g0) == 1


# -- 殉情 ------------------------------------------------------------------------------------------


def test_martyrdom_guardian_follows_its_lover_at_night() -> None:
    g, s = start()
    play_day(g)
    play_night(g, order(NOBLE, "barbecue", s.b0))
    assert causes(g) == [(s.b0, "barbecue"), (s.g0, "martyr")]
    texts = [a.text for a in g.public_view().announcements]
    assert f"夜晚出局角色：{s.b0}、{s.g0}" in texts


def test_martyrdom_after_a_vote_is_announced_at_once_without_its_cause() -> None:
    g, s = start()
    play_day(g, {v: s.b0 for v in g.state.living()})
    texts = [a.text for a in g.public_view().announcements]
    assert texts[-2:] == [f"{s.b0}被投票出局", f"{s.g0}出局"]
    assert not any("殉情" in t for t in texts)


def test_betrayer_survives_its_lover_and_takes_a_mark() -> None:
    g, s = start()
    play_day(g)
    play_night(g, order(NOBLE, "barbecue", s.g0))
    assert g.state.is_alive(s.b0) and lover_of(g.state, s.b0) is None
    assert marks_of(g.state, s.b0) == 1
    assert f"你的情侣{s.g0}已出局，你处于单身状态" in told(g, s.b0)


@pytest.mark.parametrize("follows", [True, False])
def test_martyrdom_after_a_red_card_is_a_parameter(follows: bool) -> None:
    g, s = start(params={"rules": {"martyrdom_on_red_card": follows}})
    g.eject(s.b0, "恶意破坏游戏")
    assert g.state.is_alive(s.g0) is not follows


# -- 烧烤 ------------------------------------------------------------------------------------------


def test_barbecue_kills_its_target() -> None:
    g, s = start()
    play_day(g)
    play_night(g, order(NOBLE, "barbecue", s.g4a))
    assert causes(g) == [(s.g4a, "barbecue"), (s.g4b, "martyr")]


def test_barbecue_cannot_name_oneself() -> None:
    g, _ = start()
    play_day(g)
    with pytest.raises(SelfTargetError):
        g.apply(order(NOBLE, "barbecue", NOBLE))


def test_missed_barbecue_deadline_gets_a_random_target() -> None:
    g, _ = start()
    play_day(g)
    play_night(g)
    picked = [e for e in g.log if isinstance(e, ActionTaken) and e.skill == "barbecue"]
    assert len(picked) == 1 and picked[0].detail == {"defaulted": True}
    assert picked[0].target != NOBLE
    assert any(isinstance(e, Eliminated) and e.cause == "barbecue" for e in g.log)


THREE_NOBLES = {
    "roles": {"betrayer": {"count": 5}, "guardian": {"count": 5}, "noble": {"count": 3}}
}
KINDS_5 = [("betrayer", "guardian")] * 5


def test_barbecue_never_names_a_noble_and_the_latest_group_order_counts() -> None:
    g, p = arranged_game(KINDS_5, seed="n3", params=THREE_NOBLES)
    choose_true_loves(g, {})
    play_day(g)
    nobles = g.state.with_role("noble")
    with pytest.raises(NobleTargetError):
        g.apply(order(nobles[0], "barbecue", nobles[1]))
    g.apply(order(nobles[0], "barbecue", p[0][0]))
    g.apply(order(nobles[1], "barbecue", p[1][0]))
    g.apply(EndNight())
    assert g.state.is_alive(p[0][0]) and not g.state.is_alive(p[1][0])
    assert [o[1:] for o in group_view(g).orders] == [
        (nobles[0], p[0][0]),
        (nobles[1], p[1][0]),
    ]


# -- 尊贵 ------------------------------------------------------------------------------------------


def test_nobility_keeps_the_first_noble_from_the_vote() -> None:
    g, _ = start()
    play_day(g, {v: NOBLE for v in g.state.living()})
    assert g.state.is_alive(NOBLE)
    assert g.public_view().announcements[-1].text == "无人出局"


def _second_noble(params: dict[str, Any]) -> tuple[Game, Seats]:
    """marks_to_convert 1: g0 converts on night 1 when b0 breaks up with it."""
    g, s = start(params={"rules": {"marks_to_convert": 1, **params}})
    play_day(g)
    play_night(g, order(s.b0, "breakup"), order(NOBLE, "barbecue", s.g4a))
    return g, s


def test_nobility_ends_once_a_second_noble_appears() -> None:
    g, s = _second_noble({})
    assert g.state.role(s.g0) == "noble"
    play_day(g, {v: NOBLE for v in g.state.living()})
    assert not g.state.is_alive(NOBLE)


@pytest.mark.parametrize(
    ("reading", "protected"), [("second_appeared", False), ("second_alive", True)]
)
def test_nobility_after_the_second_noble_dies_is_a_parameter(reading: str, protected: bool) -> None:
    g, s = _second_noble({"nobility_ends": reading})
    g.eject(s.b0, "恶意破坏游戏")  # else single b0 converts at the next night start
    play_day(g, {v: s.g0 for v in g.state.living()})
    assert not g.state.is_alive(s.g0)
    play_night(g, order(NOBLE, "barbecue", s.b5))
    play_day(g, {v: NOBLE for v in g.state.living()})
    assert g.state.is_alive(NOBLE) is protected


# -- 不会再爱 -----------------------------------------------------------------------------------


def test_single_at_night_start_takes_a_mark() -> None:
    g, s = start()
    play_day(g)
    play_night(g, order(s.b0, "breakup"), order(NOBLE, "barbecue", s.g4a))
    assert (marks_of(g.state, s.b0), marks_of(g.state, s.g0)) == (0, 1)
    play_day(g)  # night 2 begins: both are single
    assert (marks_of(g.state, s.b0), marks_of(g.state, s.g0)) == (1, 2)
    reasons = [e.reason for e in g.log if isinstance(e, ev.MarkGained) and e.character == s.b0]
    assert reasons == ["single_at_night"]


def test_three_marks_convert_to_noble_and_join_the_group() -> None:
    g, s = _single_b0()  # g0: 1 mark (lost lover) + 1 at night 2's start
    play_night(g, order(NOBLE, "barbecue", s.b5))
    play_day(g)  # night 3 starts: third mark
    assert marks_of(g.state, s.g0) == 3
    assert g.state.role(s.g0) == "noble" and g.state.faction(s.g0) == "nobles"
    assert any(isinstance(e, RoleChanged) and e.character == s.g0 for e in g.log)
    assert noble_group(g.state) == tuple(sorted((NOBLE, s.g0)))
    assert love_view(g, NOBLE).noble_group == love_view(g, s.g0).noble_group
    assert any("强制转变为单身贵族" in m for m in told(g, s.g0))
    assert order(s.g0, "barbecue", s.b1) in g.legal_actions(s.g0)
    with pytest.raises(NotYourSkillError):
        g.apply(order(s.g0, "defend"))


def test_nobles_take_no_marks() -> None:
    g, _ = _single_b0()
    assert marks_of(g.state, NOBLE) == 0


def test_dead_nobles_stay_in_the_group() -> None:
    g, s = _second_noble({})
    play_day(g, {v: s.g0 for v in g.state.living()})
    assert s.g0 in noble_group(g.state) and not g.state.is_alive(s.g0)


# -- night order --------------------------------------------------------------------------------


def test_couples_resolve_before_the_kill() -> None:
    """(4) before (5): the NTR makes g1 b0's lover, so g1 dies with b0 (殉情)."""
    g, s = _single_b0()
    play_night(g, order(s.b0, "ntr", s.g1), order(NOBLE, "barbecue", s.b0))
    assert causes(g)[-2:] == [(s.b0, "barbecue"), (s.g1, "martyr")]


def test_breakup_before_ntr_frees_the_target_without_a_second_loss() -> None:
    """分手 resolves before 牛头人: g3 is already single when b0 takes it."""
    g, s = _single_b0()
    play_night(g, order(s.b3, "breakup"), order(s.b0, "ntr", s.g3), order(NOBLE, "barbecue", s.b5))
    assert lover_of(g.state, s.g3) == s.b0
    assert marks_of(g.state, s.g3) == 1  # only the breakup cost it a lover


def test_an_eliminated_target_is_refused() -> None:
    g, s = start()
    play_day(g)
    play_night(g, order(NOBLE, "barbecue", s.g4a))
    play_day(g)
    with pytest.raises(InvalidTargetError):
        g.apply(order(NOBLE, "barbecue", s.g4a))


def test_two_ntrs_on_one_target_the_first_order_wins() -> None:
    """R23: a character who found a new lover tonight is not taken again."""
    g, s = start()
    play_day(g)
    play_night(g, order(s.b0, "breakup"), order(s.b3, "breakup"), order(NOBLE, "barbecue", s.g4a))
    play_day(g)
    play_night(
        g, order(s.b3, "ntr", s.g1), order(s.b0, "ntr", s.g1), order(NOBLE, "barbecue", s.b5)
    )
    assert lover_of(g.state, s.g1) == s.b3 and lover_of(g.state, s.b0) is None
    assert f"{s.b0}对你使用了牛头人（NTR）" in told(g, s.g1)  # told of both sources


def test_the_night_order_is_data() -> None:
    """With (5) before (4) — a variant's YAML — b0 dies single and g1 survives."""
    order_5_first = ["betrayers", "guardians", "nobles", "resolve_kill", "resolve_couples"]
    g, s = start(params={"night_order": order_5_first})
    play_day(g)
    play_night(g, order(s.b0, "breakup"), order(NOBLE, "barbecue", s.g4a))
    play_day(g)
    play_night(g, order(s.b0, "ntr", s.g1), order(NOBLE, "barbecue", s.b0))
    assert not g.state.is_alive(s.b0) and g.state.is_alive(s.g1)


def test_a_night_order_missing_a_step_is_refused() -> None:
    with pytest.raises(ParameterError):
        start(params={"night_order": ["betrayers", "guardians", "nobles", "resolve_kill"]})
