"""Random full games, for property tests and the benchmark.

A random game plays only through the public API (``legal_actions``, ``apply``, ``eject``,
``substitute``), so whatever it produces a director could have produced.

>>> g = play_random_game("m72", seed=7)
>>> g.outcome().ended
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from game_rules.actions import (
    Action,
    CastVote,
    CloseDay,
    DeadlinePassed,
    EndNight,
    LeaveLastWords,
    UseSkill,
)
from game_rules.errors import GameRuleError
from game_rules.game import Game, new_game
from game_rules.params import load_params
from game_rules.state import DAY, NIGHT, SETUP


@dataclass(frozen=True)
class RandomPolicy:
    """How wild a random game is: chances per opportunity (0 disables a feature)."""

    act_at_night: float = 0.85
    change_vote: float = 0.15
    abstain: float = 0.05
    eject: float = 0.02
    substitute: float = 0.02
    last_words: float = 0.7
    miss_deadline: float = 0.1
    max_steps: int = 5000


def play_random_game(
    ruleset_id: str,
    seed: int | str = 0,
    *,
    policy: RandomPolicy | None = None,
    rng: random.Random | None = None,
) -> Game:
    """Play one random game of ``ruleset_id`` to its end (or ``policy.max_steps`` actions)."""
    policy = policy or RandomPolicy()
    rng = rng or random.Random(str(seed))
    count = load_params(ruleset_id).player_count
    game = new_game(ruleset_id, [f"角色{i:02d}" for i in range(1, count + 1)], seed=str(seed))
    state = game.state
    steps = 0
    while not state.ended and steps < policy.max_steps:
        steps += 1
        _maybe_director(game, rng, policy)
        if state.ended:
            break
        if state.decisions:
            _decide(game, rng, policy)
        elif state.phase == DAY:
            _play_day(game, rng, policy)
        elif state.phase == NIGHT:
            _play_night(game, rng, policy)
        elif state.phase == SETUP:
            _play_setup(game, rng, policy)
    return game


def _try(game: Game, action: Action) -> bool:
    try:
        game.apply(action)
    except GameRuleError:
        return False
    return True


def _maybe_director(game: Game, rng: random.Random, policy: RandomPolicy) -> None:
    state = game.state
    if policy.eject and rng.random() < policy.eject:
        who = rng.choice(state.characters)
        _try(game, _eject(who, rng))
    if policy.substitute and not state.ended and rng.random() < policy.substitute:
        who = rng.choice(state.characters)
        if who not in state.substituted:
            game.substitute(who, f"替补{who}")
    words = [c for c in state.last_words_granted if c not in state.last_words_given]
    for c in words:
        if not state.ended and rng.random() < policy.last_words:
            game.apply(LeaveLastWords(c, f"{c}的最后发言"))


def _eject(who: str, rng: random.Random) -> Action:
    from game_rules.actions import Eject

    return Eject(who, "恶意破坏游戏进行", faction_loses=rng.random() < 0.1)


def _decide(game: Game, rng: random.Random, policy: RandomPolicy) -> None:
    options = game.legal_actions(None)  # every open decision's choices + DeadlinePassed
    if rng.random() < policy.miss_deadline:
        game.apply(options[-1])
        return
    choices = [a for a in options if isinstance(a, UseSkill)]
    game.apply(rng.choice(choices) if choices else options[-1])


def _play_setup(game: Game, rng: random.Random, policy: RandomPolicy) -> None:
    # wa004's start: each 变节者 chooses a true love (or misses the deadline), then the director's
    # deadline draws the missing choices at random and the game moves on to day 1
    state = game.state
    for actor in state.living():
        if state.ended or state.phase != SETUP:
            return
        options = game.legal_actions(actor)
        if options and rng.random() >= policy.miss_deadline:
            game.apply(rng.choice(options))
    if not state.ended and state.phase == SETUP:
        game.apply(DeadlinePassed())


def _play_day(game: Game, rng: random.Random, policy: RandomPolicy) -> None:
    # any living character (or 弃权) is a legal ballot, so targets are drawn directly
    state = game.state
    living = state.living()  # no one leaves while the day's votes are cast
    for voter in living:
        if state.ended or state.phase != DAY:
            return
        target = None if rng.random() < policy.abstain else rng.choice(living)
        _try(game, CastVote(voter, target))
    if policy.change_vote:
        for voter in state.living():
            if state.ended or state.phase != DAY:
                return
            if rng.random() < policy.change_vote:
                _try(game, CastVote(voter, rng.choice(living), is_change=True))
    if not state.ended and state.phase == DAY and not state.decisions:
        game.apply(CloseDay())


def _play_night(game: Game, rng: random.Random, policy: RandomPolicy) -> None:
    state = game.state
    for _ in range(3):  # M08 needs rounds: leader votes, proposals, then the leader's choice
        acted = False
        for actor in state.living():
            if state.ended or state.phase != NIGHT or state.decisions:
                return
            options = game.legal_actions(actor)
            if options and rng.random() < policy.act_at_night:
                game.apply(rng.choice(options))
                acted = True
        if not acted:
            break
    if not state.ended and state.phase == NIGHT and not state.decisions:
        game.apply(EndNight())
