"""``Game.pending_actors``: whoever it leaves out has no legal action, at every point of a game."""

from __future__ import annotations

import pytest

from game_rules.actions import Action, CloseDay, UseSkill
from game_rules.game import Game, new_game
from game_rules.simulation import RandomPolicy, characters_for, play_random_game
from game_rules.state import NIGHT

RULESETS = ("m72", "m08", "wa004")


def _unlisted_with_actions(game: Game) -> list[str]:
    listed = set(game.pending_actors())
    return [c for c in game.characters if c not in listed and game.legal_actions(c)]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_unlisted_characters_have_no_legal_action(ruleset: str) -> None:
    for seed in range(12):
        done: list[Action] = []
        play_random_game(ruleset, seed, policy=RandomPolicy(), record=done)
        game = new_game(ruleset, characters_for(ruleset), seed=str(seed))
        assert _unlisted_with_actions(game) == []
        for action in done:
            game.apply(action)
            assert _unlisted_with_actions(game) == [], (seed, action)
        assert game.state.ended
        assert game.pending_actors() == []


def test_m72_night_lists_only_skill_holders_in_seating_order() -> None:
    game = new_game("m72", characters_for("m72"), seed="night")
    assert game.pending_actors() == game.state.living()  # day 1: every living character votes
    game.apply(CloseDay())
    assert game.state.phase == NIGHT
    actors = game.pending_actors()
    seats = {c: i for i, c in enumerate(game.characters)}
    assert actors == sorted(actors, key=seats.__getitem__)
    assert set(actors) < game.state.alive  # villagers, the fox and the madman have no night skill
    assert all(game.legal_actions(c) for c in actors)
    seer = game.state.with_role("seer")[0]
    target = next(c for c in game.state.living() if c != seer)
    game.apply(UseSkill(seer, "divine", target))
    assert seer not in game.pending_actors()  # 占卜 used tonight
