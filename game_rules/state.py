"""Game state: the fold of the event log.

:class:`GameState` is rebuilt by folding events in order with :func:`fold_core` (core events) and
the ruleset's own ``fold`` hook. Folding is incremental (each new event updates the state in
place), so applying an action costs only its own events — this is what keeps a random full game
fast. Nothing outside ``Game`` should mutate a state; read it, or better, read a view.

>>> from game_rules.params import load_params
>>> s = GameState(load_params("m72"), ("甲", "乙"))
>>> fold_core(s, GameStarted("m72", ("甲", "乙"), {"甲": "wolf", "乙": "seer"}, "c"))
>>> s.faction("甲"), s.living()
('wolves', ['甲', '乙'])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from game_rules.enums import Phase

# Repeated on purpose: each module imports by name what it uses (an import list, not logic).
from game_rules.events import (
    ActionTaken,
    Announced,
    Carded,
    DecisionClosed,
    DecisionOpened,
    Eliminated,
    Event,
    FactionLost,
    FlagSet,
    GameEnded,
    GameStarted,
    LastWordsGiven,
    LastWordsGranted,
    PhaseStarted,
    RoleChanged,
    SheriffChanged,
    StatusSet,
    Substituted,
    Told,
    VoteCast,
    VotesTallied,
)
from game_rules.frozen import quick_frozen
from game_rules.params import RulesetParams
from game_rules.votes import Ballot, BallotBox

# plain-str twins of game_rules.enums.Phase (the engines compare phases on every action)
SETUP: str = Phase.SETUP.value
DAY: str = Phase.DAY.value
NIGHT: str = Phase.NIGHT.value
ENDED: str = Phase.ENDED.value


@quick_frozen
@dataclass(frozen=True, slots=True)
class Elimination:
    """One 出局, in order: who, why (vote, kill, poison, shot, red_card...), when, by whom."""

    character: str
    cause: str
    day: int
    phase: str
    by: str | None = None


class GameState:
    """Mutable snapshot of a game, owned by its :class:`~game_rules.game.Game`."""

    __slots__ = (
        "_box",
        "_living",
        "alive",
        "announcements",
        "ballots",
        "box_cache",
        "cards",
        "changes_voided",
        "characters",
        "commitment",
        "day",
        "day_ballots",
        "decisions",
        "eliminations",
        "ended",
        "factions",
        "flags",
        "last_words_given",
        "last_words_granted",
        "lost",
        "night_actions",
        "params",
        "phase",
        "players",
        "results",
        "roles",
        "sheriff",
        "status",
        "substituted",
        "tallies",
        "told",
        "winner",
    )

    def __init__(self, params: RulesetParams, characters: tuple[str, ...]) -> None:
        self.params = params
        self.characters = characters
        self.players: dict[str, str] = {c: c for c in characters}
        self.roles: dict[str, str] = {}
        self.factions: dict[str, str] = {}
        self.alive: set[str] = set(characters)
        self._living: tuple[str, ...] | None = None  # seating-order cache, reset by eliminations
        self.eliminations: list[Elimination] = []
        self.phase = SETUP
        self.day = 0
        self.sheriff: str | None = None
        self.status: dict[str, dict[str, Any]] = {c: {} for c in characters}
        self.flags: dict[str, Any] = {}
        # current day's ballots: voter -> latest VoteCast event; and the ballots as votes.py
        # judges them (kept in a list, folded by the ruleset, which knows the vote policy)
        self.ballots: dict[str, VoteCast] = {}
        self.day_ballots: list[Ballot] = []
        self.changes_voided = False  # 004's 加速: every change void from then on
        self._box: BallotBox | None = None
        # the engine's verdict on the VoteCast it is about to emit, so the fold need not judge it
        # again: (event, (index to edit or None, ballot kept))
        self.box_cache: tuple[Event, Any] | None = None
        self.tallies: list[VotesTallied] = []
        # current night's choices: (actor, skill) -> ActionTaken
        self.night_actions: dict[tuple[str, str], ActionTaken] = {}
        # open decisions: (actor, decision) -> day opened, in opening order
        self.decisions: dict[tuple[str, str], int] = {}
        self.last_words_granted: list[str] = []
        self.last_words_given: dict[str, str | None] = {}
        self.cards: list[Carded] = []
        self.substituted: set[str] = set()
        self.lost: dict[str, str] = {}
        self.announcements: list[Announced] = []
        self.told: list[Told] = []
        self.ended = False
        self.winner: str | None = None
        self.results: dict[str, str] = {}
        self.commitment = ""

    # -- questions ------------------------------------------------------------------------------
    def is_alive(self, character: str) -> bool:
        """Whether ``character`` has not been eliminated."""
        return character in self.alive

    def living(self) -> list[str]:
        """Living characters in seating (creation) order."""
        return list(self.living_tuple())

    def living_tuple(self) -> tuple[str, ...]:
        """:meth:`living` as a shared tuple (no copy: for the engine's hot paths)."""
        living = self._living
        if living is None:
            alive = self.alive
            living = self._living = tuple([c for c in self.characters if c in alive])
        return living

    @property
    def vote_box(self) -> BallotBox:
        """Today's ballots as an immutable :class:`~game_rules.votes.BallotBox` (lazily)."""
        box = self._box
        if box is None:
            box = self._box = BallotBox(tuple(self.day_ballots), self.changes_voided)
        return box

    def keep_ballot(self, index: int | None, ballot: Ballot) -> None:
        """Fold one judged ballot: append it, or (``index``) replace an edited one."""
        if index is None:
            self.day_ballots.append(ballot)
        else:
            self.day_ballots[index] = ballot
        self._box = None

    def void_changes(self) -> None:
        """Fold 004's "所有改票作废" (from 加速 on, each voter's first ballot counts)."""
        self.changes_voided = True
        self._box = None

    def role(self, character: str) -> str:
        """The character's current role key."""
        return self.roles[character]

    def faction(self, character: str) -> str:
        """The character's current faction key."""
        return self.factions[character]

    def with_role(self, *roles: str, alive_only: bool = True) -> list[str]:
        """Characters holding one of ``roles`` (living ones unless ``alive_only`` is False)."""
        return [
            c
            for c in self.characters
            if self.roles.get(c) in roles and (not alive_only or c in self.alive)
        ]

    def with_trait(self, trait: str, alive_only: bool = True) -> list[str]:
        """Characters whose role has a truthy ``trait`` in the ruleset data."""
        holders = _roles_with_trait(self.params, trait)
        roles, alive = self.roles, self.alive
        return [
            c for c in self.characters if roles[c] in holders and (not alive_only or c in alive)
        ]

    def roles_with_trait(self, trait: str) -> frozenset[str]:
        """Role keys whose ruleset data has a truthy ``trait`` (living or not)."""
        return _roles_with_trait(self.params, trait)

    def snapshot(self) -> dict[str, Any]:
        """A plain, comparable picture of the whole state (for tests and debugging)."""
        return {
            "phase": self.phase,
            "day": self.day,
            "players": dict(self.players),
            "roles": dict(self.roles),
            "factions": dict(self.factions),
            "alive": sorted(self.alive),
            "eliminations": list(self.eliminations),
            "sheriff": self.sheriff,
            "status": {c: dict(v) for c, v in self.status.items()},
            "flags": dict(self.flags),
            "ballots": dict(self.ballots),
            "night_actions": dict(self.night_actions),
            "decisions": dict(self.decisions),
            "last_words_granted": list(self.last_words_granted),
            "last_words_given": dict(self.last_words_given),
            "cards": list(self.cards),
            "substituted": sorted(self.substituted),
            "lost": dict(self.lost),
            "announcements": list(self.announcements),
            "told": list(self.told),
            "tallies": list(self.tallies),
            "ended": self.ended,
            "winner": self.winner,
            "results": dict(self.results),
        }


_TRAIT_CACHE: dict[tuple[int, str], tuple[RulesetParams, frozenset[str]]] = {}


def _roles_with_trait(params: RulesetParams, trait: str) -> frozenset[str]:
    """Role keys whose data has a truthy ``trait`` (cached per params object)."""
    key = (id(params), trait)
    hit = _TRAIT_CACHE.get(key)
    if hit is not None and hit[0] is params:
        return hit[1]
    roles = frozenset(k for k, spec in params.roles.items() if spec.traits.get(trait))
    if len(_TRAIT_CACHE) < 1024:
        _TRAIT_CACHE[key] = (params, roles)
    return roles


def _started(s: GameState, e: GameStarted) -> None:
    s.roles = dict(e.roles)
    specs = s.params.roles
    s.factions = {c: specs[r].faction for c, r in e.roles.items()}
    s.commitment = e.commitment
    if e.players:
        s.players.update(e.players)


def _phase(s: GameState, e: PhaseStarted) -> None:
    s.phase = e.phase
    s.day = e.day
    if e.phase == NIGHT:
        s.night_actions = {}
    elif e.phase == DAY:
        s.ballots = {}
        s.day_ballots = []
        s.changes_voided = False
        s._box = None
        s.box_cache = None


def _eliminated(s: GameState, e: Eliminated) -> None:
    s.alive.discard(e.character)
    s._living = None
    s.eliminations.append(Elimination(e.character, e.cause, e.day, e.phase, e.by))


def _vote(s: GameState, e: VoteCast) -> None:
    # the ballot box itself (votes.py) is folded by the ruleset, which knows the vote policy
    s.ballots[e.voter] = e


def _role_changed(s: GameState, e: RoleChanged) -> None:
    s.roles[e.character] = e.role
    s.factions[e.character] = s.params.roles[e.role].faction


def _action(s: GameState, e: ActionTaken) -> None:
    s.night_actions[(e.actor, e.skill)] = e


def _decision_opened(s: GameState, e: DecisionOpened) -> None:
    s.decisions[(e.actor, e.decision)] = e.day


def _decision_closed(s: GameState, e: DecisionClosed) -> None:
    s.decisions.pop((e.actor, e.decision), None)


def _sheriff(s: GameState, e: SheriffChanged) -> None:
    s.sheriff = e.character


def _status(s: GameState, e: StatusSet) -> None:
    s.status[e.character][e.key] = e.value


def _flag(s: GameState, e: FlagSet) -> None:
    s.flags[e.key] = e.value


def _granted(s: GameState, e: LastWordsGranted) -> None:
    s.last_words_granted.append(e.character)


def _given(s: GameState, e: LastWordsGiven) -> None:
    s.last_words_given[e.character] = e.text


def _carded(s: GameState, e: Carded) -> None:
    s.cards.append(e)


def _lost(s: GameState, e: FactionLost) -> None:
    s.lost.setdefault(e.faction, e.reason)


def _substituted(s: GameState, e: Substituted) -> None:
    s.players[e.character] = e.new_player
    s.substituted.add(e.character)


def _announced(s: GameState, e: Announced) -> None:
    s.announcements.append(e)


def _told(s: GameState, e: Told) -> None:
    s.told.append(e)


def _tallied(s: GameState, e: VotesTallied) -> None:
    s.tallies.append(e)


def _ended(s: GameState, e: GameEnded) -> None:
    s.ended = True
    s.phase = ENDED
    s.winner = e.winner
    s.results = dict(e.results)


#: event type -> its core fold (what :func:`fold_core` applies)
CORE_FOLDS: dict[type[Event], Any] = {
    GameStarted: _started,
    PhaseStarted: _phase,
    Eliminated: _eliminated,
    VoteCast: _vote,
    RoleChanged: _role_changed,
    ActionTaken: _action,
    DecisionOpened: _decision_opened,
    DecisionClosed: _decision_closed,
    SheriffChanged: _sheriff,
    StatusSet: _status,
    FlagSet: _flag,
    LastWordsGranted: _granted,
    LastWordsGiven: _given,
    Carded: _carded,
    FactionLost: _lost,
    Substituted: _substituted,
    Announced: _announced,
    Told: _told,
    VotesTallied: _tallied,
    GameEnded: _ended,
}


def fold_core(state: GameState, event: Event) -> None:
    """Apply one core event to ``state`` in place (events of other types are left alone)."""
    fn = CORE_FOLDS.get(type(event))
    if fn is not None:
        fn(state, event)
