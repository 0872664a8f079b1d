"""Random full games simulated per second, per ruleset (goal: >= 2,000 M72 games/s on one core).

Two figures per ruleset:

- **with policy** (the issue's figure): each game is generated and played through the public API
  by :func:`game_rules.simulation.play_random_game`: the random decision policy asks
  ``legal_actions`` and draws from them (night skills, decisions, deadlines, wa004's true-love
  choice; day ballots and changes are drawn straight from the living, each a legal ballot), and
  the engine validates and applies every action. No red cards or substitutions, so every game is
  a plain full game.
- **engine only**: the actions such games were made of are recorded once, then replayed through
  ``Game.apply`` on a fresh game (:func:`game_rules.simulation.replay_actions`): validation,
  events and folding, without the policy's ``legal_actions`` enumeration and random draws.

A last row counts instructions instead of seconds (valgrind's callgrind, when installed): the
same on a busy machine, so it is the figure to compare between runs. Instructions are not time
(this workload runs at fewer instructions per cycle than the reference), so its ratio is not the
time ratio.

The reference, measured in the same run, is a fixed pure-Python workload (sorting 2,000
pseudo-random integers and folding them into a dict), in runs per second: the ratio "games per
reference run" is what compares across machines. Rates are per CPU-second of this process (one
core), and each figure and its reference are measured in alternating slices, so both see the
same machine.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import sys
import time
from typing import Any

from game_rules.actions import Action
from game_rules.compiled import compiled_modules
from game_rules.game import Game
from game_rules.simulation import RandomPolicy, play_random_game, replay_actions

SECONDS = 4.0
REPLAY_POOL = 100  # recorded games per ruleset for the engine-only figure
RULESETS = ("m72", "m08", "wa004")
POLICY = RandomPolicy(eject=0.0, substitute=0.0)

# The reference is a yardstick for this machine's speed (compare ratios across runs), not a rival.
CALIBRATION = (
    "machine-speed calibration, not a competitor: "
    "fixed Python workload (sort 2,000 ints + dict fold)"
)


def _reference_run(seed: int) -> int:
    rng = random.Random(seed)
    data = sorted(rng.randrange(1_000_000) for _ in range(2_000))
    folded: dict[int, int] = {}
    for x in data:
        folded[x % 97] = folded.get(x % 97, 0) + x
    return len(folded)


SLICE = 0.2  # CPU seconds of the workload per turn; the reference gets a quarter of that


def _paired(fn: Any, seconds: float) -> tuple[float, float]:
    """Calls per CPU-second of ``fn(i)`` and of the reference, measured in alternating slices.

    CPU time rather than wall time: the figure is "on one core" and other processes on a busy
    machine do not count against it.

    A shared machine speeds up and slows down by the second; measured one after the other, the
    two rates could see different machines and their ratio would swing with it. Interleaved,
    both see the same conditions.
    """
    fn(0)
    _reference_run(0)
    counts = [0, 0]
    spent = [0.0, 0.0]
    while spent[0] < seconds:
        for side, (work, span) in enumerate(((fn, SLICE), (_reference_run, SLICE / 4))):
            start = time.process_time()
            while True:
                work(counts[side])
                counts[side] += 1
                elapsed = time.process_time() - start
                if elapsed >= span:
                    break
            spent[side] += elapsed
    return counts[0] / spent[0], counts[1] / spent[1]


def build() -> str:
    """How the game core under test was installed: compiled by setup.py (mypyc) or not."""
    compiled = compiled_modules()
    if compiled:
        return f"game core compiled with mypyc ({len(compiled)} modules, setup.py)"
    return "game core as plain Python (BANSHA_PURE_PYTHON, or no compiled build)"


def run() -> list[dict[str, Any]]:
    """The benchmark rows for BENCHMARKS.md."""
    results: list[dict[str, Any]] = []
    for ruleset in RULESETS:
        try:
            play_random_game(ruleset, 0, policy=POLICY)
        except Exception as exc:  # an engine not (yet) installed is reported, not fatal
            results.append(
                {
                    "name": f"random full {ruleset} games",
                    "value": 0.0,
                    "unit": "games/s",
                    "reference": "n/a",
                    "reference_value": 0.0,
                    "higher_is_better": True,
                    "note": f"not run: {type(exc).__name__}: {exc}",
                }
            )
            continue
        rate, reference = _paired(
            lambda i, r=ruleset: play_random_game(r, i, policy=POLICY), SECONDS
        )
        note = "including the random decision policy"
        if ruleset == "m72":
            note += f"; goal >= 2,000 games/s on one core; {build()}"
        elif ruleset == "wa004":
            note += "; from the start phase (true loves) to the end"
        results.append(
            {
                "name": f"random full {ruleset} games",
                "value": rate,
                "unit": "games/s",
                "reference": CALIBRATION + ", runs/s",
                "reference_value": reference,
                "higher_is_better": True,
                "note": note,
            }
        )
        results.append(_engine_row(ruleset))
    results.append(_rebuild_row())
    results.extend(_instruction_rows())
    return results


# --- instructions (deterministic: the same count on a busy machine) ------------------------------

INSTRUCTION_GAMES = 20
_CHILD = """
import sys
from bench.bench_game import POLICY, _reference_run
from game_rules.simulation import play_random_game
what, n = sys.argv[1], int(sys.argv[2])
play_random_game("m72", 10_000, policy=POLICY)  # warm-up: imports, caches
_reference_run(10_000)
for i in range(n):
    play_random_game("m72", i, policy=POLICY) if what == "game" else _reference_run(i)
