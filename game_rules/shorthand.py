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
