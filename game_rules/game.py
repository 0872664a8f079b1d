"""The :class:`Game`: an append-only event log, its folded state, and the ruleset that judges it.

>>> g = new_game("m72", [f"P{i}" for i in range(1, 13)], seed="doc")
>>> g.state.phase, g.state.day, len(g.state.living())
('day', 1, 12)
>>> g2 = Game.rebuild("m72", None, "doc", g.characters, g.event_dicts())
>>> g2.state.snapshot() == g.state.snapshot()
True
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from game_rules.actions import (
    Action,
    DeclareFactionLost,
    Eject,
    Substitute,
    UseSkill,
    WithdrawEjection,
    WithdrawNightAction,
)
from game_rules.announcements import wording
from game_rules.errors import (
    DeadActorError,
    GameOverError,
    GameRuleError,
    InvalidTargetError,
    LogError,
    ParameterError,
    UnknownCharacterError,
    WithdrawalError,
)
from game_rules.events import (
    ActionTaken,
    Announced,
    Carded,
    EjectionWithdrawn,
    Event,
    GameEnded,
    GameStarted,
    NightActionWithdrawn,
    PhaseStarted,
    RandomPicked,
    event_from_dict,
    event_to_dict,
)
from game_rules.names import nfkc_name, normalise_names
from game_rules.outcome import LOSE, UNDECIDED, Outcome
from game_rules.params import RulesetParams
from game_rules.randomness import commitment, derived_rng, new_seed, rng_key, verify_commitment
from game_rules.registry import Ruleset, get_ruleset
from game_rules.state import CORE_FOLDS, GameState
from game_rules.views import CharacterView, DirectorView, PublicView, build_views

#: actions the game routes to the ruleset's own entry points rather than ``handle``
_DIRECTOR_ACTIONS: frozenset[type] = frozenset(
    {Substitute, Eject, DeclareFactionLost, WithdrawEjection, WithdrawNightAction}
)


class Game:
    """One game. Create with :func:`new_game`; rebuild from a log with :meth:`rebuild`."""

    __slots__ = (
        "_key",
        "_log",
        "_overrides",
        "_secret",
        "_seed",
        "_state",
        "characters",
        "ruleset",
        "ruleset_id",
    )

    def __init__(
        self,
        ruleset_id: str,
        ruleset: Ruleset,
        seed: str,
        characters: Sequence[str],
        overrides: Mapping[str, Any] | None = None,
        secret: str = "",
    ) -> None:
        names = tuple(characters)
        if len(set(names)) != len(names):
            raise ParameterError("duplicate_character", "角色名不能重复")
        if any(not n or not n.strip() for n in names):
            raise ParameterError("empty_character", "角色名不能为空")
        if len(names) != ruleset.params.player_count:
            raise ParameterError(
                "player_count",
                f"{ruleset_id}需要{ruleset.params.player_count}名角色，实际为{len(names)}名",
            )
        self.ruleset_id = ruleset_id
        self.ruleset = ruleset
        self.characters = names
        self._seed = seed
        self._secret = secret
        self._key = rng_key(secret, seed)
        self._overrides = dict(overrides or {})
        self._log: list[Event] = []
        self._state = GameState(ruleset.params, names)

    # -- reading --------------------------------------------------------------------------------
    @property
    def state(self) -> GameState:
        """The folded state (read it, never change it)."""
        return self._state

    @property
    def params(self) -> RulesetParams:
        """The ruleset parameters this game plays with."""
        return self.ruleset.params

    @property
    def overrides(self) -> dict[str, Any]:
        """Parameter overrides given at creation (store them to rebuild the game)."""
        return dict(self._overrides)

    @property
    def log(self) -> tuple[Event, ...]:
        """Every event so far, oldest first."""
        return tuple(self._log)

    @property
    def log_length(self) -> int:
        """How many events the log holds (cheaper than ``len(game.log)``)."""
        return len(self._log)

    def event_dicts(self) -> list[dict[str, Any]]:
        """The log as plain JSON dicts (each with a ``type`` tag)."""
        return [event_to_dict(e) for e in self._log]

    @property
    def seed_revealed(self) -> str | None:
        """The seed, once the game has ended (None before)."""
        return self._seed if self._state.ended else None

    @property
    def seed_for_director(self) -> str:
        """The seed, for the director's own records (never show it to players mid-game)."""
        return self._seed

    @property
    def secret_for_director(self) -> str:
        """The server secret ("" for a game without one): never show it before the game ends."""
        return self._secret

    @property
    def secret_revealed(self) -> str | None:
        """The server secret, once the game has ended (None before; "" for a game without one)."""
        return self._secret if self._state.ended else None

    # -- changing -------------------------------------------------------------------------------
    def emit(self, event: Event) -> None:
        """Append ``event`` and fold it (for ruleset engines; players call :meth:`apply`)."""
        self._log.append(event)
        kind = type(event)
        if kind is EjectionWithdrawn:
            self._refold(cast(EjectionWithdrawn, event).since)
            return
        if kind is NightActionWithdrawn:
            self._refold(cast(NightActionWithdrawn, event).since)
            return
        state = self._state
        core = CORE_FOLDS.get(kind)  # fold_core, inlined: this runs for every event
        if core is not None:
            core(state, event)
        ruleset = self.ruleset
        folded = ruleset.folded_events
        if folded is None or kind in folded:
            ruleset.fold(state, event)

    def random(self, label: str = "") -> random.Random:
        """A generator for one random pick, determined by the game's key (secret and seed) and
        the log position. Engines draw through :meth:`pick` and :meth:`shuffled`, which record
        the pick so that it can be verified after the game."""
        return derived_rng(self._key, f"{len(self._log)}:{label}")

    def pick(self, label: str, candidates: Sequence[str]) -> str:
        """One of ``candidates`` at random, recorded as a :class:`RandomPicked` event."""
        options = tuple(candidates)
        position = len(self._log)
        chosen = self.random(label).choice(options)
        self.emit(RandomPicked(label, position, "choice", options, (chosen,)))
        return chosen

    def shuffled(self, label: str, items: Sequence[str]) -> list[str]:
        """``items`` in a random order, recorded as a :class:`RandomPicked` event."""
        options = tuple(items)
        position = len(self._log)
        order = list(options)
        self.random(label).shuffle(order)
        self.emit(RandomPicked(label, position, "shuffle", options, tuple(order)))
        return order

    def apply(self, action: Action) -> tuple[Event, ...]:
        """Validate and apply ``action``; return the events it caused.

        Raises a :class:`~game_rules.errors.GameRuleError` subclass naming the broken rule;
        the game is then unchanged.
        """
        if self._state.ended:
            raise GameOverError(message="游戏已经结束")
        mark = len(self._log)
        try:
            # exact types: action classes cannot be subclassed (game_rules.frozen)
            kind = type(action)
            if kind not in _DIRECTOR_ACTIONS:
                self.ruleset.handle(self, action)
            elif kind is Substitute:
                self.ruleset.substitute(self, cast(Substitute, action))
            elif kind is Eject:
                self.ruleset.eject(self, cast(Eject, action))
            elif kind is WithdrawEjection:
                self._withdraw_ejection(cast(WithdrawEjection, action))
            elif kind is WithdrawNightAction:
                self._withdraw_night_action(cast(WithdrawNightAction, action))
            else:
                self.ruleset.declare_lost(self, cast(DeclareFactionLost, action))
        except BaseException:
            if len(self._log) != mark:
                self._rollback(mark)
            raise
        return tuple(self._log[mark:])

    def eject(
        self, character: str, cause: str, *, faction_loses: bool = False
    ) -> tuple[Event, ...]:
        """红牌罚下 ``character`` for ``cause`` (see :class:`~game_rules.actions.Eject`)."""
        return self.apply(Eject(character, cause, faction_loses))

    def substitute(self, character: str, player: str) -> tuple[Event, ...]:
        """替补: ``player`` takes over ``character``."""
        return self.apply(Substitute(character, player))

    def legal_actions(self, actor: str | None = None) -> list[Action]:
        """Actions legal now, for ``actor`` (a character) or for the director (None)."""
        if self._state.ended:
            return []
        return self.ruleset.legal_actions(self._state, actor)

    def director_actions(self) -> list[Action]:
        """The director's discretionary actions legal now, which :meth:`legal_actions` leaves out.

        Red cards (``Eject``, also with ``faction_loses``), 替补 (``Substitute``), 判负
        (``DeclareFactionLost``), by day ``ScheduleDay`` (加速 on or off; a closing time is any
        time, so none is listed) and the last words of open rights (``LeaveLastWords``, and its
        ``None`` form). Free text is a placeholder (``actions.DIRECTOR_CAUSE_PLACEHOLDER``...)
        that the director replaces; every listed action, placeholders as given, is accepted by
        :meth:`apply`. Empty once the game has ended.

        >>> g = new_game("m08", [f"P{i:02}" for i in range(1, 12)], seed="doc")
        >>> g.director_actions()[1]
        Eject(character='P01', cause='（请填写原因）', faction_loses=True)
        >>> g.legal_actions()  # unchanged: the day's close only
        [CloseDay(at=None)]
        """
        if self._state.ended:
            return []
        return self.ruleset.director_actions(self._state)

    def pending_actors(self) -> list[str]:
        """Characters who may act now, in seating order: whoever is not listed has no legal action.

        A superset (a listed character's :meth:`legal_actions` may still be empty), cheap to ask,
        and valid until the phase changes or a decision opens: at night it names the characters
        who hold a night skill (M72: one not yet used tonight), so a caller need not ask every
        living character for its options.

        >>> g = new_game("m72", [f"P{i}" for i in range(1, 13)], seed="doc")
        >>> g.pending_actors() == g.state.living()  # day 1: every living character votes
        True
        """
        if self._state.ended:
            return []
        return self.ruleset.pending_actors(self._state)

    def end(self, winner: str | None, results: Mapping[str, str], reason: str) -> None:
        """Emit the ending (for ruleset engines): announcement, results and the revealed seed
        and secret."""
        names = self.params.factions
        if winner is not None:
            text = wording().line("end", faction=names[winner], reason=reason)
            self.emit(Announced(self._state.day, self._state.phase, text, "end"))
        self.emit(
            Announced(self._state.day, self._state.phase, f"随机种子公开：{self._seed}", "seed")
        )
        if self._secret:
            text = f"服务端随机秘密公开：{self._secret}"
            self.emit(Announced(self._state.day, self._state.phase, text, "secret"))
        self.emit(GameEnded(winner, dict(results), self._seed, reason, self._secret))

    def _withdraw_ejection(self, action: WithdrawEjection) -> None:
        """Take back a red card's ejection that is still the latest thing in the game.

        ``since`` must point at the character's red ``Carded`` that put them out, and the log
        from there on must be exactly what that ejection emitted (replayed to check: the engine
        is deterministic), so nothing else has happened since. Whatever it caused (elimination,
        successors, the deferred exit, 判负) is withdrawn, and the public is told.
        """
        c = action.character
        self.require_character(c)
        since = action.since
        first = self._log[since] if 0 < since < len(self._log) else None
        if not (
            isinstance(first, Carded)
            and first.character == c
            and first.colour == "red"
            and not first.already_out
        ):
            raise WithdrawalError(message=f"{c}没有在此被红牌罚下，无从撤销")
        if not self._ejection_is_latest(since, c, first.cause):
            raise WithdrawalError(
                "withdrawal_not_latest", f"{c}被罚下之后游戏已有新的进展，不能再撤销这次罚下"
            )
        self.emit(EjectionWithdrawn(c, since))
        state = self._state
        self.emit(
            Announced(state.day, state.phase, f"{c}的红牌已撤销，{c}回到游戏", "card_withdrawn")
        )

    def _ejection_is_latest(self, since: int, character: str, cause: str) -> bool:
        """Whether the log from ``since`` on is exactly one ``Eject`` of ``character`` (with or
        without 判负), replayed on the game as it stood before it."""
        tail = self._log[since:]
        for loses in (False, True):
            probe = Game(
                self.ruleset_id, self.ruleset, self._seed, self.characters, self._overrides
            )
            for e in self._log[:since]:
                probe.emit(e)
            try:
                replayed = probe.apply(Eject(character, cause, loses))
            except GameRuleError:
                continue
            if list(replayed) == tail:
                return True
        return False

    def _withdraw_night_action(self, action: WithdrawNightAction) -> None:
        """Take back one choice entered tonight: refold the state to the night's start, then
        apply the night's other choices again in their order.

        Only a night made of skill choices alone can be replayed: the night's choices, applied
        again on the game as it stood at the night's start, must give exactly the events they
        gave (so nothing else, a red card or last words, happened since). A choice that no
        longer holds without the withdrawn one (狼头's 指杀 of a withdrawn 提议) refuses the
        whole withdrawal, naming it; :meth:`apply` then leaves the game as it was.
        """
        state = self._state
        actor, skill = action.actor, action.skill
        self.require_character(actor)
        if state.phase != "night" or (actor, skill) not in state.night_actions:
            raise WithdrawalError(
                "nothing_to_withdraw", f"今晚没有记录{actor}的<{skill}>，无从撤回"
            )
        since, live = self._night_events()
        choices = [e for e in live if isinstance(e, ActionTaken)]
        probe = Game(self.ruleset_id, self.ruleset, self._seed, self.characters, self._overrides)
        for e in self._log[:since]:
            probe.emit(e)
        try:
            for e in choices:
                probe.ruleset.handle(probe, _choice_of(e))
        except GameRuleError:
            replayed: list[Event] = []
        else:
            replayed = list(probe.log[since:])
        if [_comparable(e) for e in replayed] != [_comparable(e) for e in live]:
            raise WithdrawalError(
                "night_not_replayable",
                "今晚在录入行动之外还有其他进展（如红牌、遗言），不能撤回行动",
            )
        self.emit(NightActionWithdrawn(actor, skill, since))
        for e in choices:
            if (e.actor, e.skill) == (actor, skill):
                continue
            try:
                self.ruleset.handle(self, _choice_of(e))
            except GameRuleError as exc:
                raise WithdrawalError(
                    "withdrawal_breaks_choice",
                    f"撤回后，{e.actor}的<{e.skill}>不再成立（{exc.message}）：请先撤回它",
                ) from exc

    def _night_events(self) -> tuple[int, list[Event]]:
        """(position of tonight's first choice, the events in force from there on)."""
        log = self._log
        live: list[int] = []
        for i, e in enumerate(log):
            if isinstance(e, (EjectionWithdrawn, NightActionWithdrawn)):
                live = [j for j in live if j < e.since]
            else:
                live.append(i)
        start = max(j for j in live if isinstance(log[j], PhaseStarted))
        # from tonight's first choice on: what opened the night (争权's notice...) is kept
        first = next(j for j in live if j > start and isinstance(log[j], ActionTaken))
        return first, [log[j] for j in live if j >= first]

    def _refold(self, upto: int) -> None:
        """Make the state the fold of the log's first ``upto`` events (the log is kept)."""
        log = self._log
        self._log = []
        self._state = GameState(self.ruleset.params, self.characters)
        try:
            for e in log[:upto]:
                self.emit(e)
        finally:
            self._log = log

    def _rollback(self, mark: int) -> None:
        events = self._log[:mark]
        self._log = []
        self._state = GameState(self.ruleset.params, self.characters)
        for e in events:
            self.emit(e)

    # -- helpers for engines --------------------------------------------------------------------
    def require_character(self, name: str) -> None:
        """Raise :class:`UnknownCharacterError` unless ``name`` is a character of this game."""
        if name not in self._state.status:
            raise UnknownCharacterError(message=f"没有名为「{name}」的角色")

    def require_alive(self, name: str) -> None:
        """Raise unless ``name`` is a living character."""
        self.require_character(name)
        if name not in self._state.alive:
            raise DeadActorError(message=f"{name}已出局，不能行动或投票")

    def require_target(
        self,
        target: str | None,
        *,
        rule: str = "target_required",
        missing: str = "须选择一名角色",
        dead: str = "不能被选为技能目标",
    ) -> str:
        """``target`` if it names a living character; else :class:`InvalidTargetError` (``rule``
        and ``missing`` when no one is named, ``dead_target`` and ``dead`` after the name when
        the character is out) or :class:`UnknownCharacterError`."""
        if target is None:
            raise InvalidTargetError(rule, missing)
        self.require_character(target)
        if target not in self._state.alive:
            raise InvalidTargetError("dead_target", f"{target}已出局，{dead}")
        return target

    # -- results and views ----------------------------------------------------------------------
    def outcome(self) -> Outcome:
        """Who won so far (``ended`` False while the game runs)."""
        s = self._state
        if s.ended:
            results = dict(s.results)
        else:
            results = {f: (LOSE if f in s.lost else UNDECIDED) for f in self.params.factions}
        reason = ""
        if s.ended:
            last = self._log[-1]
            if isinstance(last, GameEnded):
                reason = last.reason
        return Outcome(
            ended=s.ended,
            winner=s.winner,
            results=results,
            eliminations=tuple(s.eliminations),
            commitment=s.commitment,
            seed=self._seed if s.ended else None,
            secret=self._secret if s.ended else None,
            reason=reason,
            faction_names=dict(self.params.factions),
        )

    def public_view(self) -> PublicView:
        """What everyone may know: announcements (公示) and public events."""
        return build_views(self).public()

    def character_view(self, character: str) -> CharacterView:
        """What ``character`` may know: own role, private feedback, own actions, public info."""
        self.require_character(character)
        return build_views(self).character(character)

    def director_view(self) -> DirectorView:
        """Everything (the director's view)."""
        return build_views(self).director()

    # -- rebuilding -----------------------------------------------------------------------------
    @classmethod
    def rebuild(
        cls,
        ruleset_id: str,
        params: Mapping[str, Any] | None,
        seed: str,
        characters: Sequence[str],
        events: Iterable[Event | Mapping[str, Any]],
    ) -> Game:
        """Rebuild a game from its ruleset id, parameter overrides, seed, characters and log.

        ``events`` may be :class:`Event` objects or their dicts; the server secret, if any, is
        read from the first (``GameStarted``). Raises :class:`~game_rules.errors.LogError` if the
        log does not belong to these inputs.
        """
        ruleset = get_ruleset(ruleset_id, params)
        game = cls(ruleset_id, ruleset, seed, characters, params)
        for i, raw in enumerate(events):
            event = raw if isinstance(raw, Event) else event_from_dict(raw)
            if i == 0:
                if not isinstance(event, GameStarted):
                    raise LogError("log_start", "the log must start with game_started")
                if tuple(event.characters) != game.characters:
                    raise LogError("log_characters", "the log's characters differ")
                if not verify_commitment(event.commitment, seed, event.roles, event.secret):
                    raise LogError("log_commitment", "seed and deal do not match the commitment")
                game._secret = event.secret
                game._key = rng_key(event.secret, seed)
            try:
                game.emit(event)
            except (GameRuleError, KeyError, TypeError, ValueError) as exc:
                raise LogError(
                    "log_fold", f"event {i} ({event.TYPE}) cannot be folded: {exc}"
                ) from exc
        return game


