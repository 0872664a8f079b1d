"""wa004 牛头人 consent (R8): ``rules.ntr_consent`` automatic (default) or asked.

牛头人（NTR）——…若对方不是单身贵族，对方会收到通知，得知技能来源，并且对方同意和你成为情侣。
则对方失去原有的情侣关系或单身状态。双方成为新的情侣。

Under ``asked`` the target is asked at step (4), when its 牛头人 comes up (after every 分手 and
私奔 of the step, R23), unless it is a 单身贵族, already taken tonight or held by 挽留; the night
finishes resolving once it answers, its deadline passes (不同意) or the question goes void.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from game_rules import DeadlinePassed, EndNight, UseSkill
from game_rules.actions import CastVote, Eject
from game_rules.errors import (
    IllegalActionError,
    ParameterError,
    PendingDecisionError,
    UnknownCharacterError,
)
from game_rules.events import (
    ActionTaken,
    DecisionClosed,
    DecisionOpened,
    Event,
    FlagSet,
    RoleChanged,
    Told,
)
from game_rules.game import Game
from game_rules.params import load_params
from game_rules.script import run_script
from game_rules.wa004 import events as ev
from game_rules.wa004.couples import NTR_PAUSE, has_spent, lover_of, marks_of, noble_group
from game_rules.wa004.errors import ConsentChoiceError, ConsentNotAskedError
from game_rules.wa004.roles import Skill
from game_rules.wa004.setups import (
    STANDARD_KINDS,
    Seats,
    arranged_game,
    order,
    play_day,
    play_night,
    standard_game,
)
from game_rules.wa004.views import love_view

NOBLE = "P13"
ASKED = {"rules": {"ntr_consent": "asked"}}
NOTICE = "{x}对你使用了牛头人（NTR）"


def single_b0(params: Any = ASKED, seed: str = "t") -> tuple[Game, Seats]:
    """Day 2 of the standard arrangement: b0 broke up with g0 on night 1 (g4a was burnt, g4b
    followed it), so b0 is a single 变节者 who may use 牛头人 tonight."""
    g, s = standard_game(seed, params=params)
    play_day(g)
    play_night(g, order(s.b0, "breakup"), order(NOBLE, "barbecue", s.g4a))
    play_day(g)
    return g, s


def two_singles(params: Any = ASKED) -> tuple[Game, Seats]:
    """Day 3: b0 and b3 are single 变节者 (b3 broke up with g3 on night 2, when the single g0
    was burnt)."""
    g, s = single_b0(params)
    play_night(g, order(s.b3, "breakup"), order(NOBLE, "barbecue", s.g0))
    play_day(g)
    return g, s


def told(g: Game, who: str) -> list[str]:
    return list(love_view(g, who).messages)


def asked_of(g: Game) -> list[tuple[str, str]]:
    """Every question put so far: (target, decision)."""
    return [(e.actor, e.decision) for e in g.log if isinstance(e, DecisionOpened)]


def ntr_night(g: Game, s: Seats, *orders: UseSkill, burn: str | None = None) -> None:
    """b0's 牛头人 on g1 (unless ``orders`` say otherwise), the group burns ``burn`` (b5 by
    default), then the night is closed."""
    for o in orders or (order(s.b0, "ntr", s.g1),):
        g.apply(o)
    g.apply(order(NOBLE, "barbecue", burn or s.b5))
    g.apply(EndNight())


def answer(actor: str, choice: str | None, target: str | None = None) -> UseSkill:
    return UseSkill(actor, "ntr_consent", target, choice=choice)


def frozen(g: Game) -> tuple[dict[str, Any], int]:
    return g.state.snapshot(), len(g.log)


# -- the parameter ---------------------------------------------------------------------------------


def test_ntr_consent_defaults_to_automatic_and_its_deadline_is_the_nights() -> None:
    params = load_params("wa004")
    assert params.extra["rules"]["ntr_consent"] == "automatic"
    # the target's answer is a 变节者/守护者 night contact: the seed's 一个半小时, like the orders
    assert params.deadlines["ntr_consent"] == params.deadlines["ntr"] == 90


@pytest.mark.parametrize("bad", ["ask", "yes", True, None, 1])
def test_a_bad_ntr_consent_value_is_a_parameter_error(bad: Any) -> None:
    with pytest.raises(ParameterError, match="ntr_consent"):
        arranged_game(STANDARD_KINDS, params={"rules": {"ntr_consent": bad}})


def test_automatic_asks_nobody_and_the_night_ends_at_once() -> None:
    g, s = single_b0(params=None)
    ntr_night(g, s)
    assert asked_of(g) == [] and not g.state.decisions
    assert g.state.phase == "day" and g.state.day == 3
    assert lover_of(g.state, s.b0) == s.g1


def test_automatic_answers_are_not_a_decision() -> None:
    g, s = single_b0(params=None)
    g.apply(order(s.b0, "ntr", s.g1))
    before = frozen(g)
    with pytest.raises(IllegalActionError) as err:
        g.apply(answer(s.g1, "yes"))
    assert not isinstance(err.value, ConsentNotAskedError)  # no such skill at all
    assert frozen(g) == before


# -- asked: the question ---------------------------------------------------------------------------


def test_asked_target_gets_the_notice_and_the_question_and_the_night_waits() -> None:
    g, s = single_b0()
    ntr_night(g, s)
    assert g.state.decisions == {(s.g1, "ntr_consent"): 2}
    assert g.state.phase == "night" and g.state.flags["night_closed"]
    notice, question = told(g, s.g1)[-2:]
    assert notice == NOTICE.format(x=s.b0)
    assert question.startswith(f"牛头人（NTR）：是否同意和{s.b0}成为情侣？")
    assert "90分钟内未答复视为不同意" in question  # the YAML's deadline
    # nothing of step (4)'s 牛头人 or of step (5) has happened yet
    assert lover_of(g.state, s.g1) == s.b1 and g.state.is_alive(s.b5)
    assert g.legal_actions(None) == [
        answer(s.g1, "yes"),
        answer(s.g1, "no"),
        DeadlinePassed(),
    ]
    assert g.legal_actions(s.g1) == [answer(s.g1, "yes"), answer(s.g1, "no")]
    assert g.legal_actions(s.b0) == [] and g.pending_actors() == [s.g1]


def test_consent_given_makes_the_couple_then_the_night_resolves() -> None:
    g, s = single_b0()
    ntr_night(g, s)
    g.apply(answer(s.g1, "同意"))
    assert lover_of(g.state, s.b0) == s.g1 and lover_of(g.state, s.b1) is None
    assert marks_of(g.state, s.g1) == 1 and marks_of(g.state, s.b1) == 1  # R11
    assert not has_spent(g.state, s.b0, Skill.NTR)  # the change restores the use (R7)
    assert f"你与{s.g1}成为情侣" in told(g, s.b0)
    assert f"你与{s.g1}的情侣关系已解除" in told(g, s.b1)
    # then step (5): b5 burnt, g5 follows it (殉情); the next day begins
    assert not g.state.is_alive(s.b5) and not g.state.is_alive(s.g5)
    assert g.state.phase == "day" and g.state.day == 3 and not g.state.decisions
    assert NTR_PAUSE not in g.state.flags or g.state.flags[NTR_PAUSE] is None


def test_consent_refused_leaves_both_as_they_were() -> None:
    g, s = single_b0()
    marks = {c: marks_of(g.state, c) for c in (s.b0, s.g1, s.b1)}
    ntr_night(g, s)
    before_user = told(g, s.b0)
    g.apply(answer(s.g1, "no"))
    assert lover_of(g.state, s.b0) is None and lover_of(g.state, s.g1) == s.b1
    assert {c: marks_of(g.state, c) for c in marks} == marks
    assert has_spent(g.state, s.b0, Skill.NTR)  # spent, as for any 牛头人 without effect
    assert told(g, s.b0) == before_user  # the user is told nothing
    assert not any(s.b0 in m for m in told(g, s.b1))  # the target's lover learns nothing
    blocked = [e for e in g.log if isinstance(e, ev.EffectBlocked) and e.skill == "ntr"]
    assert [(e.actor, e.target, e.why) for e in blocked] == [(s.b0, s.g1, "对方不同意")]
    assert g.state.phase == "day" and g.state.day == 3
    assert not g.state.is_alive(s.b5)  # the night went on to step (5)


def test_missed_deadline_counts_as_refusal() -> None:
    g, s = single_b0()
    ntr_night(g, s)
    g.apply(DeadlinePassed())
    closed = [e for e in g.log if isinstance(e, DecisionClosed)]
    assert [(e.actor, e.result, e.how) for e in closed] == [(s.g1, "no", "deadline")]
    assert f"你未按时答复，视为不同意和{s.b0}成为情侣" in told(g, s.g1)
    assert lover_of(g.state, s.b0) is None and lover_of(g.state, s.g1) == s.b1
    assert g.state.phase == "day" and g.state.day == 3


def test_retain_still_blocks_and_no_question_is_asked() -> None:
    g, s = single_b0()
    ntr_night(g, s, order(s.b0, "ntr", s.g1), order(s.g1, "retain"))
    assert asked_of(g) == []  # held by 挽留: nothing to agree to
    assert NOTICE.format(x=s.b0) in told(g, s.g1)  # still told (R8: it is not a 单身贵族)
    assert lover_of(g.state, s.g1) == s.b1 and lover_of(g.state, s.b0) is None
    assert g.state.phase == "day" and g.state.day == 3


def test_retain_by_the_targets_lover_also_blocks_without_a_question() -> None:
    g, s = single_b0()
    ntr_night(g, s, order(s.b0, "ntr", s.b1), order(s.g1, "retain"))
    assert asked_of(g) == [] and g.state.day == 3
    assert NOTICE.format(x=s.b0) in told(g, s.b1)
    assert lover_of(g.state, s.b1) == s.g1
    other, _ = single_b0()  # a 挽留 elsewhere changes nothing: g3 is asked
    ntr_night(other, s, order(s.b0, "ntr", s.g3), order(s.g1, "retain"))
    assert asked_of(other) == [(s.g3, "ntr_consent")]


def test_noble_target_gets_no_question_and_looks_like_any_failure_to_its_user() -> None:
    noble, s = single_b0()
    ntr_night(noble, s, order(s.b0, "ntr", NOBLE))
    assert asked_of(noble) == [] and noble.state.day == 3  # resolved at once
    assert not any("牛头人" in m for m in told(noble, NOBLE))
    refused, _ = single_b0()
    ntr_night(refused, s)
    refused.apply(answer(s.g1, "no"))
    missed, _ = single_b0()
    ntr_night(missed, s)
    missed.apply(DeadlinePassed())
    retained, _ = single_b0()
    ntr_night(retained, s, order(s.b0, "ntr", s.g1), order(s.g1, "retain"))
    failures = [noble, refused, missed, retained]
    user_views = [g.character_view(s.b0) for g in failures]
    first = user_views[0]
    for view in user_views[1:]:
        assert view.messages() == first.messages()
        assert [type(e) for e in view.events] == [type(e) for e in first.events]
        assert view.public.announcements == first.public.announcements
    assert [love_view(g, s.b0) for g in failures[1:]] == [love_view(noble, s.b0)] * 3


def test_two_questions_in_one_night_are_asked_one_after_the_other() -> None:
    """R23 order: b0's 牛头人 (given first) asks g1; only after that answer is b3's asked."""
    g, s = two_singles()
    ntr_night(g, s, order(s.b0, "ntr", s.g1), order(s.b3, "ntr", s.g5), burn=s.b2a)
    assert asked_of(g) == [(s.g1, "ntr_consent")] and len(g.state.decisions) == 1
    g.apply(answer(s.g1, "yes"))
    assert asked_of(g)[-1] == (s.g5, "ntr_consent")  # the next 牛头人 now
    assert g.state.phase == "night" and g.state.is_alive(s.b2a)  # step (5) still waits
    g.apply(answer(s.g5, "no"))
    assert lover_of(g.state, s.g1) == s.b0 and lover_of(g.state, s.g5) == s.b5
    assert g.state.phase == "day" and not g.state.is_alive(s.b2a)


def test_a_target_taken_by_an_earlier_answer_is_not_asked_again() -> None:
    g, s = two_singles()
    ntr_night(g, s, order(s.b3, "ntr", s.g1), order(s.b0, "ntr", s.g1), burn=s.b2a)
    g.apply(answer(s.g1, "yes"))
    assert [a for a, _ in asked_of(g)] == [s.g1]  # asked once: taken for b0's (R23)
    assert NOTICE.format(x=s.b0) in told(g, s.g1)  # but told of both sources
    assert lover_of(g.state, s.g1) == s.b3 and g.state.phase == "day"


def test_after_a_refusal_the_next_user_asks_the_same_target() -> None:
    g, s = two_singles()
    ntr_night(g, s, order(s.b3, "ntr", s.g1), order(s.b0, "ntr", s.g1), burn=s.b2a)
    g.apply(answer(s.g1, "no"))
    assert [a for a, _ in asked_of(g)] == [s.g1, s.g1]
    g.apply(answer(s.g1, "yes"))
    assert lover_of(g.state, s.g1) == s.b0 and g.state.phase == "day"


# -- the answer and the rest of the night ----------------------------------------------------------


@pytest.mark.parametrize(("choice", "martyr"), [("yes", True), ("no", False)])
def test_the_answer_decides_martyrdom_in_step_5(choice: str, martyr: bool) -> None:
    """R24: a 守护者 who agrees becomes b0's lover before the 烧烤 burns b0, and follows it."""
    g, s = single_b0()
    ntr_night(g, s, burn=s.b0)
    g.apply(answer(s.g1, choice))
    assert not g.state.is_alive(s.b0)
    assert g.state.is_alive(s.g1) is not martyr


