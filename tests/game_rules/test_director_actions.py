"""``Game.director_actions``: the director's discretionary actions (红牌, 替补, 判负, 加速, 遗言).

Through random games of every ruleset, stopped at many points: every listed action is accepted
by ``apply`` (placeholders as given) on a copy rebuilt from the stored event dicts, every unlisted
variant of the same kinds is refused, and ``legal_actions`` still lists none of them. Then one
named scenario per kind.
"""

from __future__ import annotations

import dataclasses

import pytest

from game_rules.actions import (
    DIRECTOR_CAUSE_PLACEHOLDER,
    FACTION_LOSS_PLACEHOLDER,
    LAST_WORDS_PLACEHOLDER,
    SUBSTITUTE_PLAYER_PLACEHOLDER,
    Action,
    CloseDay,
    DeclareFactionLost,
    Eject,
    EndNight,
    LeaveLastWords,
    ScheduleDay,
    Substitute,
    UseSkill,
)
from game_rules.errors import GameRuleError, SubstitutionError, WrongPhaseError
from game_rules.events import Carded, Eliminated, Event, FactionLost, LastWordsGiven, Substituted
from game_rules.game import Game, new_game
from game_rules.shorthand import M08_ROLES, M72_ROLES, announcements, make_game, vote_day
from game_rules.simulation import characters_for, play_random_game
from game_rules.state import DAY, NIGHT, SETUP

RULESETS = ("m72", "m08", "wa004")
DISCRETIONARY = (Eject, Substitute, DeclareFactionLost, ScheduleDay, LeaveLastWords)


def rebuilt(game: Game, events: list[Event] | None = None) -> Game:
    """A copy of ``game`` rebuilt the way the service does it: from its stored event dicts."""
    return Game.rebuild(
        game.ruleset_id,
        game.overrides or None,
        game.seed_for_director,
        game.characters,
        game.event_dicts() if events is None else events,
    )


def every_variant(game: Game) -> list[Action]:
    """Every action of the discretionary kinds, free text as the placeholders."""
    out: list[Action] = []
    for c in game.characters:
        out += [
            Eject(c, DIRECTOR_CAUSE_PLACEHOLDER),
            Eject(c, DIRECTOR_CAUSE_PLACEHOLDER, faction_loses=True),
            Substitute(c, SUBSTITUTE_PLAYER_PLACEHOLDER),
            LeaveLastWords(c, LAST_WORDS_PLACEHOLDER),
            LeaveLastWords(c, None),
        ]
    out += [DeclareFactionLost(f, FACTION_LOSS_PLACEHOLDER) for f in game.params.factions]
    out += [ScheduleDay(accelerated=True), ScheduleDay(accelerated=False)]
    return out


