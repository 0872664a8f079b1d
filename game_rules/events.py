"""Typed, frozen events: the only way a game's state changes.

A game is an append-only log of these events; its state is the fold of the log (see ``state.py``).
Every event serialises to a plain JSON dict with a ``type`` tag and back::

    >>> e = Eliminated(character="饺子", cause="vote", day=2, phase="day")
    >>> d = event_to_dict(e)
    >>> d["type"], d["character"]
    ('eliminated', '饺子')
    >>> event_from_dict(d) == e
    True

Who may see an event is part of the event: ``scope`` is ``"public"`` (everyone), ``"director"``
(only the director) or ``"private"`` (the characters in ``audience()`` and the director). Views
(``views.py``) filter on it, so information leaves the engine only where the rules grant it.

A ruleset may add its own event classes with :func:`register_event`; the dict form of such events
must still hold only JSON values (str, int, float, bool, None, lists, dicts) plus tuples at the top
level, which serialise as lists.
"""

# Repeated on purpose: every event is declared the same way (register_event, quick_frozen, a
# frozen slotted dataclass with its TYPE, scope and fields): one small value type per fact the
# log records, which duplicates reports as shared shape.

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar, cast

from game_rules.errors import LogError
from game_rules.frozen import quick_frozen

PUBLIC = "public"
DIRECTOR = "director"
PRIVATE = "private"

EVENT_TYPES: dict[str, type[Event]] = {}
_TUPLE_FIELDS: dict[type[Event], frozenset[str]] = {}
# field names per event class, in declaration order (looked up once per class, not per event)
_FIELD_NAMES: dict[type[Event], tuple[str, ...]] = {}

E = TypeVar("E", bound="type[Event]")


class Event:
    """Base of all events. Subclasses set ``TYPE`` (the JSON tag) and ``scope``.

    Each event class is a frozen, slotted dataclass with :func:`~game_rules.frozen.quick_frozen`
    construction; this base holds no fields and no ``__setattr__`` (which that needs).
    """

    __slots__ = ()
    TYPE: ClassVar[str] = ""
    scope: ClassVar[str] = DIRECTOR

    def audience(self) -> tuple[str, ...]:
        """Characters (besides the director) who may see a private event."""
        return ()

    def seen_by(self, character: str | None) -> bool:
        """Whether ``character`` may see this event (``None`` = the public)."""
        if self.scope == PUBLIC:
            return True
        if character is None or self.scope == DIRECTOR:
            return False
        return character in self.audience()

    def for_players(self) -> Event:
        """This event as a character or the public sees it: without the fields only the director
        may read (``Eliminated.by``, the M72 ordering key ``seq``). Itself when nothing is hidden.
        """
        return self


def register_event(cls: E) -> E:
    """Class decorator: make an event type known to :func:`event_from_dict` by its ``TYPE``."""
    tag = cls.TYPE
    if not tag:
        raise TypeError(f"{cls.__name__} has no TYPE tag")
    if tag in EVENT_TYPES and EVENT_TYPES[tag] is not cls:
        raise TypeError(f"event type {tag!r} registered twice")
    EVENT_TYPES[tag] = cls
    _TUPLE_FIELDS[cls] = frozenset(f.name for f in _fields(cls) if str(f.type).startswith("tuple"))
    _FIELD_NAMES[cls] = tuple(f.name for f in _fields(cls))
    return cls


def _field_names(cls: type[Event]) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:  # an event class not registered (never folded from a log)
        names = _FIELD_NAMES[cls] = tuple(f.name for f in _fields(cls))
    return names


def _fields(cls: type[Event]) -> tuple[dataclasses.Field[Any], ...]:
    # every concrete event class is a dataclass; the base class (fieldless) is not
    return dataclasses.fields(cast(Any, cls))


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def event_to_dict(event: Event) -> dict[str, Any]:
    """The JSON-ready dict form of ``event`` (``type`` tag plus its fields)."""
    out: dict[str, Any] = {"type": event.TYPE}
    for name in _field_names(type(event)):
        out[name] = _jsonable(getattr(event, name))
    return out


def event_from_dict(data: Mapping[str, Any]) -> Event:
    """Rebuild an event from :func:`event_to_dict` output; raises :class:`LogError` if unknown."""
    tag = data.get("type")
    cls = EVENT_TYPES.get(str(tag))
    if cls is None:
        raise LogError("unknown_event_type", f"unknown event type {tag!r}")
    tuple_fields = _TUPLE_FIELDS[cls]
    kwargs: dict[str, Any] = {}
    names = _field_names(cls)
    for key, value in data.items():
        if key == "type":
            continue
        if key not in names:
            raise LogError("bad_event", f"event {tag!r} has no field {key!r}")
        if key in tuple_fields and isinstance(value, list):
            value = tuple(tuple(v) if isinstance(v, list) else v for v in value)
        kwargs[key] = value
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise LogError("bad_event", f"event {tag!r}: {exc}") from exc