@pytest.mark.parametrize(("choice", "quiet"), [("yes", False), ("no", True)])
def test_the_quiet_night_is_judged_after_the_answer(choice: str, quiet: bool) -> None:
    """R13 from night 2: burning the single g0 leaves the night quiet unless g1 leaves b1."""
    g, s = single_b0()
    ntr_night(g, s, burn=s.g0)
    assert [e.night for e in g.log if isinstance(e, ev.NightJudged)] == [1]  # night 2 waits
    g.apply(answer(s.g1, choice))
    judged = [e for e in g.log if isinstance(e, ev.NightJudged)]
    assert judged[-1].night == 2 and judged[-1].quiet is quiet
    assert (g.state.winner == "guardians") is quiet


@pytest.mark.parametrize(("choice", "converts"), [("yes", True), ("no", False)])
def test_a_conversion_follows_the_answer(choice: str, converts: bool) -> None:
    """With two marks to convert: g3, left by b3 on night 2 (one mark), agrees to b0 then; on
    night 3 agreeing to b3 costs it b0, the second mark, and makes it a 单身贵族 (R10, R11)."""
    g, s = single_b0({"rules": {"ntr_consent": "asked", "marks_to_convert": 2}})
    ntr_night(g, s, order(s.b3, "breakup"), order(s.b0, "ntr", s.g3))
    g.apply(answer(s.g3, "yes"))
    assert lover_of(g.state, s.g3) == s.b0 and marks_of(g.state, s.g3) == 1
    play_day(g)
    ntr_night(g, s, order(s.b3, "ntr", s.g3), burn=s.b2a)
    g.apply(answer(s.g3, choice))
    assert (g.state.role(s.g3) == "noble") is converts
    assert (s.g3 in noble_group(g.state)) is converts
    assert any(isinstance(e, RoleChanged) and e.character == s.g3 for e in g.log) is converts


