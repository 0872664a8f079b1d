"""Suite-wide checks: the game core under test is the one in the sources.

setup.py compiles the game core's hot modules with mypyc, and an editable install puts the
compiled modules beside their sources, where Python imports them in preference to the ``.py``
files. ``make test`` rebuilds them whenever a source changes; pytest run by hand after an edit
would test the old compiled code, so the session stops and says how to rebuild.
"""

from __future__ import annotations

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