# ---------------------------------------------------------------------------------------------
# Core events shared by every ruleset.


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    """The deal. ``roles`` maps character -> role; ``commitment`` = SHA-256(secret + seed + deal).

    ``secret`` is the server's secret for this game (empty in game scripts, which use the seed
    alone); ``fixed`` the roles the director fixed before the deal. Director-only: both are
    revealed when the game ends (:class:`GameEnded`, the public view's ``verification``).
    """

    TYPE: ClassVar[str] = "game_started"
    ruleset: str
    characters: tuple[str, ...]
    roles: dict[str, str]
    commitment: str
    players: dict[str, str] = field(default_factory=dict)
    secret: str = ""
    fixed: dict[str, str] = field(default_factory=dict)


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class RandomPicked(Event):
    """One random pick (a random 狼头 or 警长, the couples, a random target): drawn from the game's
    key and the label ``f"{position}:{label}"``; ``result`` is the pick (one item) or the whole
    shuffled order. Director-only while the game runs; published with the verification data at
    the end (the seed: 随机移交的方式由法官组提前安排，游戏结束以后公示).
    """

    TYPE: ClassVar[str] = "random_picked"
    label: str
    position: int
    method: str  # "choice" | "shuffle"
    candidates: tuple[str, ...]
    result: tuple[str, ...]


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class PhaseStarted(Event):
    """A day (讨论日) or night begins; ``phase`` is ``"day"`` or ``"night"``."""

    TYPE: ClassVar[str] = "phase_started"
    scope: ClassVar[str] = PUBLIC
    phase: str
    day: int


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class Announced(Event):
    """A 公示 line, in the seed's wording.

    ``kind`` groups lines (``out`` eliminations, ``tally``, ``card``, ``sheriff``...);
    ``characters`` names the characters the line makes public as eliminated (for ``out``/``card``).
    """

    TYPE: ClassVar[str] = "announced"
    scope: ClassVar[str] = PUBLIC
    day: int
    phase: str
    text: str
    kind: str = "info"
    characters: tuple[str, ...] = ()


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class Told(Event):
    """Private feedback to some characters (divination result, teammates, new wolf leader...)."""

    TYPE: ClassVar[str] = "told"
    scope: ClassVar[str] = PRIVATE
    to: tuple[str, ...]
    day: int
    text: str
    kind: str = "info"
    data: dict[str, Any] = field(default_factory=dict)

    def audience(self) -> tuple[str, ...]:
        return self.to


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class ActionTaken(Event):
    """A character's choice of a skill (seen by ``to`` and the director)."""

    TYPE: ClassVar[str] = "action_taken"
    scope: ClassVar[str] = PRIVATE
    actor: str
    skill: str
    target: str | None
    day: int
    detail: dict[str, Any] = field(default_factory=dict)
    to: tuple[str, ...] = ()
    #: detail keys for the director only: ``seq`` is the log length when the choice was made,
    #: which would tell a teammate how many hidden events (others' night actions) came between
    DIRECTOR_DETAIL: ClassVar[frozenset[str]] = frozenset({"seq"})

    def audience(self) -> tuple[str, ...]:
        return (self.actor, *self.to)

    def for_players(self) -> Event:
        hidden = self.DIRECTOR_DETAIL.intersection(self.detail)
        if not hidden:
            return self
        detail = {k: v for k, v in self.detail.items() if k not in hidden}
        return dataclasses.replace(self, detail=detail)


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class VoteCast(Event):
    """One ballot (or a change); ``target`` None = 弃权. ``at`` is an ISO timestamp or None."""

    TYPE: ClassVar[str] = "vote_cast"
    scope: ClassVar[str] = PRIVATE
    voter: str
    target: str | None
    day: int
    at: str | None = None
    proxy: bool = False
    is_change: bool = False
    post_id: str | None = None
    reason: str = ""
    replies_to: str | None = None
    requested_at: str | None = None
    conditional: bool = False

    def audience(self) -> tuple[str, ...]:
        return (self.voter,)


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class VotesTallied(Event):
    """The day's weighted count (director: it includes hidden additions such as the crow's)."""

    TYPE: ClassVar[str] = "votes_tallied"
    day: int
    counts: dict[str, str]
    top: tuple[str, ...]
    chosen: str | None


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class Eliminated(Event):
    """A character leaves the game (出局). ``cause``: vote, kill, poison, shot, red_card, ..."""

    TYPE: ClassVar[str] = "eliminated"
    scope: ClassVar[str] = PRIVATE
    character: str
    cause: str
    day: int
    phase: str
    by: str | None = None  # who caused it: the director's only (the victim must not learn it)

    def audience(self) -> tuple[str, ...]:
        return (self.character,)

    def for_players(self) -> Event:
        return self if self.by is None else dataclasses.replace(self, by=None)


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class RoleChanged(Event):
    """A character's role (and so faction) changes, e.g. conversion to 单身贵族."""

    TYPE: ClassVar[str] = "role_changed"
    scope: ClassVar[str] = PRIVATE
    character: str
    role: str

    def audience(self) -> tuple[str, ...]:
        return (self.character,)


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class SheriffChanged(Event):
    """警长 set: ``how`` is elected, successor (chosen), random (red card / deadline) or none.

    Director-only: the public learns the sheriff from the ``Announced`` line (kind ``sheriff``),
    which at night waits for the next day's start.
    """

    TYPE: ClassVar[str] = "sheriff_changed"
    character: str | None
    how: str
    day: int


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class StatusSet(Event):
    """Generic per-character status (``key`` -> JSON ``value``) for ruleset bookkeeping."""

    TYPE: ClassVar[str] = "status_set"
    character: str
    key: str
    value: Any


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class FlagSet(Event):
    """Generic game-level flag (``key`` -> JSON ``value``) for ruleset bookkeeping."""

    TYPE: ClassVar[str] = "flag_set"
    key: str
    value: Any


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class DecisionOpened(Event):
    """A decision the rules require of ``actor`` now (最后一枪, 殉职, 传位, 遗言 is separate)."""

    TYPE: ClassVar[str] = "decision_opened"
    scope: ClassVar[str] = PRIVATE
    actor: str
    decision: str
    day: int

    def audience(self) -> tuple[str, ...]:
        return (self.actor,)


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class DecisionClosed(Event):
    """A pending decision was taken, abandoned, or defaulted at its deadline."""

    TYPE: ClassVar[str] = "decision_closed"
    scope: ClassVar[str] = PRIVATE
    actor: str
    decision: str
    result: str | None
    how: str = "chosen"

    def audience(self) -> tuple[str, ...]:
        return (self.actor,)


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class LastWordsGranted(Event):
    """The eliminated character may leave last words (遗言), within the ruleset's quota."""

    TYPE: ClassVar[str] = "last_words_granted"
    scope: ClassVar[str] = PRIVATE
    character: str
    day: int

    def audience(self) -> tuple[str, ...]:
        return (self.character,)


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class LastWordsGiven(Event):
    """Last words submitted (``text`` None = abandoned, or missed the deadline)."""

    TYPE: ClassVar[str] = "last_words_given"
    scope: ClassVar[str] = PRIVATE
    character: str
    text: str | None
    day: int

    def audience(self) -> tuple[str, ...]:
        return (self.character,)


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class Carded(Event):
    """A card against a character (red = 红牌罚下); ``already_out`` if eliminated before."""

    TYPE: ClassVar[str] = "carded"
    scope: ClassVar[str] = PUBLIC
    character: str
    cause: str
    day: int
    phase: str
    colour: str = "red"
    already_out: bool = False


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class EjectionWithdrawn(Event):
    """A red card's ejection withdrawn (the card was revoked while the ejection was the latest
    thing in the game): the state is again the fold of the log before position ``since``, the
    ejection's ``Carded``. The withdrawn events stay in the log, as history; views that derive
    facts from events skip them (:func:`withdrawn_positions`)."""

    TYPE: ClassVar[str] = "ejection_withdrawn"
    scope: ClassVar[str] = PUBLIC
    character: str
    since: int


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class NightActionWithdrawn(Event):
    """The director took back ``actor``'s ``skill`` entered tonight (a mistyped entry corrected
    before the night is resolved): the state is again the fold of the log before ``since`` (the
    night's first choice), and the night's other choices follow this event, applied
    again in their order. Like :class:`EjectionWithdrawn`, the withdrawn events stay in the log."""

    TYPE: ClassVar[str] = "night_action_withdrawn"
    scope: ClassVar[str] = DIRECTOR
    actor: str
    skill: str
    since: int


