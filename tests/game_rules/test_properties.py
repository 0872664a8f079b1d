"""Property tests: many random full games per ruleset through the public API.

Default: a modest number of games per ruleset so the suite stays fast. Run thousands with
``BANSHA_GAMES=2000 .venv/bin/pytest tests/game_rules/test_properties.py``.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game_rules import Game
from game_rules.actions import Action
from game_rules.events import (
    ActionTaken,
    Eliminated,
    Event,
    FlagSet,
    GameStarted,
    StatusSet,
    Told,
    VoteCast,
)
from game_rules.simulation import RandomPolicy, play_random_game, replay_actions
from game_rules.votes import Ballot, BallotBox, load_vote_policy, tally

GAMES = int(os.environ.get("BANSHA_GAMES", "40"))
RULESETS = ["m72", "m08", "m08_12", "wa004"]
# decisions are taken by characters already out (最后一枪, 殉职, 传位)
DECISION_SKILLS = {"shoot", "succession", "leader_succession"}

policies = st.builds(
    RandomPolicy,
    act_at_night=st.floats(0.3, 1.0),
    change_vote=st.floats(0.0, 0.5),
    abstain=st.floats(0.0, 0.3),
    eject=st.sampled_from([0.0, 0.02, 0.1]),
    substitute=st.sampled_from([0.0, 0.05]),
    last_words=st.floats(0.0, 1.0),
    miss_deadline=st.floats(0.0, 0.5),
)
game_settings = settings(
    max_examples=GAMES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def check_invariants(game: Game) -> None:
    state = game.state
    # the game ends, with exactly one winner
    assert state.ended, "random game did not end"
    winner = state.winner
    assert winner is not None and winner in game.params.factions
    assert list(state.results.values()).count("win") == 1
    assert state.results[winner] == "win"
    # eliminated at most once; the dead never vote, act, or get targeted
    alive = set(game.characters)
    seen: set[str] = set()
    for e in game.log:
        if isinstance(e, Eliminated):
            assert e.character not in seen, f"{e.character} eliminated twice"
            seen.add(e.character)
            alive.discard(e.character)
        elif isinstance(e, VoteCast):
            assert e.voter in alive and (e.target is None or e.target in alive)
        elif isinstance(e, ActionTaken):
            if e.skill not in DECISION_SKILLS:
                assert e.actor in alive, f"dead {e.actor} used {e.skill}"
            assert e.target is None or e.target in alive, f"dead target {e.target}"
    assert alive == state.alive
    # the log rebuilds the same state, also through JSON
    dicts = json.loads(json.dumps(game.event_dicts(), ensure_ascii=False))
    rebuilt = Game.rebuild(game.ruleset_id, None, game.seed_revealed or "", game.characters, dicts)
    assert rebuilt.state.snapshot() == state.snapshot()
    assert rebuilt.outcome() == game.outcome()
    # views leak nothing the rules do not grant
    public = game.public_view()
    private_types = (Told, ActionTaken, VoteCast, GameStarted, StatusSet, FlagSet)
    assert not any(isinstance(e, private_types) for e in public.events)
    for c in game.characters:
        view = game.character_view(c)
        for e in view.events:
            assert e.seen_by(c)
            assert not isinstance(e, GameStarted | StatusSet | FlagSet)
        doc = json.dumps(view.to_dict(), ensure_ascii=False)
        if state.roles[c].startswith("crow"):
            # 不知道自己是大乌鸦还是小乌鸦
            assert view.role == "crow" and "crow_big" not in doc and "crow_small" not in doc
        if not game.params.roles[state.roles[c]].traits.get("wolf"):
            # the wolves' kill choices reach wolves only (and the M08 witch learns the target)
            assert not any(
                isinstance(e, ActionTaken) and e.skill in {"kill", "propose", "extra_kill"}
                for e in view.events
            )
        _no_foreign_roles(game, c, view.events)


def _no_foreign_roles(game: Game, character: str, events: tuple[Event, ...]) -> None:
    """Only wolves (and the M72 pack) learn teammates' roles."""
    team_messages = [e for e in events if isinstance(e, Told) and e.kind == "team"]
    if team_messages:
        assert game.state.params.roles[game.state.roles[character]].traits.get("wolf")


@game_settings
@given(seed=st.integers(0, 2**31), policy=policies)
def test_random_m72_games(seed: int, policy: RandomPolicy) -> None:
    check_invariants(play_random_game("m72", seed, policy=policy))


@game_settings
@given(seed=st.integers(0, 2**31), policy=policies)
def test_random_m08_games(seed: int, policy: RandomPolicy) -> None:
    check_invariants(play_random_game("m08", seed, policy=policy))