# -- illegal answers -------------------------------------------------------------------------------


def test_illegal_answers_raise_and_leave_the_state_unchanged() -> None:
    g, s = single_b0()
    g.apply(order(s.b0, "ntr", s.g1))
    before = frozen(g)
    with pytest.raises(ConsentNotAskedError):  # no question yet: the night is still open
        g.apply(answer(s.g1, "yes"))
    assert frozen(g) == before
    g.apply(order(NOBLE, "barbecue", s.b5))
    g.apply(EndNight())
    before = frozen(g)
    bad: list[tuple[UseSkill, type[Exception]]] = [
        (answer(s.b1, "yes"), ConsentNotAskedError),  # wrong actor: its lover
        (answer(s.b0, "yes"), ConsentNotAskedError),  # wrong actor: the user
        (answer("P99", "yes"), UnknownCharacterError),
        (answer(s.g1, "maybe"), ConsentChoiceError),
        (answer(s.g1, None), ConsentChoiceError),
        (answer(s.g1, "yes", target=s.b0), ConsentChoiceError),  # an answer names nobody
    ]
    for action, error in bad:
        with pytest.raises(error):
            g.apply(action)
        assert frozen(g) == before, action
    for action in (EndNight(), order(s.b2a, "breakup"), CastVote(s.b2a, s.b0)):
        with pytest.raises(IllegalActionError):  # the night is closed, only the answer is open
            g.apply(action)
        assert frozen(g) == before, action
    g.apply(answer(s.g1, "yes"))
    after = frozen(g)
    with pytest.raises(ConsentNotAskedError) as err:  # answering twice
        g.apply(answer(s.g1, "no"))
    assert isinstance(err.value, PendingDecisionError) and err.value.rule == "ntr_consent_not_asked"
    assert frozen(g) == after
    assert lover_of(g.state, s.g1) == s.b0
    with pytest.raises(ConsentNotAskedError):  # by day
        g.apply(answer(s.g1, "no"))
    with pytest.raises(IllegalActionError):  # the director's deadline with nothing open
        g.apply(DeadlinePassed())
    assert frozen(g) == after


