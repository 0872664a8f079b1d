"""The ``>>>`` examples in the moderation engine's docstrings are correct.

Read from each module's source file (``run_examples``, shared with the game core's test): setup.py
compiles the screener's hot modules with mypyc, and ``doctest.testmod`` finds no examples in a
compiled module. They run against the module as imported, compiled or not.
"""

from __future__ import annotations

import importlib

import pytest

from tests.game_rules.test_doctests import run_examples

MODULES = [
    "moderation.normalize",
    "moderation.variants",
    "moderation.wordseg",
    "moderation.lexicon",
    "moderation.patterns",
    "moderation.rules",
    "moderation.screen",
    "moderation.layers",
    "moderation.speaker",
    "moderation.senses",
    "moderation.cli",
    "moderation.features",
    "moderation.classifier",
    "moderation.training",
    "lexicons.loader",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BANSHA_MODEL", "/nonexistent/model.skops")
    result = run_examples(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
