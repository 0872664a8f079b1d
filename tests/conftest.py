"""Suite-wide checks: the game core and the screener under test are the ones in the sources.

setup.py compiles the game core's and the screener's hot modules with mypyc, and an editable
install puts the compiled modules beside their sources, where Python imports them in preference
to the ``.py`` files. ``make test`` rebuilds them whenever a source changes; pytest run by hand
after an edit would test the old compiled code, so the session stops and says how to rebuild.
"""

from __future__ import annotations

import pytest

import game_rules
import moderation
from game_rules.compiled import compiled_modules, stale_modules

PACKAGES = {"game core": game_rules, "screener": moderation}


def pytest_report_header() -> list[str]:
    lines = []
    for label, package in PACKAGES.items():
        count = len(compiled_modules(package))
        if count:
            lines.append(f"{label}: {count} modules compiled with mypyc (setup.py)")
        else:
            lines.append(f"{label}: plain Python (not compiled)")
    return lines


def pytest_configure(config: pytest.Config) -> None:
    stale = [name for package in PACKAGES.values() for name in stale_modules(package)]
    if stale:
        pytest.exit(
            "compiled modules are older than their sources ("
            + ", ".join(stale)
            + "): run `make test` (it rebuilds), or `.venv/bin/pip install -e .`",
            returncode=4,
        )
