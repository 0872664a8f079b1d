"""Build hook: compiles the game core's hot modules to C extensions with mypyc.

Everything else (metadata, dependencies, packages) is in pyproject.toml, whose build requirements
bring mypy (mypyc ships with it). A random full game spends its time in the modules listed below;
compiled, it runs about 1.7 times as fast (BENCHMARKS.md). The sources stay the reference: the
same code runs as plain Python, with the same results (docs/architecture.md, "Compiled core").

``BANSHA_PURE_PYTHON=1 pip install -e .`` installs without compiling, and removes compiled
modules an earlier editable install left beside the sources (they would shadow the ``.py``
files). Plain Python is slower, nothing else; its tracebacks show every frame.
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent

COMPILED = [
    "game_rules/game.py",
    "game_rules/state.py",
    "game_rules/registry.py",
    "game_rules/werewolf.py",
    "game_rules/m72.py",
    "game_rules/m08.py",
    "game_rules/night.py",
    "game_rules/votes.py",
    "game_rules/simulation.py",
    "game_rules/wa004/engine.py",
    "game_rules/wa004/couples.py",
]


def _in_tree_builds() -> list[Path]:
    """Compiled modules an editable install built beside the sources."""
    return [
        *ROOT.glob("game_rules/**/*.so"),
        *ROOT.glob("game_rules__mypyc*.so"),
    ]


if os.environ.get("BANSHA_PURE_PYTHON"):
    for built in _in_tree_builds():
        built.unlink()
    ext_modules = []
else:
    from mypyc.build import mypycify

    ext_modules = mypycify(COMPILED, opt_level="3", debug_level="1", group_name="game_rules")

# the group and its per-module shims compile side by side, one per core
setup(ext_modules=ext_modules, options={"build_ext": {"parallel": os.cpu_count() or 1}})
