"""Short-hand for driving a game from code (tests, notebooks, docs).

>>> from game_rules import new_game
>>> g = new_game("m08", list("ABCDEFGHIJK"), seed="s")
>>> vote_day(g, {"A": "B", "C": "B"})
>>> g.state.sheriff
'B'
"""

from __future__ import annotations

from collections.abc import Mapping

from game_rules.actions import CastVote, CloseDay, EndNight, UseSkill
from game_rules.game import Game, new_game

# Seatings with every role fixed, one character per role slot of each seed, named after the role
# (tests and examples drive games with these).
#: [M72]: 狼1，幼狼1，狂人2，狐狸1，占卜1，灵能1，守卫1，大小乌鸦2，村民2
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
#: [M08]: 4狼人、4村民、1预言家、1女巫、1猎人
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


def make_game(ruleset: str, roles: Mapping[str, str], seed: str = "test") -> Game:
    """A game whose roles are all fixed (seating = the mapping's order)."""
    return new_game(ruleset, list(roles), seed=seed, roles=dict(roles))


def vote_day(game: Game, votes: Mapping[str, str | None], *, close: bool = True) -> None:
    """Cast ``votes`` (voter -> target, None = 弃权) in order, then close the day."""
    for voter, target in votes.items():
        game.apply(CastVote(voter, target))
    if close:
        game.apply(CloseDay())


def play_night(game: Game, *skills: tuple[str, str, str | None], end: bool = True) -> None:
    """Use night skills ``(actor, skill, target)`` in order, then end the night."""
    for actor, skill, target in skills:
        game.apply(UseSkill(actor, skill, target))
    if end:
        game.apply(EndNight())


def announcements(game: Game, day: int | None = None) -> list[str]:
    """Public announcement texts (of one day, or all)."""
    return [a.text for a in game.public_view().announcements if day is None or a.day == day]


def private_messages(game: Game, character: str) -> list[str]:
    """The character's private messages, in order."""
    return game.character_view(character).messages()
