"""Adapter over :mod:`game_rules`: create, rebuild and drive games stored as event logs.

The database holds each game's ruleset, seed, characters and event log; a request rebuilds the game
by folding the log (:meth:`game_rules.game.Game.rebuild`). To avoid re-folding on every request a
process may keep rebuilt games in :class:`GameCache`, keyed by ``(game id, version)`` where
``version`` is the log length read from the database *inside the request's transaction* after the
game row is locked. A cached game is handed out exclusively (removed from the cache while in use)
and put back only after the transaction commits, so the cache can never serve a stale game or one
changed by a request that was rolled back. A request that only reads the game state while holding
a share lock on the game row (post ingestion without votes) may :meth:`GameCache.peek` instead:
no writer can take, let alone change, that game until the share lock is released.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from game_rules import actions as act
from game_rules.errors import GameRuleError
from game_rules.events import Event, event_to_dict
from game_rules.game import Game, new_game
from game_rules.randomness import new_secret

__all__ = [
    "Game",
    "GameCache",
    "GameRuleError",
    "action_from_json",
    "create_game",
    "events_to_dicts",
    "rebuild_game",
]


def create_game(
    ruleset: str,
    characters: Sequence[str],
    seed: str | None,
    roles: Mapping[str, str] | None,
    players: Mapping[str, str] | None,
) -> Game:
    """Start a new game (raises :class:`GameRuleError` for an unknown ruleset or bad players).

    The service always adds a fresh 256-bit secret to the director's seed, so that the deal
    cannot be searched for from the commitment however weak the seed; the secret is kept in the
    log's first event (director-only) and revealed when the game ends.
    """
    return new_game(
        ruleset,
        list(characters),
        seed,
        roles=roles or None,
        players=players or None,
        secret=new_secret(),
    )


def rebuild_game(
    ruleset: str, seed: str, characters: Sequence[str], events: Sequence[Mapping[str, Any]]
) -> Game:
    """Rebuild a game from its stored log (the secret, if any, is in its first event)."""
    return Game.rebuild(ruleset, None, seed, list(characters), events)


def events_to_dicts(events: Sequence[Event]) -> list[dict[str, Any]]:
    """Events as the JSON dicts stored in ``game_events``."""
    return [event_to_dict(e) for e in events]


def _opt_str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return None if value is None else str(value)


def _opt_time(data: Mapping[str, Any], key: str) -> datetime | None:
    value = data.get(key)
    return value if isinstance(value, datetime) else None


def action_from_json(data: Mapping[str, Any]) -> act.Action:
    """Turn a validated ``/actions`` body into a game-core action."""
    kind = data["type"]
    if kind == "skill":
        return act.UseSkill(
            actor=data["actor"],
            skill=data["skill"],
            target=_opt_str(data, "target"),
            reason=_opt_str(data, "reason"),
            choice=_opt_str(data, "choice"),
        )
    if kind in ("vote", "proxy_vote"):
        return act.CastVote(
            voter=data["voter"],
            target=_opt_str(data, "target"),
            at=_opt_time(data, "at"),
            proxy=kind == "proxy_vote",
            is_change=bool(data.get("is_change", False)),
            reason=str(data.get("reason", "")),
            requested_at=_opt_time(data, "requested_at"),
            conditional=bool(data.get("conditional", False)),
        )
    if kind == "schedule_day":
        accelerated = data.get("accelerated")
        return act.ScheduleDay(
            closes_at=_opt_time(data, "closes_at"),
            accelerated=None if accelerated is None else bool(accelerated),
        )
    if kind == "last_words":
        return act.LeaveLastWords(actor=data["actor"], text=_opt_str(data, "text"))
    if kind == "deadline_passed":
        return act.DeadlinePassed()
    if kind == "withdraw_skill":
        return act.WithdrawNightAction(actor=data["actor"], skill=data["skill"])
    if kind == "substitute":
        return act.Substitute(character=data["character"], player=data["player"])
    if kind == "declare_faction_lost":
        return act.DeclareFactionLost(faction=data["faction"], reason=data.get("reason", ""))
    raise ValueError(f"unknown action type {kind!r}")


class GameCache:
    """Rebuilt games by ``(game id, version)``, handed out exclusively (see module docstring)."""

    def __init__(self, size: int = 64) -> None:
        self._size = size
        self._games: OrderedDict[str, tuple[int, Game]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, game_id: str, version: int) -> Game | None:
        """Remove and return the cached game if it is exactly at ``version``."""
        with self._lock:
            entry = self._games.pop(game_id, None)
        if entry is None or entry[0] != version:
            return None
        return entry[1]

    def peek(self, game_id: str, version: int) -> Game | None:
        """The cached game if it is exactly at ``version``, left in the cache; for read only.

        Safe only while the caller holds at least a share lock on the game row (see
        :func:`api.store.game_version_shared`): a writer must take the exclusive lock, and then
        :meth:`take` the game, before it may change it, so a peeked game cannot change while
        it is in use, and it must not be changed by the caller.
        """
        with self._lock:
            entry = self._games.get(game_id)
        if entry is None or entry[0] != version:
            return None
        return entry[1]

    def put(self, game_id: str, version: int, game: Game) -> None:
        """Offer ``game`` (at ``version``, committed) back to the cache."""
        with self._lock:
            self._games[game_id] = (version, game)
            self._games.move_to_end(game_id)
            while len(self._games) > self._size:
                self._games.popitem(last=False)

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._games.clear()
