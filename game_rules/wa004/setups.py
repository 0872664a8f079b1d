"""Build wa004 games with a chosen arrangement of couples (tests, examples, teaching).

The couples stay an honest draw from the seed: the draw depends only on the seed and on which
seats are not the 单身贵族, so :func:`arranged_game` draws them first and then fixes the roles
around them to get the requested kinds of couples.

>>> g, pairs = arranged_game([("betrayer", "guardian")] * 6, seed="doc")
>>> [(g.state.role(a), g.state.role(b)) for a, b in pairs][:2]
[('betrayer', 'guardian'), ('betrayer', 'guardian')]
>>> g.state.role(NOBLE_SEAT)
'noble'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from game_rules.actions import CastVote, CloseDay, EndNight, UseSkill
from game_rules.game import Game, new_game
from game_rules.wa004.couples import couples
from game_rules.wa004.roles import Role, Skill

NAMES: tuple[str, ...] = tuple(f"P{i:02}" for i in range(1, 14))
NOBLE_SEAT = "P13"


def arranged_game(
    kinds: Sequence[tuple[str, str]],
    *,
    seed: str = "wa004",
    names: Sequence[str] = NAMES,
    noble: str = NOBLE_SEAT,
    params: Mapping[str, object] | None = None,
) -> tuple[Game, list[tuple[str, str]]]:
    """A game in its start phase whose couples have the role ``kinds`` asked for, in order.

    Returns the game and its couples, each oriented like its kind (``("betrayer", "guardian")``
    gives ``(the betrayer, the guardian)``).
    """
    probe = new_game("wa004", names, seed, params=params, roles={noble: Role.NOBLE.value})
    drawn = couples(probe.state)
    if len(kinds) != len(drawn):
        raise ValueError(f"{len(drawn)} couples are drawn, {len(kinds)} kinds given")
    roles = {noble: Role.NOBLE.value}
    pairs = []
    for (a, b), (ka, kb) in zip(drawn, kinds, strict=True):
        roles[a], roles[b] = ka, kb
        pairs.append((a, b))
    game = new_game("wa004", names, seed, params=params, roles=roles)
    if couples(game.state) != drawn:
        raise AssertionError("the couple draw changed with the roles")  # pragma: no cover
    return game, pairs


def choose_true_loves(game: Game, loves: Mapping[str, str]) -> None:
    """Every 变节者 chooses: ``loves`` maps some of them to their true love; the rest pick the
    first other character in seat order."""
    state = game.state
    for b in state.with_role(Role.BETRAYER):
        target = loves.get(b) or next(c for c in state.living() if c != b)
        game.apply(UseSkill(b, Skill.TRUE_LOVE.value, target))


def order(actor: str, skill: str, target: str | None = None) -> UseSkill:
    """Shorthand for a night order: ``order("P01", "ntr", "P05")``."""
    return UseSkill(actor, skill, target)


def play_night(game: Game, *orders: UseSkill) -> None:
    """Give the night ``orders`` in this order, then close the night (``EndNight``)."""
    for o in orders:
        game.apply(o)
    game.apply(EndNight())


def play_day(game: Game, votes: Mapping[str, str | None] | None = None) -> None:
    """Cast ``votes`` (voter -> target, None = 弃权), then close the day (``CloseDay``)."""
    for voter, target in (votes or {}).items():
        game.apply(CastVote(voter, target))
    game.apply(CloseDay())


#: the arrangement the skill tests play: couples c0..c5, c2 two 变节者 and c4 two 守护者
STANDARD_KINDS: tuple[tuple[str, str], ...] = (
    ("betrayer", "guardian"),
    ("betrayer", "guardian"),
    ("betrayer", "betrayer"),
    ("betrayer", "guardian"),
    ("guardian", "guardian"),
    ("betrayer", "guardian"),
)


@dataclass(frozen=True)
class Seats:
    """Who is who in the standard arrangement (couples c0..c5 as in :data:`STANDARD_KINDS`)."""

    b0: str
    g0: str
    b1: str
    g1: str
    b2a: str
    b2b: str
    b3: str
    g3: str
    g4a: str
    g4b: str
    b5: str
    g5: str


def standard_game(
    seed: str = "t",
    loves: Mapping[str, str] | None = None,
    params: Mapping[str, object] | None = None,
) -> tuple[Game, Seats]:
    """Day 1 of the standard arrangement; every 变节者's true love is the 单身贵族 unless
    ``loves`` says otherwise.

    >>> g, s = standard_game()
    >>> g.state.phase, g.state.role(s.b2b), g.state.role(s.g4a)
    ('day', 'betrayer', 'guardian')
    """
    game, pairs = arranged_game(STANDARD_KINDS, seed=seed, params=params)
    base = {b: NOBLE_SEAT for b in game.state.with_role(Role.BETRAYER)}
    choose_true_loves(game, {**base, **(loves or {})})
    return game, Seats(*(name for pair in pairs for name in pair))
