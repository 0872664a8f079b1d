"""wa004 views: what a character knows of the love game, the 单身贵族 group's view, the director's.

They complement the core views (:meth:`Game.character_view` etc.) and only show what the rules
grant: a character learns its lover at the reveal and every change by private notice, its own true
love and marks; 单身贵族 know each other and share the group's 烧烤 orders and notices.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from game_rules.events import ActionTaken, Told
from game_rules.game import Game
from game_rules.wa004.couples import (
    FIRST_NOBLE,
    REVEALED,
    SECOND_NOBLE,
    couples,
    has_spent,
    lover_of,
    marks_of,
    noble_group,
    true_love_of,
)
from game_rules.wa004.roles import COUNTED_SKILLS, Role, Skill


@dataclass(frozen=True)
class LoveView:
    """One character's love-game knowledge."""

    character: str
    role: str
    role_name: str
    faction: str
    alive: bool
    lover: str | None
    true_love: str | None
    marks: int
    spent: tuple[str, ...]
    noble_group: tuple[str, ...]
    messages: tuple[str, ...]


@dataclass(frozen=True)
class GroupView:
    """The 单身贵族 group (所有单身贵族将互知共群; eliminated members stay in it)."""

    members: tuple[str, ...]
    orders: tuple[tuple[int, str, str | None], ...]
    messages: tuple[str, ...]


def love_view(game: Game, character: str) -> LoveView:
    """What ``character`` knows: role, lover (once revealed), true love, marks, notices.

    >>> from game_rules.wa004.setups import arranged_game
    >>> g, pairs = arranged_game([("betrayer", "guardian")] * 6, seed="doc")
    >>> love_view(g, pairs[0][1]).lover is None  # not told before every true love is chosen
    True
    """
    game.require_character(character)
    state = game.state
    role = state.role(character)
    told = [e for e in game.log if isinstance(e, Told) and character in e.to]
    return LoveView(
        character=character,
        role=role,
        role_name=game.ruleset.role_name(role),
        faction=state.faction(character),
        alive=state.is_alive(character),
        lover=lover_of(state, character) if state.flags.get(REVEALED) else None,
        true_love=true_love_of(state, character),
        marks=marks_of(state, character),
        # in the seed's order (Skill's), not a set's: set order changes from process to process
        spent=tuple(
            s.value for s in Skill if s in COUNTED_SKILLS and has_spent(state, character, s)
        ),
        noble_group=noble_group(state) if role == Role.NOBLE else (),
        messages=tuple(e.text for e in told),
    )


def group_view(game: Game) -> GroupView:
    """The 单身贵族 group's shared knowledge: members, 烧烤 orders, group notices."""
    state = game.state
    members = noble_group(state)
    orders = tuple(
        (e.day, e.actor, e.target)
        for e in game.log
        if isinstance(e, ActionTaken) and e.skill == "barbecue"
    )
    messages = tuple(e.text for e in game.log if isinstance(e, Told) and e.kind == "group")
    return GroupView(members=members, orders=orders, messages=messages)


def director_love_view(game: Game) -> dict[str, Any]:
    """Everything about the love game (director only)."""
    state = game.state
    return {
        "couples": couples(state),
        "true_loves": {
            c: love for c in state.characters if (love := true_love_of(state, c)) is not None
        },
        "marks": {c: marks_of(state, c) for c in state.characters},
        "shields": {
            c: state.status[c]["shield_until"]
            for c in state.characters
            if state.status[c]["shield_until"]
        },
        "first_noble": state.flags.get(FIRST_NOBLE),
        "second_noble_appeared": state.flags.get(SECOND_NOBLE),
        "nobles": noble_group(state),
        "revealed": bool(state.flags.get(REVEALED)),
    }
