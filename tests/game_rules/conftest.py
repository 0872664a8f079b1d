"""Shared fixtures for the game core tests: M72 and M08 games with the fixed seatings of
:mod:`game_rules.shorthand` (test modules import the seatings from there: with importlib import
mode they cannot import this file)."""

from __future__ import annotations

import pytest

from game_rules import Game
from game_rules.shorthand import M08_ROLES, M72_ROLES, make_game


@pytest.fixture
def m72() -> Game:
    """An M72 game at day 1 with the fixed seating."""
    return make_game("m72", M72_ROLES)


@pytest.fixture
def m08() -> Game:
    """An M08 game at day 1 with the fixed seating."""
    return make_game("m08", M08_ROLES)
