"""Random full wa004 games (hypothesis): the invariants of issue 2 hold in every playout.

These playouts pick any legal action (also the director's, under rule variants) and check each
step; ``WA004_PLAYOUTS`` examples (default 60; ``WA004_PLAYOUTS=5000``, for example, plays
thousands). The volume is in ``test_properties.py``: 2,000 seeded wa004 games per run
(``BANSHA_SEEDED_GAMES``), with the default parameters only (``play_random_game`` takes none);
the 牛头人 question (``rules.ntr_consent: asked``, R8) gets its own seeded games here
(``WA004_CONSENT_GAMES``, default 300), played like ``simulation.RandomPolicy`` plays.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from game_rules import CastVote, UseSkill
from game_rules.actions import (
    Action,
    CloseDay,
    DeadlinePassed,
    Eject,
    EndNight,
    LeaveLastWords,
    Substitute,
)
from game_rules.events import (
    PUBLIC,
    ActionTaken,
    Announced,
    DecisionClosed,
    DecisionOpened,
    Eliminated,
    FlagSet,
    Told,
    VoteCast,
)
from game_rules.game import Game, new_game
from game_rules.wa004 import events as ev
from game_rules.wa004.couples import NTR_PAUSE
from game_rules.wa004.setups import NAMES
from game_rules.wa004.views import love_view

PLAYOUTS = int(os.environ.get("WA004_PLAYOUTS", "60"))
CONSENT_GAMES = int(os.environ.get("WA004_CONSENT_GAMES", "300"))
MAX_STEPS = 4000
ASKED: dict[str, Any] = {"rules": {"ntr_consent": "asked"}}
VARIANTS: list[dict[str, Any] | None] = [
    None,
    {"rules": {"retain_window": "cooldown", "nobility_ends": "second_alive"}},
    {"rules": {"martyrdom_on_red_card": False, "empty_faction_loses": True}},
    {"rules": {"marks_to_convert": 2, "guardian_win_from_night": 3}},
    ASKED,
    {"rules": {"ntr_consent": "asked", "marks_to_convert": 2, "martyrdom_on_red_card": False}},
]
ROLE_WORDS = ("变节者", "守护者", "单身贵族", "殉情", "烧烤", "尊贵", "捍卫")


def actor_of(action: Action) -> str | None:
    if isinstance(action, UseSkill | LeaveLastWords):
        return action.actor
    if isinstance(action, CastVote):
        return action.voter
    return None


def playout(seed: int, director_rate: float, params: dict[str, Any] | None = None) -> Game:
    """Play random legal actions until the game ends; check per-step invariants on the way."""
    rng = random.Random(seed)
    g = new_game("wa004", NAMES, seed=str(seed), params=params)
    for _ in range(MAX_STEPS):
        if g.state.ended:
            break
        options = [a for c in g.state.living() for a in g.legal_actions(c)]
        if rng.random() < 0.03 and g.state.phase != "setup":
            options.append(
                LeaveLastWords(NAMES[0], "遗言")
            )  # often illegal: must be refused cleanly
        if not options or rng.random() < director_rate:
            options = g.legal_actions(None)
        roll = rng.random()
        if roll < 0.01:  # red card, sometimes with the faction judged lost
            options = [Eject(rng.choice(NAMES), "恶意破坏游戏", faction_loses=roll < 0.002)]
        elif roll < 0.015:
            options = [Substitute(rng.choice(NAMES), "替补")]  # a second one is refused
        action = rng.choice(options)
        actor = actor_of(action)
        if actor is not None and not isinstance(action, LeaveLastWords):
            assert g.state.is_alive(actor), action  # legal_actions never offers the dead
        before = g.state.snapshot()
        try:
            g.apply(action)
        except ValueError:
            assert g.state.snapshot() == before  # refused: nothing changed
    return g


def check_log(g: Game) -> None:
    """Eliminated at most once; the dead never act, vote or get targeted."""
    out: set[str] = set()
    for e in g.log:
        if isinstance(e, Eliminated):
            assert e.character not in out, e
            out.add(e.character)
        elif isinstance(e, ActionTaken):
            assert e.actor not in out and e.target not in out, e
        elif isinstance(e, VoteCast):
            assert e.voter not in out and e.target not in out, e
        elif isinstance(e, ev.TrueLoveChosen):
            assert e.actor not in out


def check_views(g: Game) -> None:
    """No role named in public before the end; private texts reach only their addressees."""
    for a in g.public_view().announcements:
        if a.kind not in {"end", "seed"}:
            assert not any(w in a.text for w in ROLE_WORDS), a.text
    assert not any(isinstance(e, Told) for e in g.public_view().events)
    for c in g.characters:
        view = g.character_view(c)
        assert all(c in t.to for t in view.told)
        assert love_view(g, c).messages == tuple(t.text for t in view.told)


@settings(max_examples=PLAYOUTS, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    director_rate=st.sampled_from([0.05, 0.2, 0.5]),
    params=st.sampled_from(VARIANTS),
)
def test_random_games_keep_the_invariants(
    seed: int, director_rate: float, params: dict[str, Any] | None
) -> None:
    g = playout(seed, director_rate, params)
    assert g.state.ended, "the game must end"
    outcome = g.outcome()
    assert list(outcome.results.values()).count("win") == 1
    assert outcome.winner is not None and outcome.results[outcome.winner] == "win"
    assert outcome.seed == str(seed)
    check_log(g)
    check_views(g)
    dicts = json.loads(json.dumps(g.event_dicts(), ensure_ascii=False))
    again = Game.rebuild("wa004", params, str(seed), NAMES, dicts)
    assert again.state.snapshot() == g.state.snapshot()
    assert again.outcome() == outcome
    assert [type(a) for a in g.public_view().announcements] == [Announced] * len(
        g.public_view().announcements
    )


# -- rules.ntr_consent: asked, seeded --------------------------------------------------------------


def policy_game(seed: int, params: dict[str, Any], miss_deadline: float, eject: float) -> Game:
    """One random game played the way ``simulation.RandomPolicy`` plays (open decisions through
    ``legal_actions(None)``, a missed deadline sometimes, a few red cards), but with ``params``,
    which ``play_random_game`` does not take."""
    rng = random.Random(f"consent:{seed}")
    g = new_game("wa004", NAMES, seed=str(seed), params=params)
    for _ in range(MAX_STEPS):
        if g.state.ended:
            break
        if rng.random() < eject:
            g.apply(Eject(rng.choice(NAMES), "恶意破坏游戏"))  # also on the dead: only recorded
            continue
        if g.state.decisions and rng.random() < 0.1:
            # a red card while a question is open: often on the 牛头人's user or target
            pause = g.state.flags[NTR_PAUSE]
            who = rng.choice([pause["user"], pause["target"], rng.choice(NAMES)])
            g.apply(Eject(who, "恶意破坏游戏"))
        elif g.state.decisions:
            options = g.legal_actions(None)  # every open question's answers + DeadlinePassed
            answers = [a for a in options if isinstance(a, UseSkill)]
            miss = rng.random() < miss_deadline or not answers
            g.apply(options[-1] if miss else rng.choice(answers))
        elif g.state.phase == "setup":
            for actor in g.state.living():
                options = g.legal_actions(actor)
                if g.state.phase == "setup" and options and rng.random() >= miss_deadline:
                    g.apply(rng.choice(options))
            if not g.state.ended and g.state.phase == "setup":
                g.apply(DeadlinePassed())
        elif g.state.phase == "day":
            living = g.state.living()
            for voter in living:
                g.apply(CastVote(voter, rng.choice([*living, None])))
            g.apply(CloseDay())
        else:
            for actor in g.pending_actors():
                options = g.legal_actions(actor)
                if options and rng.random() < 0.85:
                    g.apply(rng.choice(options))
            g.apply(EndNight())
    return g


def check_consent(g: Game) -> dict[str, int]:
    """Questions come one at a time, at night, to the paused 牛头人's target; each is closed once;
    the prompts reach only that target; the public sees only public events. Returns the count of
    questions and of each way they closed."""
    counts = {"asked": 0, "yes": 0, "no": 0, "deadline": 0, "void": 0}
    target: str | None = None
    open_question: str | None = None
    for e in g.log:
        if isinstance(e, FlagSet) and e.key == NTR_PAUSE and e.value:
            target = e.value["target"]
        elif isinstance(e, DecisionOpened):
            assert e.decision == "ntr_consent" and open_question is None and e.actor == target
            open_question = e.actor
            counts["asked"] += 1
        elif isinstance(e, DecisionClosed):
            assert e.decision == "ntr_consent" and e.actor == open_question
            open_question = None
            counts[e.how if e.how != "chosen" else str(e.result)] += 1
        elif isinstance(e, Told) and e.kind == "ntr_consent":
            assert e.to == (target,), e
    assert open_question is None or g.state.ended
    assert all(e.scope == PUBLIC for e in g.public_view().events)
    return counts


def test_seeded_games_with_the_ntr_question_keep_the_invariants() -> None:
    totals = dict.fromkeys(("asked", "yes", "no", "deadline", "void"), 0)
    for seed in range(CONSENT_GAMES):
        params = VARIANTS[-1] if seed % 3 == 2 else ASKED
        g = policy_game(seed, params, miss_deadline=(0.0, 0.2, 0.5)[seed % 3], eject=0.004)
        try:
            assert g.state.ended, "the game must end"
            outcome = g.outcome()
            assert list(outcome.results.values()).count("win") == 1
            check_log(g)
            check_views(g)
            for key, n in check_consent(g).items():
                totals[key] += n
            dicts = json.loads(json.dumps(g.event_dicts(), ensure_ascii=False))
            again = Game.rebuild("wa004", params, str(seed), NAMES, dicts)
            assert again.state.snapshot() == g.state.snapshot()
            assert again.outcome() == outcome
        except AssertionError as exc:
            raise AssertionError(f"seed {seed}, {params}: {exc}") from exc
    # the runs really ask, and every way a question closes comes up
    assert totals["asked"] >= CONSENT_GAMES // 2, totals
    assert min(totals["yes"], totals["no"], totals["deadline"], totals["void"]) > 0, totals
