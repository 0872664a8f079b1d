"""Every kind of illegal wa004 action raises its named error and leaves the game unchanged."""

from __future__ import annotations

import pytest

from game_rules import CastVote, CloseDay, LeaveLastWords, Substitute, UseSkill
from game_rules.actions import Action
from game_rules.errors import (
    DeadActorError,
    GameOverError,
    GameRuleError,
    InvalidTargetError,
    NotYourSkillError,
    SkillUsedUpError,
    SubstitutionError,
    UnknownCharacterError,
    WrongPhaseError,
)
from game_rules.game import Game
from game_rules.wa004.errors import (
    ElopeWithLoverError,
    NotInCoupleError,
    NotSingleError,
    RetainWindowError,
    SelfTargetError,
    TrueLoveChosenError,
)
from game_rules.wa004.setups import (
    STANDARD_KINDS,
    arranged_game,
    choose_true_loves,
    order,
    play_day,
    play_night,
)

NOBLE = "P13"


def night_two() -> tuple[Game, dict[str, str]]:
    """Night 2: b0 broke up with g0, g1 retained, b3's one-sided elope spent it, c4 is dead."""
    g, p = arranged_game(STANDARD_KINDS, seed="t")
    choose_true_loves(g, {b: NOBLE for b in g.state.with_role("betrayer")})
    names = dict(zip(["b0", "g0", "b1", "g1", "b2a", "b2b", "b3", "g3", "g4a", "g4b", "b5", "g5"],
                     [c for pair in p for c in pair], strict=True))  # fmt: skip
    n = names
    g.apply(Substitute(n["g5"], "替补甲"))
    play_day(g)
    play_night(
        g,
        order(n["b0"], "breakup"),
        order(n["g1"], "retain"),
        order(n["b3"], "elope", n["b1"]),
        order(NOBLE, "barbecue", n["g4a"]),
    )
    play_day(g)
    return g, names


CASES: list[tuple[str, type[GameRuleError]]] = [
    ("dead actor|g4a|defend|", DeadActorError),
    ("dead target|P13|barbecue|g4a", InvalidTargetError),
    ("unknown target|b1|elope|Nobody", UnknownCharacterError),
    ("target on an untargeted skill|b1|breakup|g1", InvalidTargetError),
    ("missing target|b1|elope|", InvalidTargetError),
    ("guardian has no breakup|g1|breakup|", NotYourSkillError),
    ("betrayer has no retain|b1|retain|", NotYourSkillError),
    ("betrayer has no barbecue|b1|barbecue|g1", NotYourSkillError),
    ("no such skill|b1|fly|", NotYourSkillError),
    ("self target|b0|ntr|b0", SelfTargetError),
    ("ntr while coupled|b1|ntr|g0", NotSingleError),
    ("breakup while single|b0|breakup|", NotInCoupleError),
    ("retain while single|g0|retain|", NotInCoupleError),
    ("elope with own lover|b2a|elope|b2b", ElopeWithLoverError),
    ("retain twice in nights 1-2|g1|retain|", RetainWindowError),
    ("elope use spent|b3|elope|b1", SkillUsedUpError),
    ("true love after the start|b1|true_love|g1", TrueLoveChosenError),
    ("noble barbecues itself|P13|barbecue|P13", SelfTargetError),
]


def _resolve(names: dict[str, str], value: str) -> str | None:
    return names.get(value, value) or None


@pytest.mark.parametrize(("case", "error"), CASES, ids=[c[0].split("|")[0] for c in CASES])
def test_illegal_night_order_changes_nothing(case: str, error: type[GameRuleError]) -> None:
    g, n = night_two()
    _, actor, skill, target = case.split("|")
    action = UseSkill(_resolve(n, actor) or "", skill, _resolve(n, target))
    _assert_refused(g, action, error)


def _assert_refused(g: Game, action: Action, error: type[GameRuleError]) -> None:
    before, log = g.state.snapshot(), g.log
    with pytest.raises(error) as caught:
        g.apply(action)
    assert caught.value.rule  # every error names its rule
    assert g.state.snapshot() == before and g.log == log


def test_vote_at_night_is_refused() -> None:
    g, n = night_two()
    _assert_refused(g, CastVote(n["b1"], n["g1"]), WrongPhaseError)


def test_close_day_at_night_is_refused() -> None:
    g, _ = night_two()
    _assert_refused(g, CloseDay(), WrongPhaseError)


def test_last_words_without_the_right_are_refused() -> None:
    g, n = night_two()
    _assert_refused(g, LeaveLastWords(n["b1"], "再见"), NotYourSkillError)


def test_second_substitution_is_refused() -> None:
    g, n = night_two()
    _assert_refused(g, Substitute(n["g5"], "替补乙"), SubstitutionError)


def test_nothing_is_accepted_after_the_end() -> None:
    g, p = arranged_game(STANDARD_KINDS, seed="t")
    choose_true_loves(g, {b: NOBLE for b in g.state.with_role("betrayer")})
    play_day(g)
    play_night(g, order(p[0][1], "defend"), order(NOBLE, "barbecue", p[0][1]))
    play_day(g)
    play_night(g, order(p[1][1], "defend"), order(NOBLE, "barbecue", p[1][1]))
    assert g.state.ended
    _assert_refused(g, CastVote(p[0][0], p[1][0]), GameOverError)
    assert g.legal_actions() == [] and g.legal_actions(p[0][0]) == []


def test_legal_actions_are_all_accepted_and_only_they() -> None:
    """Every listed order is accepted; every other (skill, target) pair is refused."""
    g, _ = night_two()
    for actor in g.state.living():
        legal = set(g.legal_actions(actor))
        for skill in ("breakup", "elope", "ntr", "retain", "defend", "barbecue"):
            for target in [None, *g.state.characters]:
                action = UseSkill(actor, skill, target)
                probe = Game.rebuild("wa004", None, g.seed_for_director, g.characters, g.log)
                try:
                    probe.apply(action)
                except GameRuleError:
                    assert action not in legal, action
                else:
                    assert action in legal, action
