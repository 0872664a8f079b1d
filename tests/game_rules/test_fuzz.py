"""Garbage actions never crash the engine and never change a game they are rejected from."""

from __future__ import annotations

import dataclasses
import random
from datetime import datetime
from typing import Any

import pytest

from game_rules import (
    CastVote,
    CloseDay,
    DeadlinePassed,
    DeclareFactionLost,
    Eject,
    EndNight,
    GameRuleError,
    LeaveLastWords,
    ScheduleDay,
    Substitute,
    UseSkill,
    new_game,
)

JUNK: list[Any] = [None, "", "X", 3, 1.5, True, ["a"], {"a": 1}, datetime(2026, 1, 1), "弃权"]
ACTIONS: list[Any] = [
    CastVote, CloseDay, UseSkill, EndNight, DeadlinePassed, LeaveLastWords, Eject, Substitute,
    DeclareFactionLost, ScheduleDay,
]  # fmt: skip
SKILLS = [
    "kill",
    "divine",
    "guard",
    "slander",
    "extra_kill",
    "propose",
    "save",
    "poison",
    "leader_vote",
    "duel",
]
SKILLS += ["duel_agree", "shoot", "succession", "leader_succession"]


@pytest.mark.parametrize("ruleset", ["m72", "m08"])
@pytest.mark.parametrize("seed", range(6))
def test_random_garbage_is_rejected_cleanly(ruleset: str, seed: int) -> None:
    rng = random.Random(seed)
    count = 12 if ruleset == "m72" else 11
    game = new_game(ruleset, [f"P{i:02d}" for i in range(1, count + 1)], seed=str(seed))
    applied = 0
    for _ in range(300):
        if game.state.ended:
            break
        cls = rng.choice(ACTIONS)
        pool = JUNK + list(game.characters) * 3 + SKILLS * (cls is UseSkill)
        kwargs = {f.name: rng.choice(pool) for f in dataclasses.fields(cls)}
        before, length = game.state.snapshot(), game.log_length
        try:
            game.apply(cls(**kwargs))  # an ill-typed action is refused as it is made
            applied += 1
        except GameRuleError:
            assert game.log_length == length
            assert game.state.snapshot() == before
    assert applied > 0