#: events whose ``since`` takes back the log from that position on (refolding the state)
WITHDRAWALS = (EjectionWithdrawn, NightActionWithdrawn)


def withdrawn_positions(log: Sequence[Event]) -> set[int]:
    """Log positions of events a later :class:`EjectionWithdrawn` or
    :class:`NightActionWithdrawn` took back (the withdrawal itself is not one of them).

    >>> log = [FlagSet("a", 1), Carded("甲", "x", 1, "day"), FlagSet("b", 2)]
    >>> sorted(withdrawn_positions([*log, EjectionWithdrawn("甲", 1)]))
    [1, 2]
    """
    taken: set[int] = set()
    for i, e in enumerate(log):
        if isinstance(e, WITHDRAWALS):
            taken.update(range(e.since, i))
    return taken


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class FactionLost(Event):
    """A faction is judged lost (判负): by its lose condition or by the director with a red card."""

    TYPE: ClassVar[str] = "faction_lost"
    faction: str
    reason: str


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class Substituted(Event):
    """替补: ``new_player`` takes over ``character`` and inherits everything."""

    TYPE: ClassVar[str] = "substituted"
    scope: ClassVar[str] = PRIVATE
    character: str
    old_player: str
    new_player: str

    def audience(self) -> tuple[str, ...]:
        return (self.character,)


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    """The game is over: ``winner`` faction, each faction's ``results``, and the revealed seed
    and server secret (empty for a game without one)."""

    TYPE: ClassVar[str] = "game_ended"
    scope: ClassVar[str] = PUBLIC
    winner: str | None
    results: dict[str, str]
    seed: str
    reason: str = ""
    secret: str = ""