@game_settings
@given(seed=st.integers(0, 2**31), policy=policies)
def test_random_m08_12_games(seed: int, policy: RandomPolicy) -> None:
    check_invariants(play_random_game("m08_12", seed, policy=policy))


@game_settings
@given(seed=st.integers(0, 2**31), policy=policies)
def test_random_wa004_games(seed: int, policy: RandomPolicy) -> None:
    game = play_random_game("wa004", seed, policy=policy)
    check_invariants(game)
    # a real game: past the start phase (true loves chosen, couples told) unless red cards
    # ended it there
    types = [e.TYPE for e in game.log]
    ejected = any(e.cause == "red_card" for e in game.state.eliminations)
    if "wa004_couples_revealed" not in types:
        assert ejected, "random wa004 game stuck in its start phase"
    else:
        chosen = {e.actor for e in game.log if e.TYPE == "wa004_true_love"}
        betrayers = {c for c, r in game.state.roles.items() if r == "betrayer"}
        assert betrayers - chosen <= {e.character for e in game.state.eliminations}


def test_random_wa004_games_reach_the_night() -> None:
    # without red cards every game gets past the start and plays days and nights to its end
    quiet = RandomPolicy(eject=0.0, substitute=0.0)
    for seed in range(10):
        game = play_random_game("wa004", seed, policy=quiet)
        assert game.state.ended and game.state.day >= 1
        types = {e.TYPE for e in game.log}
        assert {"wa004_couples_revealed", "wa004_night_judged", "votes_tallied"} <= types


def test_same_seed_same_game() -> None:
    a = play_random_game("m72", 123)
    b = play_random_game("m72", 123)
    assert a.event_dicts() == b.event_dicts()


@game_settings
@given(seed=st.integers(0, 2**31), ruleset=st.sampled_from(RULESETS), policy=policies)
def test_recorded_actions_replay_the_game(seed: int, ruleset: str, policy: RandomPolicy) -> None:
    # the engine-only benchmark replays recorded actions: they must give the very same game
    done: list[Action] = []
    game = play_random_game(ruleset, seed, policy=policy, record=done)
    again = replay_actions(ruleset, seed, done)
    assert again.event_dicts() == game.event_dicts()
    assert again.state.snapshot() == game.state.snapshot()


WEIGHTS = [Fraction(1), Fraction(2), Fraction(3, 2), Fraction(1, 3), Fraction(0)]
VOTERS = "ABCDEFG"


@settings(max_examples=GAMES * 5, deadline=None)
@given(
    moves=st.lists(
        st.tuples(st.sampled_from(VOTERS), st.sampled_from([None, *"XYZAB"])), max_size=20
    ),
    weights=st.dictionaries(st.sampled_from(VOTERS), st.sampled_from(WEIGHTS), max_size=3),
    extra=st.dictionaries(st.sampled_from("XYZ"), st.sampled_from(WEIGHTS), max_size=2),
    excluded=st.sets(st.sampled_from(VOTERS), max_size=2),
)
def test_tally_equals_the_plain_fraction_sum(
    moves: list[tuple[str, str | None]],
    weights: dict[str, Fraction],
    extra: dict[str, Fraction],
    excluded: set[str],
) -> None:
    # tally counts in integer units internally; the result must be the plain Fraction sums
    policy = load_vote_policy("m72")  # unlimited changes
    close = datetime(2026, 3, 1, 22)
    box = BallotBox()
    for i, (voter, target) in enumerate(moves):
        change = any(b.voter == voter for b in box.history)
        at = datetime(2026, 3, 1, 10) + timedelta(minutes=i)
        box = box.cast(Ballot(voter, target, at, is_change=change), policy=policy, closes_at=close)
    result = tally(box, weights, extra, exclude=excluded)
    shown: dict[str, Fraction] = {}
    abstentions = Fraction(0)
    for voter, b in box.current().items():
        if voter in excluded:
            continue
        w = weights.get(voter, Fraction(1))
        if b.target is None:
            abstentions += w
        else:
            shown[b.target] = shown.get(b.target, Fraction(0)) + w
    counts = dict(shown)
    for target, add in extra.items():
        if add:
            counts[target] = counts.get(target, Fraction(0)) + add
    assert dict(result.shown) == shown and dict(result.counts) == counts
    assert result.abstentions == abstentions
    assert all(type(v) is Fraction for v in (*result.counts.values(), *result.shown.values()))
    best = max(counts.values(), default=Fraction(0))
    expected_top = {t for t, n in counts.items() if n == best} if best > 0 else set()
    assert set(result.top()) == expected_top
    first = result.first_to_reach_top()
    assert (first is None) == (not expected_top) and (first is None or first in expected_top)