# -- a red card while the question is open ---------------------------------------------------------


@pytest.mark.parametrize("carded", ["user", "target"])
def test_a_red_card_of_either_side_voids_the_question(carded: str) -> None:
    g, s = single_b0()
    ntr_night(g, s)
    who = s.b0 if carded == "user" else s.g1
    g.apply(Eject(who, "恶意破坏游戏"))
    closed = [e for e in g.log if isinstance(e, DecisionClosed)]
    assert [(e.actor, e.result, e.how) for e in closed] == [(s.g1, None, "void")]
    assert not g.state.decisions and g.state.phase == "day" and g.state.day == 3
    assert lover_of(g.state, s.b0) is None
    if carded == "user":
        assert told(g, s.g1)[-1] == f"{s.b0}对你使用的牛头人（NTR）已失效，无需答复"
        assert lover_of(g.state, s.g1) == s.b1
    with pytest.raises(ConsentNotAskedError):
        g.apply(answer(s.g1, "yes"))


def test_a_question_goes_void_when_the_target_becomes_a_noble() -> None:
    """g3 (lover of b0, one mark of two) is asked for b3; b0's red card gives it the second
    mark (no 殉情 after a red card here, R16): it is a 单身贵族 now, and 若对方不是单身贵族 no
    longer holds."""
    rules = {"ntr_consent": "asked", "marks_to_convert": 2, "martyrdom_on_red_card": False}
    g, s = single_b0({"rules": rules})
    ntr_night(g, s, order(s.b3, "breakup"), order(s.b0, "ntr", s.g3))
    g.apply(answer(s.g3, "yes"))
    play_day(g)
    ntr_night(g, s, order(s.b3, "ntr", s.g3), burn=s.b2a)
    assert g.state.decisions == {(s.g3, "ntr_consent"): 3}
    g.apply(Eject(s.b0, "恶意破坏游戏"))
    assert g.state.role(s.g3) == "noble" and lover_of(g.state, s.g3) is None
    assert told(g, s.g3)[-1] == f"{s.b3}对你使用的牛头人（NTR）已失效，无需答复"
    assert not g.state.decisions and g.state.phase == "day" and g.state.day == 4
    assert lover_of(g.state, s.b3) is None


