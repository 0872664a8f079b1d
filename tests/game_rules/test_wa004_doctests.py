"""The ``>>>`` examples in the wa004 package's docstrings are correct."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "game_rules.wa004",
    "game_rules.wa004.roles",
    "game_rules.wa004.rules",
    "game_rules.wa004.setups",
    "game_rules.wa004.views",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
