"""Which game-core modules run compiled (setup.py builds them with mypyc) rather than as source.

The benchmark names the build it measured, the test suite's header says which build it tests,
and the suite refuses a compiled module older than its source (an editable install imports the
compiled copy beside the ``.py`` file). Found without importing the modules themselves.

>>> sorted(compiled_modules()) == sorted(set(compiled_modules()))  # names, each once
True
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import pkgutil
from pathlib import Path

import game_rules


def compiled_modules() -> dict[str, Path]:
    """Each ``game_rules`` module that would be imported from a C extension -> that file."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    found: dict[str, Path] = {}
    for info in pkgutil.walk_packages(game_rules.__path__, prefix="game_rules."):
        spec = importlib.util.find_spec(info.name)
        origin = spec.origin if spec is not None else None
        if origin is not None and origin.endswith(suffixes):
            found[info.name] = Path(origin)
    return found


def source_of(name: str, built: Path) -> Path:
    """The ``.py`` file a compiled module ``name`` was built from (beside ``built``)."""
    return built.with_name(name.rsplit(".", 1)[-1] + ".py")


def stale_modules() -> list[str]:
    """Compiled modules whose source was edited after they were built."""
    return sorted(
        name
        for name, built in compiled_modules().items()
        if (source := source_of(name, built)).exists()
        and source.stat().st_mtime > built.stat().st_mtime
    )


__all__ = ["compiled_modules", "source_of", "stale_modules"]