def new_game(
    ruleset_id: str,
    characters: Sequence[str],
    seed: str | None = None,
    *,
    params: Mapping[str, Any] | None = None,
    roles: Mapping[str, str] | None = None,
    players: Mapping[str, str] | None = None,
    secret: str = "",
) -> Game:
    """Create and start a game.

    ``characters`` are the in-game character (account) names in seating order, normalised and
    checked by :func:`~game_rules.names.normalise_names`; ``seed`` drives
    every random pick (a fresh one is made if None); ``params`` overrides the ruleset YAML (e.g.
    ``{"player_count": 12, ...}``); ``roles`` fixes some or all roles (character -> role key);
    ``players`` maps characters to the humans playing them (default: the same names);
    ``secret`` is the server's secret (:func:`~game_rules.randomness.new_secret`), combined with
    the seed for every random pick: the service always gives one, a game script may leave it out.

    >>> g = new_game("m08", list("ABCDEFGHIJK"), seed="x", roles={"A": "witch"})
    >>> g.state.role("A"), g.state.phase
    ('witch', 'day')
    """
    ruleset = get_ruleset(ruleset_id, params)
    seed = new_seed() if seed is None else str(seed)
    # NFKC, and no invisible characters, collisions or vote keywords (game_rules.names); a
    # rebuild takes the names as stored
    names = normalise_names(characters)
    if players:
        players = {nfkc_name(c): p for c, p in players.items()}
    game = Game(ruleset_id, ruleset, seed, names, params, secret)
    fixed = {nfkc_name(c): r for c, r in (roles or {}).items()}
    for name in fixed:
        game.require_character(name)
    deal = ruleset.deal(game.characters, derived_rng(game._key, "deal"), fixed)
    com = commitment(seed, deal, secret)
    game.emit(
        GameStarted(ruleset_id, game.characters, deal, com, dict(players or {}), secret, fixed)
    )
    game.emit(Announced(0, "setup", f"随机安排承诺值（SHA-256）：{com}", "commitment"))
    ruleset.start(game)
    return game


__all__ = ["Game", "Outcome", "new_game"]


def _choice_of(e: ActionTaken) -> UseSkill:
    """The skill action an ``ActionTaken`` records (its reason, its plan or answer as the
    choice), to apply it again when a night is replayed."""
    detail = e.detail
    plan = detail.get("plan")
    agree = detail.get("agree")
    choice: str | None = None
    if isinstance(plan, list) and plan:
        choice = ",".join(str(p) for p in plan)
    elif isinstance(agree, bool):
        choice = "yes" if agree else "no"
    reason = detail.get("reason") if e.skill == "propose" else None
    return UseSkill(e.actor, e.skill, e.target, None if reason is None else str(reason), choice)


def _comparable(e: Event) -> Event:
    """``e`` without what depends on its log position (M72's ``seq``), to compare replays."""
    if isinstance(e, ActionTaken) and "seq" in e.detail:
        detail = {k: v for k, v in e.detail.items() if k != "seq"}
        return ActionTaken(e.actor, e.skill, e.target, e.day, detail, e.to)
    return e
