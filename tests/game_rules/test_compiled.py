"""The compiled game core (setup.py, mypyc) plays exactly as its plain-Python sources.

A compiled module follows the same code, but not always the same semantics (a class attribute
became an instance default once; see docs/architecture.md, "Compiled core"). So random games,
red cards and substitutions included, are played by both and their event logs compared.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

import game_rules
from game_rules.compiled import compiled_modules
from game_rules.simulation import RandomPolicy, play_random_game

PACKAGE = Path(str(game_rules.__file__)).parent
COMPILED = "game_rules.game" in compiled_modules()
GAMES = 12
RULESETS = ["m72", "m08", "m08_12", "wa004", "wa004_consent"]
POLICY = RandomPolicy(eject=0.1, substitute=0.1, miss_deadline=0.3)

_PLAIN = """
import json, sys
import game_rules.game
assert game_rules.game.__file__.endswith(".py"), game_rules.game.__file__
from game_rules.simulation import RandomPolicy, play_random_game
policy, games, rulesets = RandomPolicy(**json.loads(sys.argv[1])), int(sys.argv[2]), sys.argv[3:]
logs = {r: [play_random_game(r, s, policy=policy).event_dicts() for s in range(games)]
        for r in rulesets}
print(json.dumps(logs, ensure_ascii=False, sort_keys=True, default=str))
"""


def _as_json(logs: dict[str, Any]) -> Any:
    return json.loads(json.dumps(logs, ensure_ascii=False, sort_keys=True, default=str))


@pytest.mark.skipif(not COMPILED, reason="the game core runs as plain Python: nothing to compare")
def test_compiled_core_plays_as_its_sources(tmp_path: Path) -> None:
    shutil.copytree(
        PACKAGE, tmp_path / "game_rules", ignore=shutil.ignore_patterns("*.so", "__pycache__")
    )
    done = subprocess.run(
        [sys.executable, "-c", _PLAIN, json.dumps(asdict(POLICY)), str(GAMES), *RULESETS],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    plain = json.loads(done.stdout)
    compiled = {
        r: [play_random_game(r, s, policy=POLICY).event_dicts() for s in range(GAMES)]
        for r in RULESETS
    }
    assert _as_json(compiled) == plain
    assert sum(len(log) for logs in plain.values() for log in logs) > 1000
