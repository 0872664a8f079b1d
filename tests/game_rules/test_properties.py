"""Property tests: random full games of every ruleset, played through the public API.

Every game is checked by :func:`check_invariants` against issue 2's invariants: the game ends
with exactly one winning faction; a character is eliminated at most once; eliminated characters
never act, vote or get targeted; replaying the JSON log gives the same state and outcome; and no
view leaks what the rules do not grant (each view holds exactly the events whose scope and
audience reach it, never a director-only event, the wolves' kill choices or teammates' roles
outside the wolves, nor an M72 crow's true size).

Two layers feed it, and CI runs both on every ``make test``:

* Volume: ``test_seeded_games`` plays ``BANSHA_SEEDED_GAMES`` (default 2,000) seeded games per
  ruleset, seeds ``BANSHA_SEED_BASE`` (default 0) onwards, cycling through a few fixed policies.
  The seeds are cut into chunks of at most ``CHUNK`` games, one test each, so pytest-xdist spreads
  them over its workers; a failure names the ruleset, seed and policy to replay it with
  ``play_random_game``.
* Variety: the hypothesis tests draw seeds and policies (``BANSHA_GAMES`` examples each, default
  40) and shrink a failure to a small case.

Run more, for example ``BANSHA_SEEDED_GAMES=20000 BANSHA_SEED_BASE=5000 BANSHA_GAMES=500
.venv/bin/pytest -n 2 tests/game_rules/test_properties.py``.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game_rules import Game
from game_rules.actions import Action
from game_rules.events import (
    DIRECTOR,
    PUBLIC,
    ActionTaken,
    Eliminated,
    FlagSet,
    GameStarted,
    StatusSet,
    Told,
    VoteCast,
)
from game_rules.simulation import RandomPolicy, play_random_game, replay_actions
from game_rules.views import build_views
from game_rules.votes import Ballot, BallotBox, load_vote_policy, tally
from game_rules.wa004.events import TrueLoveChosen

GAMES = int(os.environ.get("BANSHA_GAMES", "40"))
SEEDED_GAMES = int(os.environ.get("BANSHA_SEEDED_GAMES", "2000"))
SEED_BASE = int(os.environ.get("BANSHA_SEED_BASE", "0"))
CHUNK = 250
RULESETS = ["m72", "m08", "m08_12", "wa004", "wa004_consent"]  # the variants are data files
# decisions are taken by characters already out (最后一枪, 殉职, 传位)
DECISION_SKILLS = {"shoot", "succession", "leader_succession"}
WOLF_CHOICES = {"kill", "propose", "extra_kill"}
# the seeded games cycle through these: the default, a wild one (many red cards, 替补, missed
# deadlines, few night actions) and a quiet one (every night skill used, no director action)
SEEDED_POLICIES = [
    RandomPolicy(),
    RandomPolicy(
        act_at_night=0.4,
        change_vote=0.5,
        abstain=0.3,
        eject=0.1,
        substitute=0.05,
        last_words=0.2,
        miss_deadline=0.5,
    ),
    RandomPolicy(
        act_at_night=1.0,
        change_vote=0.0,
        abstain=0.0,
        eject=0.0,
        substitute=0.0,
        last_words=1.0,
        miss_deadline=0.0,
    ),
]

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
    log = game.log
    # the game ends, with exactly one winner
    assert state.ended, "random game did not end"
    winner = state.winner
    assert winner is not None and winner in game.params.factions
    assert list(state.results.values()).count("win") == 1
    assert state.results[winner] == "win"
    # eliminated at most once; the dead never vote, act, or get targeted
    alive = set(game.characters)
    seen: set[str] = set()
    for e in log:
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
        elif isinstance(e, TrueLoveChosen):
            assert e.actor in alive, f"dead {e.actor} chose a true love"
    assert alive == state.alive
    # the log rebuilds the same state, also through JSON
    dicts = json.loads(json.dumps(game.event_dicts(), ensure_ascii=False))
    rebuilt = Game.rebuild(game.ruleset_id, None, game.seed_revealed or "", game.characters, dicts)
    assert rebuilt.state.snapshot() == state.snapshot()
    assert rebuilt.outcome() == game.outcome()
    _check_views(game)


def _check_views(game: Game) -> None:
    """Views leak nothing the rules do not grant.

    Who may see which event is worked out by identity over the log, one set per kind; a view
    must then hold exactly those events, in log order, as players see them.
    """
    state = game.state
    log = game.log
    # who may see each event, from its scope and audience (independent of the views' filter)
    public: set[int] = set()
    private: dict[str, set[int]] = {c: set() for c in game.characters}
    never_shown: set[int] = set()  # director-only kinds, whatever their scope says
    private_kinds: set[int] = set()  # never public
    wolf_choices: set[int] = set()
    team: set[int] = set()
    for e in log:
        if e.scope == PUBLIC:
            public.add(id(e))
        elif e.scope != DIRECTOR:
            for c in e.audience():
                if c in private:
                    private[c].add(id(e))
        if isinstance(e, GameStarted | StatusSet | FlagSet):
            never_shown.add(id(e))
        elif isinstance(e, Told | ActionTaken | VoteCast):
            private_kinds.add(id(e))
            if isinstance(e, ActionTaken) and e.skill in WOLF_CHOICES:
                wolf_choices.add(id(e))
            elif isinstance(e, Told) and e.kind == "team":
                team.add(id(e))
    views = build_views(game)
    public_view = views.public()
    shown = {id(e) for e in public_view.events}
    assert shown == public and len(public_view.events) == len(shown)
    assert not shown & (never_shown | private_kinds)
    for c in game.characters:
        view = views.character(c)
        granted = public | private[c]
        # the view holds the granted events in log order, each as players see it (director-only
        # fields dropped: Event.for_players; the fields themselves: test_view_grants.py)
        expected = [e.for_players() for e in log if id(e) in granted]
        assert list(view.events) == expected, f"{c}'s view differs from what scopes grant"
        shown = granted
        assert not shown & never_shown
        role = state.roles[c]
        if role.startswith("crow"):
            # 不知道自己是大乌鸦还是小乌鸦
            mine = view.to_dict()
            mine["public"].pop("verification")  # the deal, published to all once it has ended
            doc = json.dumps(mine, ensure_ascii=False)
            assert view.role == "crow" and "crow_big" not in doc and "crow_small" not in doc
        if not state.params.roles[role].traits.get("wolf"):
            # the wolves' kill choices reach wolves only (and the M08 witch learns the target);
            # only wolves (and the M72 pack) learn teammates' roles
            assert not shown & wolf_choices, f"non-wolf {c} saw the wolves' choice"
            assert not shown & team, f"non-wolf {c} was told the team"


def check_wa004(game: Game) -> None:
    """A real wa004 game: past the start (true loves chosen, couples told) unless red cards ended
    it there."""
    types = [e.TYPE for e in game.log]
    ejected = any(e.cause == "red_card" for e in game.state.eliminations)
    if "wa004_couples_revealed" not in types:
        assert ejected, "random wa004 game stuck in its start phase"
    else:
        chosen = {e.actor for e in game.log if e.TYPE == "wa004_true_love"}
        betrayers = {c for c, r in game.state.roles.items() if r == "betrayer"}
        assert betrayers - chosen <= {e.character for e in game.state.eliminations}


def _chunks() -> list[tuple[str, int, int]]:
    out = []
    for ruleset in RULESETS:
        for start in range(SEED_BASE, SEED_BASE + SEEDED_GAMES, CHUNK):
            out.append((ruleset, start, min(start + CHUNK, SEED_BASE + SEEDED_GAMES)))
    return out


@pytest.mark.parametrize(("ruleset", "start", "stop"), _chunks())
def test_seeded_games(ruleset: str, start: int, stop: int) -> None:
    for seed in range(start, stop):
        policy = SEEDED_POLICIES[seed % len(SEEDED_POLICIES)]
        game = play_random_game(ruleset, seed, policy=policy)
        try:
            check_invariants(game)
            if game.params.engine == "wa004":
                check_wa004(game)
        except AssertionError as exc:
            raise AssertionError(f"{ruleset} seed {seed}, {policy}: {exc}") from exc


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
    check_wa004(game)


def test_random_wa004_games_reach_the_night() -> None:
    # without red cards every game gets past the start and plays days and nights to its end
    quiet = RandomPolicy(eject=0.0, substitute=0.0)
    for seed in range(10):
        game = play_random_game("wa004", seed, policy=quiet)
        assert game.state.ended and game.state.day >= 1
        types = {e.TYPE for e in game.log}
        assert {"wa004_couples_revealed", "wa004_night_judged", "votes_tallied"} <= types


@pytest.mark.parametrize("ruleset", RULESETS)
def test_one_builder_gives_the_views_asked_one_by_one(ruleset: str) -> None:
    # check_invariants asks one builder for every view (indexed after the first); the API asks
    # a fresh builder per view (a direct filter): both must agree, also as the log grows
    for seed in range(3):
        done: list[Action] = []
        game = play_random_game(ruleset, seed, record=done)
        partial = replay_actions(ruleset, seed, done[: len(done) // 2])
        views = build_views(partial)
        before = [views.character(c) for c in partial.characters]
        assert before == [partial.character_view(c) for c in partial.characters]
        for action in done[len(done) // 2 :]:
            partial.apply(action)
        assert partial.event_dicts() == game.event_dicts()
        after = [views.character(c) for c in reversed(partial.characters)]
        assert after == [partial.character_view(c) for c in reversed(partial.characters)]
        assert after != before[::-1]
        assert views.public() == partial.public_view()


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
