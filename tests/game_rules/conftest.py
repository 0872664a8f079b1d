"""Shared fixtures for the game core tests: M72 and M08 games with fixed seatings.

(The test modules repeat the seatings as constants: with importlib import mode they cannot
import this file.)
"""

from __future__ import annotations

import pytest

from game_rules import Game
from game_rules.shorthand import make_game

# M72 seating with fixed roles (狼1，幼狼1，狂人2，狐狸1，占卜1，灵能1，守卫1，大小乌鸦2，村民2)
M72_ROLES: dict[str, str] = {
    "狼": "wolf",
    "幼": "wolf_cub",
    "狂甲": "madman",
    "狂乙": "madman",
    "狐": "fox",
    "占": "seer",
    "灵": "medium",
    "守": "guard",
    "大鸦": "crow_big",
    "小鸦": "crow_small",
    "村甲": "villager",
    "村乙": "villager",
}

# M08 seating (4狼人、4村民、1预言家、1女巫、1猎人)
M08_ROLES: dict[str, str] = {
    "狼A": "wolf",
    "狼B": "wolf",
    "狼C": "wolf",
    "狼D": "wolf",
    "预": "seer",
    "巫": "witch",
    "猎": "hunter",
    "村1": "villager",
    "村2": "villager",
    "村3": "villager",
    "村4": "villager",
}


@pytest.fixture
def m72() -> Game:
    """An M72 game at day 1 with the fixed seating above."""
    return make_game("m72", M72_ROLES)


@pytest.fixture
def m08() -> Game:
    """An M08 game at day 1 with the fixed seating above."""
    return make_game("m08", M08_ROLES)
