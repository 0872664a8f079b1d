"""Suite-wide checks: the game core under test is the one in the sources.

setup.py compiles the game core's hot modules with mypyc, and an editable install puts the
compiled modules beside their sources, where Python imports them in preference to the ``.py``
files. ``make test`` rebuilds them whenever a source changes; pytest run by hand after an edit
would test the old compiled code, so the session stops and says how to rebuild.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from game_rules.compiled import compiled_modules, stale_modules


def pytest_report_header() -> str:
    count = len(compiled_modules())
    if count:
        return f"game core: {count} modules compiled with mypyc (setup.py)"
    return "game core: plain Python (not compiled)"


def pytest_configure(config: pytest.Config) -> None:
    stale = stale_modules()
    if stale:
        pytest.exit(
            "compiled game core is older than its sources ("
            + ", ".join(stale)
            + "): run `make test` (it rebuilds), or `.venv/bin/pip install -e .`",
            returncode=4,
        )


#: The seeds (the specification) sit beside the repository: ``../shared/seeds`` from its root.
#: ``BANSHA_SEEDS`` names another folder (a git worktree lives one level deeper).
SEEDS_BESIDE_THE_REPO = Path(__file__).resolve().parents[1].parent / "shared" / "seeds"


@pytest.fixture(scope="session")
def seeds_dir() -> Path:
    """The seeds' folder; a test that needs them skips, saying where they were looked for."""
    folder = Path(os.environ.get("BANSHA_SEEDS") or SEEDS_BESIDE_THE_REPO)
    if not any(folder.glob("*.txt")):
        pytest.skip(
            f"the seeds are not at {folder}: they sit beside the repository as ../shared/seeds "
            "(set BANSHA_SEEDS to the folder that holds them)"
        )
    return folder