def check_point(game: Game) -> int:
    """Listed actions apply on a fresh copy each; unlisted ones are refused. Returns how many
    were listed."""
    listed = game.director_actions()
    assert len(set(listed)) == len(listed)
    assert not any(isinstance(a, DISCRETIONARY) for a in game.legal_actions())
    # the stored dicts are read once; each accepted action then gets its own copy
    events = rebuilt(game).log
    for action in listed:
        copy = rebuilt(game, list(events))
        assert copy.apply(action), action  # accepted, and it changed the game
    # the one unlisted variant the engine accepts: setting 加速 to what it already is
    redundant = {
        ScheduleDay(accelerated=not a.accelerated) for a in listed if type(a) is ScheduleDay
    }
    probe = rebuilt(game, list(events))
    for action in every_variant(game):
        if action in listed or action in redundant:
            continue
        with pytest.raises(GameRuleError):
            probe.apply(action)
        assert probe.log_length == game.log_length, action  # refused: nothing changed
    return len(listed)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_listed_actions_apply_and_unlisted_ones_are_refused(ruleset: str) -> None:
    kinds_seen: set[type] = set()
    phases_seen: set[str] = set()
    for seed in range(3):
        done: list[Action] = []
        play_random_game(ruleset, seed, record=done)
        game = new_game(ruleset, characters_for(ruleset), seed=str(seed))
        words_seen: set[str] = set()
        step = max(1, len(done) // 10)
        for i, action in enumerate([None, *done]):
            if action is not None:
                game.apply(action)
            state = game.state
            if state.ended:
                assert game.director_actions() == []
                break
            # ten points spread over the game, plus each open decision and each newly opened
            # last-words right
            open_words = set(state.last_words_granted) - set(state.last_words_given)
            if i % step and not state.decisions and open_words <= words_seen:
                continue
            words_seen |= open_words
            assert check_point(game) > 0
            kinds_seen.update(type(a) for a in game.director_actions())
            phases_seen.add(state.phase)
        assert game.state.ended
    # the walk really met every kind and phase (a wa004 game starts in its setup phase)
    assert kinds_seen == set(DISCRETIONARY)
    assert phases_seen >= {DAY, NIGHT} | ({SETUP} if ruleset == "wa004" else set())


# -- named scenarios ------------------------------------------------------------------------------


def test_day_one_lists_each_card_substitute_loss_and_acceleration() -> None:
    game = make_game("m08", M08_ROLES)
    listed = game.director_actions()
    names = list(M08_ROLES)
    ejects = [a for a in listed if isinstance(a, Eject)]
    assert ejects == [
        Eject(c, DIRECTOR_CAUSE_PLACEHOLDER, loses) for c in names for loses in (False, True)
    ]
    assert [a for a in listed if isinstance(a, Substitute)] == [
        Substitute(c, SUBSTITUTE_PLAYER_PLACEHOLDER) for c in names
    ]
    assert [a for a in listed if isinstance(a, DeclareFactionLost)] == [
        DeclareFactionLost("wolves", FACTION_LOSS_PLACEHOLDER),
        DeclareFactionLost("villagers", FACTION_LOSS_PLACEHOLDER),
    ]
    assert [a for a in listed if isinstance(a, ScheduleDay)] == [ScheduleDay(accelerated=True)]
    assert not any(isinstance(a, LeaveLastWords) for a in listed)  # nobody is out yet
    assert game.legal_actions() == [CloseDay()]  # the director's legal actions are unchanged


def test_the_eliminated_can_still_be_carded_without_leaving_twice() -> None:
    game = make_game("m08", M08_ROLES)
    game.apply(Eject("村1", "辱骂他人"))
    assert "村1" not in game.state.alive
    listed = game.director_actions()
    assert Eject("村1", DIRECTOR_CAUSE_PLACEHOLDER) in listed  # 红牌也可以针对已出局的玩家
    events = game.apply(Eject("村1", DIRECTOR_CAUSE_PLACEHOLDER))
    carded = [e for e in events if isinstance(e, Carded)]
    assert carded and carded[0].already_out
    assert not any(isinstance(e, Eliminated) for e in events)
    assert not any(isinstance(a, LeaveLastWords) for a in listed)  # a red card gives no words


def test_faction_loss_variants_follow_validate_faction_loss() -> None:
    game = make_game("m72", M72_ROLES)
    assert Eject("狐", DIRECTOR_CAUSE_PLACEHOLDER, faction_loses=True) in game.director_actions()
    declare = DeclareFactionLost("foxes", FACTION_LOSS_PLACEHOLDER)
    assert declare in game.director_actions()
    events = game.apply(dataclasses.replace(declare, reason="串号"))
    assert FactionLost("foxes", "串号") in events
    listed = game.director_actions()
    assert declare not in listed
    assert Eject("狐", DIRECTOR_CAUSE_PLACEHOLDER, faction_loses=True) not in listed
    assert Eject("狐", DIRECTOR_CAUSE_PLACEHOLDER) in listed  # the card alone is still open
    with pytest.raises(GameRuleError) as refused:
        game.apply(Eject("狐", DIRECTOR_CAUSE_PLACEHOLDER, faction_loses=True))
    assert refused.value.rule == "already_lost"
    assert {a.faction for a in listed if isinstance(a, DeclareFactionLost)} == {
        "wolves",
        "villagers",
    }


def test_a_character_is_listed_for_substitution_until_substituted() -> None:
    game = make_game("m72", M72_ROLES)
    listed = next(
        a for a in game.director_actions() if a == Substitute("占", SUBSTITUTE_PLAYER_PLACEHOLDER)
    )
    events = game.apply(dataclasses.replace(listed, player="新玩家"))
    assert Substituted("占", "占", "新玩家") in events
    assert not any(
        isinstance(a, Substitute) and a.character == "占" for a in game.director_actions()
    )
    with pytest.raises(SubstitutionError):
        game.apply(Substitute("占", SUBSTITUTE_PLAYER_PLACEHOLDER))  # 每名角色仅限更换一次替补


def test_schedule_day_switches_acceleration_by_day_only() -> None:
    game = make_game("m72", M72_ROLES)
    game.apply(ScheduleDay(accelerated=True))
    assert [a for a in game.director_actions() if isinstance(a, ScheduleDay)] == [
        ScheduleDay(accelerated=False)  # 延迟成功时，不再视为执行加速
    ]
    game.apply(CloseDay())
    assert game.state.phase == NIGHT
    assert not any(isinstance(a, ScheduleDay) for a in game.director_actions())
    with pytest.raises(WrongPhaseError):
        game.apply(ScheduleDay(accelerated=True))


def test_open_last_words_are_listed_with_their_abandon_form() -> None:
    game = make_game("m08", M08_ROLES)
    vote_day(game, dict.fromkeys(game.state.living(), "村1"))
    for wolf in ("狼A", "狼B", "狼C", "狼D"):
        game.apply(UseSkill(wolf, "leader_vote", "狼A"))
    game.apply(UseSkill("狼A", "propose", "村2", reason="刀人"))
    game.apply(UseSkill("狼A", "kill", "村2"))
    game.apply(EndNight())
    assert game.state.phase == DAY and "村2" not in game.state.alive
    words = [a for a in game.director_actions() if isinstance(a, LeaveLastWords)]
    assert words == [LeaveLastWords("村2", LAST_WORDS_PLACEHOLDER), LeaveLastWords("村2", None)]
    events = game.apply(dataclasses.replace(words[0], text="我是村民"))
    assert LastWordsGiven("村2", "我是村民", 2) in events
    assert "村2的遗言：我是村民" in announcements(game, 2)
    assert not any(isinstance(a, LeaveLastWords) for a in game.director_actions())


def test_wa004_start_lists_cards_and_losses_but_no_day_schedule() -> None:
    game = new_game("wa004", characters_for("wa004"), seed="start")
    assert game.state.phase == SETUP
    listed = game.director_actions()
    assert not any(isinstance(a, ScheduleDay) for a in listed)
    assert sum(isinstance(a, Substitute) for a in listed) == len(game.characters)
    with pytest.raises(WrongPhaseError):
        game.apply(ScheduleDay(accelerated=True))
    check_point(game)


def test_an_ended_game_lists_nothing() -> None:
    game = make_game("m08", M08_ROLES)
    game.apply(DeclareFactionLost("wolves", "集体作弊"))
    assert game.state.ended
    assert game.director_actions() == []
    assert game.legal_actions() == []
