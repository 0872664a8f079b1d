"""Suite-wide checks: the game core under test is the one in the sources.

setup.py compiles the game core's hot modules with mypyc, and an editable install puts the
compiled modules beside their sources, where Python imports them in preference to the ``.py``
files. ``make test`` rebuilds them whenever a source changes; pytest run by hand after an edit
would test the old compiled code, so the session stops and says how to rebuild.
"""

from __future__ import annotations

import importlib.machinery
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "game_rules"


def compiled_beside_sources() -> dict[Path, Path]:
    """Each compiled module in the source tree -> its source file."""
    # longest first: ".cpython-311-x86_64-linux-gnu.so" before ".so"
    suffixes = sorted(importlib.machinery.EXTENSION_SUFFIXES, key=len, reverse=True)
    found: dict[Path, Path] = {}
    for built in PACKAGE.rglob("*.*"):
        suffix = next((s for s in suffixes if built.name.endswith(s)), None)
        if suffix is not None:
            found[built] = built.with_name(built.name.removesuffix(suffix) + ".py")
    return found


def stale_compiled_modules() -> list[str]:
    """Sources edited after their compiled module was built (relative paths)."""
    return sorted(
        str(source.relative_to(PACKAGE.parent))
        for built, source in compiled_beside_sources().items()
        if source.exists() and source.stat().st_mtime > built.stat().st_mtime
    )


def pytest_report_header() -> str:
    count = len(compiled_beside_sources())
    if count:
        return f"game core: {count} modules compiled with mypyc (setup.py)"
    return "game core: plain Python (not compiled)"


def pytest_configure(config: pytest.Config) -> None:
    stale = stale_compiled_modules()
    if stale:
        pytest.exit(
            "compiled game core is older than its sources ("
            + ", ".join(stale)
            + "): run `make test` (it rebuilds), or `.venv/bin/pip install -e .`",
            returncode=4,
        )