def test_a_red_card_of_someone_else_keeps_the_question() -> None:
    g, s = single_b0()
    ntr_night(g, s)
    g.apply(Eject(s.b2a, "恶意破坏游戏"))  # b2b (a 变节者) does not follow; the night still waits
    assert g.state.decisions == {(s.g1, "ntr_consent"): 2} and g.state.phase == "night"
    g.apply(answer(s.g1, "yes"))
    assert lover_of(g.state, s.g1) == s.b0 and g.state.phase == "day"


# -- the log ---------------------------------------------------------------------------------------


def _rebuilt(g: Game, params: Any = ASKED) -> Game:
    dicts = json.loads(json.dumps(g.event_dicts(), ensure_ascii=False))
    return Game.rebuild("wa004", params, "t", g.characters, dicts)


@pytest.mark.parametrize("finish", ["yes", "no", "deadline", "card"])
def test_rebuild_from_the_log_gives_the_same_state_during_and_after_the_question(
    finish: str,
) -> None:
    g, s = single_b0()
    ntr_night(g, s)
    paused = _rebuilt(g)
    assert paused.state.snapshot() == g.state.snapshot()  # the pause and the question included
    final: Any = (
        DeadlinePassed()
        if finish == "deadline"
        else Eject(s.b0, "恶意破坏游戏")
        if finish == "card"
        else answer(s.g1, finish)
    )
    caused = g.apply(final)
    # the rebuilt game goes on exactly like the original one
    assert paused.apply(final) == caused
    assert _rebuilt(g).state.snapshot() == g.state.snapshot() == paused.state.snapshot()
    assert g.state.phase == "day"


