"""Random full games, for property tests and the benchmark.

A random game plays only through the public API (``legal_actions``, ``apply``, ``eject``,
``substitute``), so whatever it produces a director could have produced.

>>> g = play_random_game("m72", seed=7)
>>> g.outcome().ended
True
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

# Repeated on purpose: each module imports by name what it uses (an import list, not logic).
from game_rules.actions import (
    Action,
    CastVote,
    CloseDay,
    DeadlinePassed,
    Eject,
    EndNight,
    LeaveLastWords,
    Substitute,
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
    record: list[Action] | None = None,
    secret: str = "",
) -> Game:
    """Play one random game of ``ruleset_id`` to its end (or ``policy.max_steps`` actions).

    ``record``, if given, receives every action the game accepted, in order: applying them to
    ``new_game(ruleset_id, game.characters, seed=str(seed))`` replays the same game (see
    :func:`replay_actions`). ``secret`` is the server secret (none by default, as in scripts).
    """
    policy = policy or RandomPolicy()
    rng = rng or random.Random(str(seed))
    game = new_game(ruleset_id, characters_for(ruleset_id), seed=str(seed), secret=secret)
    play = _Playout(game, rng, policy, record)
    state = game.state
    steps = 0
    while not state.ended and steps < policy.max_steps:
        steps += 1
        play.director()
        if state.ended:
            break
        if state.decisions:
            play.decide()
        elif state.phase == DAY:
            play.day()
        elif state.phase == NIGHT:
            play.night()
        elif state.phase == SETUP:
            play.setup()
    return game


def characters_for(ruleset_id: str) -> list[str]:
    """The character names random games of ``ruleset_id`` use (``角色01``, ``角色02``...)."""
    count = load_params(ruleset_id).player_count
    return [f"角色{i:02d}" for i in range(1, count + 1)]


def replay_actions(
    ruleset_id: str, seed: int | str, actions: Iterable[Action], secret: str = ""
) -> Game:
    """A new game of ``ruleset_id`` with ``seed`` (and ``secret``), driven by ``actions`` (all
    must be legal).

    >>> done: list[Action] = []
    >>> g = play_random_game("m08", 3, record=done, secret="ab" * 32)
    >>> replay_actions("m08", 3, done, "ab" * 32).event_dicts() == g.event_dicts()
    True
    """
    game = new_game(ruleset_id, characters_for(ruleset_id), seed=str(seed), secret=secret)
    for action in actions:
        game.apply(action)
    return game


# CastVote values are immutable: a random game's ballots are drawn from a small set, built once
_BALLOTS: dict[tuple[str, str | None, bool], CastVote] = {}


def _ballot(voter: str, target: str | None, is_change: bool) -> CastVote:
    """``CastVote(voter, target, is_change=is_change)``, shared (bounded cache)."""
    key = (voter, target, is_change)
    ballot = _BALLOTS.get(key)
    if ballot is None:
        if len(_BALLOTS) >= 16384:
            _BALLOTS.clear()
        ballot = _BALLOTS[key] = CastVote(voter, target, is_change=is_change)
    return ballot


class _Playout:
    """One random game in progress: the game, the random source, the policy, the record."""

    __slots__ = ("game", "policy", "record", "rng", "state")

    def __init__(
        self, game: Game, rng: random.Random, policy: RandomPolicy, record: list[Action] | None
    ) -> None:
        self.game = game
        self.state = game.state
        self.rng = rng
        self.policy = policy
        self.record = record

    def apply(self, action: Action) -> None:
        self.game.apply(action)
        if self.record is not None:
            self.record.append(action)

    def attempt(self, action: Action) -> bool:
        """Apply ``action`` if the rules allow it (a refused action changes nothing)."""
        try:
            self.apply(action)
        except GameRuleError:
            return False
        return True

    def director(self) -> None:
        state, rng, policy = self.state, self.rng, self.policy
        if policy.eject and rng.random() < policy.eject:
            who = rng.choice(state.characters)
            self.attempt(Eject(who, "恶意破坏游戏进行", faction_loses=rng.random() < 0.1))
        if policy.substitute and not state.ended and rng.random() < policy.substitute:
            who = rng.choice(state.characters)
            if who not in state.substituted:
                self.apply(Substitute(who, f"替补{who}"))
        words = [c for c in state.last_words_granted if c not in state.last_words_given]
        for c in words:
            if not state.ended and rng.random() < policy.last_words:
                self.apply(LeaveLastWords(c, f"{c}的最后发言"))

    def decide(self) -> None:
        options = self.game.legal_actions(None)  # every open decision's choices + DeadlinePassed
        if self.rng.random() < self.policy.miss_deadline:
            self.apply(options[-1])
            return
        choices = [a for a in options if isinstance(a, UseSkill)]
        self.apply(self.rng.choice(choices) if choices else options[-1])

    def setup(self) -> None:
        # wa004's start: each 变节者 chooses a true love (or misses the deadline), then the
        # director's deadline draws the missing choices at random and day 1 begins
        state, rng = self.state, self.rng
        for actor in state.living():
            if state.ended or state.phase != SETUP:
                return
            options = self.game.legal_actions(actor)
            if options and rng.random() >= self.policy.miss_deadline:
                self.apply(rng.choice(options))
        if not state.ended and state.phase == SETUP:
            self.apply(DeadlinePassed())

    def day(self) -> None:
        # any living character (or 弃权) is a legal ballot, so targets are drawn directly
        state, policy = self.state, self.policy
        draw = self.rng.random
        living = state.living()  # no one leaves while the day's votes are cast
        n = len(living)
        for voter in living:
            if state.ended or state.phase != DAY:
                return
            target = None if draw() < policy.abstain else living[int(draw() * n)]
            self.attempt(_ballot(voter, target, False))
        if policy.change_vote:
            for voter in state.living():
                if state.ended or state.phase != DAY:
                    return
                if draw() < policy.change_vote:
                    self.attempt(_ballot(voter, living[int(draw() * n)], True))
        if not state.ended and state.phase == DAY and not state.decisions:
            self.apply(CloseDay())

    def night(self) -> None:
        state, rng, game = self.state, self.rng, self.game
        for _ in range(3):  # M08 needs rounds: leader votes, proposals, then the leader's choice
            acted = False
            # only characters who may act can have options: asking the others draws nothing
            for actor in game.pending_actors():
                if state.ended or state.phase != NIGHT or state.decisions:
                    return
                options = game.legal_actions(actor)
                if options and rng.random() < self.policy.act_at_night:
                    self.apply(options[int(rng.random() * len(options))])
                    acted = True
            if not acted:
                break
        if not state.ended and state.phase == NIGHT and not state.decisions:
            self.apply(EndNight())
