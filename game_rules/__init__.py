"""Bansha game core: pure, event-sourced referees for the seed rulesets (m72, m08, wa004).

Quick start::

    >>> from game_rules import new_game, CastVote, CloseDay
    >>> g = new_game("m08", [f"P{i:02}" for i in range(1, 12)], seed="demo")
    >>> for voter in g.state.living():
    ...     _ = g.apply(CastVote(voter, "P01"))
    >>> _ = g.apply(CloseDay())
    >>> g.state.sheriff, g.state.phase
    ('P01', 'night')

Concepts
--------
* **Events** (``events.py``): frozen dataclasses appended to the game's log; the only way state
  changes. ``event_to_dict`` / ``event_from_dict`` give plain JSON dicts with a ``type`` tag.
* **State** (``state.py``): ``GameState``, the fold of the log (folded incrementally).
* **Actions** (``actions.py``): requests (``CastVote``, ``CloseDay``, ``UseSkill``, ``EndNight``,
  ``DeadlinePassed``, ``LeaveLastWords``, ``Eject``, ``Substitute``, ``DeclareFactionLost``,
  ``ScheduleDay``). ``Game.apply(action)`` validates, then emits events; an illegal action raises a
  ``GameRuleError`` subclass naming the rule and leaves the game unchanged.
  ``Game.legal_actions(actor)`` lists what a character (votes, night skills, decisions) or the
  director (``actor=None``: decisions' choices, ``DeadlinePassed``, ``CloseDay``, ``EndNight``)
  may do now; ``Game.director_actions()`` lists the director's discretionary ones (``Eject``,
  ``Substitute``, ``DeclareFactionLost``, ``ScheduleDay``, ``LeaveLastWords``), free text as the
  placeholders ``DIRECTOR_CAUSE_PLACEHOLDER`` ... that the director replaces.
* **Views** (``views.py``): public / per-character / director; built only from each event's scope.
* **Closed sets** (``enums.py``): ``Phase``, ``Cause``, ``Skill``, ``Result``, ``CardColour``; the
  service's and the console's label tables are keyed by them.
* **Announcements** (``announcements.py``): the wording of every 公示, one per fact, as data; a
  ruleset lists the facts its days open with (``day_opening``).
* **Randomness** (``randomness.py``): a server secret (``new_secret()``, given by the caller) and
  the director's seed make one key for the deal and every pick; commitment = SHA-256(secret +
  seed + deal) published at the start, secret and seed revealed by ``GameEnded``; each pick is
  recorded (``RandomPicked``) and ``verification.py`` recomputes them all after the game.
* **Rebuilding**: ``Game.rebuild(ruleset_id, params_overrides, seed, characters, event_dicts)``.
  Actions also have a JSON form: ``action_to_dict`` / ``action_from_dict``.

Storing and rebuilding (the service's recipe)
--------------------------------------------
::

    g = new_game("m08", names, seed=seed, params=overrides, secret=new_secret())
    row = (g.ruleset_id, g.overrides, g.seed_for_director, g.characters, g.event_dicts())
    ...                                                           # store; later:
    g = Game.rebuild(ruleset_id, overrides, seed, characters, event_dicts)  # secret: in the log
    new_events = g.apply(action_from_dict(request_json))          # tuple of Event
    [event_to_dict(e) for e in new_events]                        # append these rows
    g.public_view().to_dict(); g.character_view(name).to_dict(); g.outcome().to_dict()

Every rule error is a ``GameRuleError`` (a ``ValueError``) with ``.rule`` and ``.message``.

How a ruleset plugs in
----------------------
1. Write the parameters as data: ``game_rules/rulesets/<id>.yaml`` with at least ``id``,
   ``engine`` (the engine id that plays it), ``player_count``, ``factions`` (key -> Chinese name)
   and ``roles`` (key -> ``{name, faction, count, ...traits}``; counts must add up to
   ``player_count``). Common optional keys: ``sheriff_weight``, ``tie_rule``,
   ``last_words``, ``red_card_timing`` (``before_vote``/``after_vote``),
   ``night_order``, ``deadlines`` (minutes after 关门), ``vote_policy``, ``day_opening`` (the
   facts each day opens with), ``acceleration`` (the 加速 threshold); anything else lands in
   ``RulesetParams.extra``. A variant (M08 with 12 players: ``rulesets/m08_12.yaml``) needs only
   a new YAML file naming an existing engine.
2. Write the engine: a subclass of ``game_rules.registry.Ruleset`` (or of
   ``game_rules.werewolf.WerewolfRuleset``, which already does day votes via ``votes.py``,
   sheriff, last words, decisions, red cards and deadlines) with ``engine = "<id>"``,
   registered with ``@register_engine`` (a module that setup.py compiles calls
   ``register_engine(Cls)`` after the class instead: docs/architecture.md, "Compiled core").
   Implement ``start(game)``, ``handle(game, action)``, ``legal_actions(state, actor)``,
   ``eject(game, action)`` and ``check_end(game)``; optionally ``validate_faction_loss`` and
   ``director_actions`` (when the engine's 判负, red-card or 替补 rules differ from the base),
   ``deal``, ``fold`` (for the engine's own event classes, registered with ``@register_event``
   and listed in ``own_events``) and ``visible_role``. Hooks read ``game.state`` and change it
   only with ``game.emit(event)``; validate before emitting (the game rolls back anyway if a
   hook raises midway). Random picks: ``game.pick(label, candidates)`` or
   ``game.shuffled(label, items)`` (recorded, so they can be verified). End the game with
   ``game.end(winner, results, reason)``.
3. Add the module to ``registry.ENGINE_MODULES`` (``"wa004": "game_rules.wa004"``) so that it is
   imported lazily on first use, and ``new_game("<id>", ...)`` works.

Per-character bookkeeping without new event classes: ``StatusSet(character, key, value)`` and
``FlagSet(key, value)`` (director-only), ``Told`` for private feedback, ``Announced`` for 公示.
"""

