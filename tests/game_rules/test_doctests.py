"""The ``>>>`` examples in the game core's docstrings are correct."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "game_rules",
    "game_rules.actions",
    "game_rules.errors",
    "game_rules.events",
    "game_rules.frozen",
    "game_rules.game",
    "game_rules.m08",
    "game_rules.night",
    "game_rules.params",
    "game_rules.randomness",
    "game_rules.shorthand",
    "game_rules.simulation",
    "game_rules.state",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