# -- views -----------------------------------------------------------------------------------------

PRIVATE_KINDS = (Told, DecisionOpened, DecisionClosed, FlagSet, ActionTaken, ev.EffectBlocked)


def _kinds(events: tuple[Event, ...]) -> set[type[Event]]:
    return {type(e) for e in events}


def test_views_the_target_sees_the_question_the_user_and_the_public_do_not() -> None:
    g, s = single_b0()
    ntr_night(g, s)
    target = g.character_view(s.g1)
    assert any(isinstance(e, DecisionOpened) and e.actor == s.g1 for e in target.events)
    assert target.messages()[-1].startswith("牛头人（NTR）：是否同意")
    g.apply(answer(s.g1, "no"))
    target = g.character_view(s.g1)
    assert any(isinstance(e, DecisionClosed) and e.result == "no" for e in target.events)
    for other in (s.b0, s.b1, NOBLE):
        view = g.character_view(other)
        assert not _kinds(view.events) & {DecisionOpened, DecisionClosed, FlagSet}
        assert not any("是否同意" in m or "不同意" in m for m in view.messages())
    public = g.public_view()
    assert not _kinds(public.events) & set(PRIVATE_KINDS)
    assert not any("牛头人" in a.text or "同意" in a.text for a in public.announcements)


def test_the_public_cannot_tell_a_question_night_from_an_automatic_one() -> None:
    """Same night, same refusals-as-no-effect: the public announcements are identical."""
    asked, s = single_b0()
    ntr_night(asked, s, order(s.b0, "ntr", NOBLE))  # no question on the noble
    refused, _ = single_b0()
    ntr_night(refused, s)
    refused.apply(answer(s.g1, "no"))
    automatic, _ = single_b0(params=None)
    ntr_night(automatic, s, order(s.b0, "ntr", NOBLE))
    texts = [[a.text for a in g.public_view().announcements] for g in (asked, refused, automatic)]
    assert texts[0] == texts[1] == texts[2]


# -- scripts ---------------------------------------------------------------------------------------


def test_a_game_script_answers_in_after_night() -> None:
    probe, s = single_b0()
    script = {
        "ruleset": "wa004",
        "seed": "t",
        "params": ASKED,
        "players": list(probe.characters),
        "roles": dict(probe.state.roles),
        "setup": [
            {"skill": {"by": b, "use": "true_love", "target": NOBLE}}
            for b in probe.state.with_role("betrayer")
        ],
        "days": [
            {
                "day": 1,
                "night": [
                    {"skill": {"by": s.b0, "use": "breakup"}},
                    {"skill": {"by": NOBLE, "use": "barbecue", "target": s.g4a}},
                ],
            },
            {
                "day": 2,
                "night": [
                    {"skill": {"by": s.b0, "use": "ntr", "target": s.g1}},
                    {"skill": {"by": NOBLE, "use": "barbecue", "target": s.b5}},
                ],
                "after_night": [{"skill": {"by": s.g1, "use": "ntr_consent", "choice": "同意"}}],
            },
        ],
    }
    game = run_script(script).game
    assert lover_of(game.state, s.b0) == s.g1 and game.state.day == 3