from __future__ import annotations

from game_rules.actions import (
    DIRECTOR_CAUSE_PLACEHOLDER,
    FACTION_LOSS_PLACEHOLDER,
    LAST_WORDS_PLACEHOLDER,
    SUBSTITUTE_PLAYER_PLACEHOLDER,
    Action,
    CastVote,
    CloseDay,
    DeadlinePassed,
    DeclareFactionLost,
    Eject,
    EndNight,
    LeaveLastWords,
    ScheduleDay,
    Substitute,
    UseSkill,
    action_from_dict,
    action_to_dict,
)
from game_rules.enums import CardColour, Cause, Phase, Result, Skill
from game_rules.errors import (
    DeadActorError,
    GameOverError,
    GameRuleError,
    IllegalActionError,
    InvalidTargetError,
    LogError,
    NotYourSkillError,
    ParameterError,
    PendingDecisionError,
    ScriptError,
    SkillUsedUpError,
    SubstitutionError,
    UnknownCharacterError,
    UnknownRulesetError,
    WrongPhaseError,
)
from game_rules.events import Event, event_from_dict, event_to_dict, register_event
from game_rules.game import Game, new_game
from game_rules.outcome import Outcome
from game_rules.params import RulesetParams, load_params
from game_rules.randomness import new_secret
from game_rules.registry import Ruleset, get_ruleset, register_engine
from game_rules.state import Elimination, GameState
from game_rules.views import CharacterView, DirectorView, PublicView

__all__ = [
    "DIRECTOR_CAUSE_PLACEHOLDER",
    "FACTION_LOSS_PLACEHOLDER",
    "LAST_WORDS_PLACEHOLDER",
    "SUBSTITUTE_PLAYER_PLACEHOLDER",
    "Action",
    "CardColour",
    "CastVote",
    "Cause",
    "CharacterView",
    "CloseDay",
    "DeadActorError",
    "DeadlinePassed",
    "DeclareFactionLost",
    "DirectorView",
    "Eject",
    "Elimination",
    "EndNight",
    "Event",
    "Game",
    "GameOverError",
    "GameRuleError",
    "GameState",
    "IllegalActionError",
    "InvalidTargetError",
    "LeaveLastWords",
    "LogError",
    "NotYourSkillError",
    "Outcome",
    "ParameterError",
    "PendingDecisionError",
    "Phase",
    "PublicView",
    "Result",
    "Ruleset",
    "RulesetParams",
    "ScheduleDay",
    "ScriptError",
    "Skill",
    "SkillUsedUpError",
    "Substitute",
    "SubstitutionError",
    "UnknownCharacterError",
    "UnknownRulesetError",
    "UseSkill",
    "WrongPhaseError",
    "action_from_dict",
    "action_to_dict",
    "event_from_dict",
    "event_to_dict",
    "get_ruleset",
    "load_params",
    "new_game",
    "new_secret",
    "register_engine",
    "register_event",
]
