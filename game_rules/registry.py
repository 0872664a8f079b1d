"""The ruleset registry and the base class every ruleset engine extends.

A ruleset is an *engine* (a :class:`Ruleset` subclass registered under an engine id) plus
*parameters* (``rulesets/<id>.yaml``, whose ``engine:`` key names the engine). Built-in engines are
imported lazily from :data:`ENGINE_MODULES` the first time they are asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from mypy_extensions import mypyc_attr

from game_rules.actions import (
    DIRECTOR_CAUSE_PLACEHOLDER,
    FACTION_LOSS_PLACEHOLDER,
    SUBSTITUTE_PLAYER_PLACEHOLDER,
    Action,
    DeclareFactionLost,
    Eject,
    Substitute,
)
from game_rules.errors import (
    GameRuleError,
    InvalidTargetError,
    SubstitutionError,
    UnknownCharacterError,
    UnknownRulesetError,
)
from game_rules.events import Event, FactionLost, Substituted
from game_rules.params import RulesetParams, load_params
from game_rules.state import GameState

if TYPE_CHECKING:
    import random

    from game_rules.game import Game

# engine id -> module that registers it on import
ENGINE_MODULES: dict[str, str] = {
    "m72": "game_rules.m72",
    "m08": "game_rules.m08",
    "wa004": "game_rules.wa004",
}
_ENGINES: dict[str, type[Ruleset]] = {}


def register_engine(cls: type[Ruleset]) -> type[Ruleset]:
    """Class decorator: register a :class:`Ruleset` subclass under its ``engine`` id."""
    if not cls.engine:
        raise TypeError(f"{cls.__name__} has no engine id")
    _ENGINES[cls.engine] = cls
    return cls


def engine_class(engine: str) -> type[Ruleset]:
    """The engine class registered as ``engine`` (importing its built-in module if needed)."""
    if engine not in _ENGINES and engine in ENGINE_MODULES:
        try:
            importlib.import_module(ENGINE_MODULES[engine])
        except ModuleNotFoundError as exc:
            raise UnknownRulesetError(message=f"engine {engine!r} is not installed") from exc
    try:
        return _ENGINES[engine]
    except KeyError:
        raise UnknownRulesetError(message=f"no engine {engine!r}") from None


# engines hold only their (frozen) params and values derived from them, so games share one
_SHARED: dict[str, tuple[RulesetParams, type[Ruleset], Ruleset]] = {}


def get_ruleset(ruleset_id: str, overrides: Mapping[str, Any] | None = None) -> Ruleset:
    """The ruleset ``ruleset_id`` (params from its YAML file plus ``overrides``), ready to play."""
    params = load_params(ruleset_id, overrides)
    cls = engine_class(params.engine)
    if overrides:
        return cls(params)
    shared = _SHARED.get(ruleset_id)
    if shared is None or shared[0] is not params or shared[1] is not cls:
        shared = _SHARED[ruleset_id] = (params, cls, cls(params))
    return shared[2]


# compiled by mypyc (setup.py), yet engines written elsewhere, as plain Python, may extend it
@mypyc_attr(allow_interpreted_subclasses=True)
class Ruleset:
    """Base of ruleset engines. Subclasses implement the hooks marked *must*.

    Hooks receive the live :class:`~game_rules.game.Game`; they read ``game.state`` and change
    it only through ``game.emit(event)``. ``handle`` must validate *before* emitting and raise a
    :class:`~game_rules.errors.GameRuleError` subclass for an illegal action; should it raise
    after emitting, the game rolls the partial events back anyway.
    """

    engine: ClassVar[str] = ""
    #: extra event types this engine folds itself (beyond the core ones)
    own_events: ClassVar[tuple[type[Event], ...]] = ()
    #: the event types :meth:`fold` acts on (``Game.emit`` skips the call for others); None =
    #: every type. A subclass that overrides ``fold`` without restating this gets None.
    folded_events: ClassVar[frozenset[type[Event]] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "fold" in vars(cls) and "folded_events" not in vars(cls):
            cls.folded_events = None

    def __init__(self, params: RulesetParams) -> None:
        self.params = params

    # -- must -----------------------------------------------------------------------------------
    def start(self, game: Game) -> None:
        """Emit the opening events after ``GameStarted`` (teammates told, first phase...)."""
        raise NotImplementedError

    def handle(self, game: Game, action: Action) -> None:
        """Validate ``action`` and emit its events (raise on an illegal action)."""
        raise NotImplementedError

    def legal_actions(self, state: GameState, actor: str | None = None) -> list[Action]:
        """Actions legal now (for ``actor``, or the director's when ``actor`` is None)."""
        raise NotImplementedError

    # -- may ------------------------------------------------------------------------------------
    def pending_actors(self, state: GameState) -> list[str]:
        """Characters who may have a legal action now, in seating order (see
        :meth:`~game_rules.game.Game.pending_actors`). Base: every living character."""
        return state.living()

    def deal(
        self, characters: tuple[str, ...], rng: random.Random, fixed: Mapping[str, str]
    ) -> dict[str, str]:
        """Deal roles: ``fixed`` roles first, the rest of the deck shuffled over the others."""
        deck = self.params.deal_list()
        for role in fixed.values():
            if role not in self.params.roles:
                known = "、".join(self.params.roles)
                raise InvalidTargetError("unknown_role", f"没有“{role}”这个身份（可选：{known}）")
            try:
                deck.remove(role)
            except ValueError:
                raise InvalidTargetError(
                    "role_count", f"指定为“{role}”的角色多于本规则集的该身份人数"
                ) from None
        rest = [c for c in characters if c not in fixed]
        rng.shuffle(deck)
        deal = dict(fixed)
        deal.update(zip(rest, deck, strict=True))
        return {c: deal[c] for c in characters}

    def fold(self, state: GameState, event: Event) -> None:
        """Fold an event of ``own_events`` (core events are folded before this is called)."""

    def visible_role(self, state: GameState, character: str) -> str:
        """The role key the character is told (M72 crows are told only 乌鸦)."""
        return state.roles[character]

    def role_name(self, role: str) -> str:
        """Chinese name of a role key as characters are told it."""
        spec = self.params.roles.get(role)
        return spec.name if spec else role

    def substitute(self, game: Game, action: Substitute) -> None:
        """替补: once per character; the substitute inherits everything."""
        state = game.state
        game.require_character(action.character)
        if action.character in state.substituted:
            raise SubstitutionError(message=f"每名角色仅限更换一次替补：{action.character}")
        if not action.player.strip():
            raise SubstitutionError("substitute_name", "替补玩家名不能为空")
        game.emit(Substituted(action.character, state.players[action.character], action.player))

    def declare_lost(self, game: Game, action: DeclareFactionLost) -> None:
        """The director judges a faction lost; then the ruleset's end check runs."""
        self.validate_faction_loss(game.state, action.faction)
        game.emit(FactionLost(action.faction, action.reason))
        self.check_end(game)

    def validate_faction_loss(self, state: GameState, faction: str) -> None:
        """Raise unless ``faction`` may be declared lost now (判负, alone or with a red card).

        Base: a faction of the ruleset not lost yet. Engines add their own limits (M72: never
        the last faction standing).
        """
        if faction not in self.params.factions:
            known = "、".join(self.params.factions)
            raise InvalidTargetError("unknown_faction", f"没有“{faction}”这个阵营（可选：{known}）")
        if faction in state.lost:
            raise InvalidTargetError("already_lost", f"{self.params.factions[faction]}已经判负")

    def director_actions(self, state: GameState) -> list[Action]:
        """The director's discretionary actions legal now (see
        :meth:`~game_rules.game.Game.director_actions`), free text as the placeholders of
        :mod:`game_rules.actions`.

        In this order: a red card for every character, the eliminated too (the seeds: 红牌也可以
        针对已出局的……玩家), each followed by its ``faction_loses`` variant while
        :meth:`validate_faction_loss` allows that faction's 判负; 替补 for every character not yet
        substituted; 判负 of every faction that may lose. The day machinery
        (:class:`~game_rules.werewolf.WerewolfRuleset`) adds 加速 and 遗言.

        An engine whose red-card, 替补 or 判负 rules differ overrides this.
        """
        if state.ended:
            return []
        may_lose = {f for f in self.params.factions if self._may_lose(state, f)}
        out: list[Action] = []
        for c in state.characters:
            out.append(Eject(c, DIRECTOR_CAUSE_PLACEHOLDER))
            if state.factions[c] in may_lose:
                out.append(Eject(c, DIRECTOR_CAUSE_PLACEHOLDER, faction_loses=True))
        out.extend(
            Substitute(c, SUBSTITUTE_PLAYER_PLACEHOLDER)
            for c in state.characters
            if c not in state.substituted
        )
        out.extend(
            DeclareFactionLost(f, FACTION_LOSS_PLACEHOLDER)
            for f in self.params.factions
            if f in may_lose
        )
        return out

    def _may_lose(self, state: GameState, faction: str) -> bool:
        try:
            self.validate_faction_loss(state, faction)
        except GameRuleError:
            return False
        return True

    def eject(self, game: Game, action: Eject) -> None:
        """红牌罚下 with this ruleset's timing and consequences (*must* for playable rulesets)."""
        raise NotImplementedError

    def check_end(self, game: Game) -> bool:
        """Judge win/lose now; emit ``FactionLost``/``GameEnded`` as due. True if the game ended."""
        raise NotImplementedError


def require_known(state: GameState, name: str) -> None:
    """Raise :class:`UnknownCharacterError` unless ``name`` is a character of the game."""
    if name not in state.status:
        raise UnknownCharacterError(message=f"no character named {name!r}")


__all__ = [
    "ENGINE_MODULES",
    "GameRuleError",
    "Ruleset",
    "engine_class",
    "get_ruleset",
    "register_engine",
    "require_known",
]
