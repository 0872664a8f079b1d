"""The ``>>>`` examples in the forum intake's docstrings are correct."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "forum.errors",
    "forum.text",
    "forum.times",
    "forum.page",
    "forum.discuz",
    "forum.tieba",
    "forum.authors",
    "forum.follower",
    "api.intake",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
