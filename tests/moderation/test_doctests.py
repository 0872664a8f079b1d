"""The ``>>>`` examples in the moderation engine's docstrings are correct."""

from __future__ import annotations

import doctest
import importlib

import pytest

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
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