"""


def _instructions(what: str, n: int) -> int:
    """Instructions valgrind's callgrind counts for a child running ``n`` of ``what``."""
    callgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    done = subprocess.run(
        [*callgrind, sys.executable, "-c", _CHILD, what, str(n)],
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError("callgrind printed no instruction count")
    return int(found.group(1))


def _instruction_rows() -> list[dict[str, Any]]:
    """Instructions per random M72 game against the reference workload, counted by callgrind.

    Timings on these shared machines swing by a factor of two; instruction counts do not (they
    ignore what else the machine runs), so they are the figure to compare across runs. Skipped
    without valgrind.
    """
    if shutil.which("valgrind") is None:
        return []
    base = {w: _instructions(w, 0) for w in ("game", "reference")}
    per = {
        w: (_instructions(w, INSTRUCTION_GAMES) - base[w]) / INSTRUCTION_GAMES
        for w in ("game", "reference")
    }
    return [
        {
            "name": "random full m72 game, instructions (callgrind)",
            "value": per["game"] / 1e6,
            "unit": "M instructions/game",
            "reference": CALIBRATION + ", M instructions/run",
            "reference_value": per["reference"] / 1e6,
            "higher_is_better": False,
            "note": (
                f"{INSTRUCTION_GAMES} games (seeds 0-{INSTRUCTION_GAMES - 1}) with the random "
                "policy, counted by valgrind --tool=callgrind; the same on a busy machine"
            ),
        }
    ]


def _engine_row(ruleset: str) -> dict[str, Any]:
    """Replaying recorded random games' actions through ``Game.apply`` (no policy)."""
    pool: list[tuple[str, list[Action]]] = []
    for seed in range(REPLAY_POOL):
        record: list[Action] = []
        play_random_game(ruleset, seed, policy=POLICY, record=record)
        pool.append((str(seed), record))

    def replay(i: int) -> None:
        seed, actions = pool[i % len(pool)]
        replay_actions(ruleset, seed, actions)

    actions = sum(len(a) for _, a in pool) / len(pool)
    rate, reference = _paired(replay, SECONDS / 2)
    return {
        "name": f"random full {ruleset} games, engine only",
        "value": rate,
        "unit": "games/s",
        "reference": CALIBRATION + ", runs/s",
        "reference_value": reference,
        "higher_is_better": True,
        "note": (
            f"recorded actions of {len(pool)} such games replayed through Game.apply "
            f"({actions:.0f} per game)"
        ),
    }


def _rebuild_row() -> dict[str, Any]:
    """Rebuilding finished M72 games from their JSON event logs (the service's read path)."""
    logs = []
    for seed in range(40):
        g = play_random_game("m72", seed, policy=POLICY)
        logs.append((str(seed), g.characters, g.event_dicts()))

    def rebuild(i: int) -> None:
        seed, characters, dicts = logs[i % len(logs)]
        Game.rebuild("m72", None, seed, characters, dicts)

    rate, reference = _paired(rebuild, SECONDS / 2)

    return {
        "name": "rebuild finished m72 games from their event logs",
        "value": rate,
        "unit": "games/s",
        "reference": CALIBRATION + ", runs/s",
        "reference_value": reference,
        "higher_is_better": True,
        "note": f"{sum(len(d) for _, _, d in logs) / len(logs):.0f} events per game on average",
    }


if __name__ == "__main__":
    for row in run():
        print(row)
