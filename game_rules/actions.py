"""Actions: what players and the director ask the engine to do.

An action is a request; :meth:`game_rules.game.Game.apply` validates it and, if legal, appends the
events it causes. Actions are frozen value objects, so ``legal_actions`` can list them and tests can
compare them. Every field is type-checked as the action is made, so an ill-typed action never
exists (:class:`~game_rules.errors.IllegalActionError`, rule ``bad_action``):

>>> UseSkill("甲", "divine", 3)
Traceback (most recent call last):
...
game_rules.errors.IllegalActionError: [bad_action] UseSkill.target: 3 is not str | None

>>> UseSkill("占卜", "divine", "饺子")
UseSkill(actor='占卜', skill='divine', target='饺子', reason=None, choice=None)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, TypeVar

from game_rules.errors import IllegalActionError
from game_rules.frozen import quick_frozen

T = TypeVar("T")


def _refuse_field(cls: type, name: str, value: Any, allowed: tuple[type, ...]) -> None:
    """Refuse a field value of a type its annotation does not admit (subclasses pass, but a
    bool is not taken for an int). Called by the generated constructors, only for values whose
    exact type the annotation does not name, so a well-typed action costs one set lookup a field.
    """
    if isinstance(value, allowed) and (bool in allowed or not isinstance(value, bool)):
        return
    wanted = " | ".join("None" if t is type(None) else t.__name__ for t in allowed)
    raise IllegalActionError("bad_action", f"{cls.__name__}.{name}: {value!r} is not {wanted}")


def _action(cls: type[T]) -> type[T]:
    """Class decorator for actions: frozen, cheap to build, every field type-checked on the way
    in (an action with a wrongly typed field cannot be made, so ``Game.apply`` need not look)."""
    return quick_frozen(cls, check=_refuse_field)


# Repeated on purpose: a ballot's fields are those of the VoteCast event that records it.
@_action
@dataclass(frozen=True, slots=True)
class CastVote:
    """A day ballot already parsed: ``target`` None = 弃权. ``at`` orders ballots (最先获得)."""

    voter: str
    target: str | None
    at: datetime | None = None
    proxy: bool = False
    is_change: bool = False
    post_id: str | None = None
    reason: str = ""
    replies_to: str | None = None
    requested_at: datetime | None = None
    conditional: bool = False


@_action
@dataclass(frozen=True, slots=True)
class ScheduleDay:
    """Set the current day's closing time (关门) and/or its 加速 state (None = unchanged)."""

    closes_at: datetime | None = None
    accelerated: bool | None = None


@_action
@dataclass(frozen=True, slots=True)
class CloseDay:
    """The day's vote closes (关门): tally, then the day's vote result and its consequences."""

    at: datetime | None = None


@_action
@dataclass(frozen=True, slots=True)
class UseSkill:
    """A skill or a required decision.

    ``skill`` is the ruleset's skill key (``divine``, ``guard``, ``kill``, ``poison``, ``shoot``,
    ``succession``...). ``target`` is a character or None; ``reason`` carries the M08 kill
    proposal's two-character reason; ``choice`` a yes/no or named option (e.g. 决战 agreement).
    """

    actor: str
    skill: str
    target: str | None = None
    reason: str | None = None
    choice: str | None = None


@_action
@dataclass(frozen=True, slots=True)
class EndNight:
    """Close the night: missing actions take their defaults, then the night is resolved."""


@_action
@dataclass(frozen=True, slots=True)
class DeadlinePassed:
    """The deadline of the open decisions (最后一枪, 殉职, 传位) passed: seed defaults apply."""


@_action
@dataclass(frozen=True, slots=True)
class LeaveLastWords:
    """Last words (遗言); ``text`` None abandons them."""

    actor: str
    text: str | None


@_action
@dataclass(frozen=True, slots=True)
class Eject:
    """红牌罚下 by the director; ``faction_loses`` also declares the character's faction lost."""

    character: str
    cause: str
    faction_loses: bool = False


@_action
@dataclass(frozen=True, slots=True)
class WithdrawEjection:
    """A red card revoked while its ejection is still the game's latest event: everything the
    ejection caused, from log position ``since`` (its ``Carded`` event) on, is withdrawn, and
    the character is back. The service sends it only when the card is revoked (never a choice
    of its own); once anything else has happened, the card can only be appealed after the game.
    """

    character: str
    since: int


@_action
@dataclass(frozen=True, slots=True)
class WithdrawNightAction:
    """Take back ``actor``'s ``skill`` entered tonight, before the night is resolved (the
    director mistyped it, or the player changed their mind in time). The night's other choices
    are applied again in their order without it; refused when one of them depended on it (狼头's
    指杀 on a withdrawn 提议) or when the night holds anything besides skills (a red card...)."""

    actor: str
    skill: str


@_action
@dataclass(frozen=True, slots=True)
class Substitute:
    """替补: ``player`` takes over ``character`` (once per character)."""

    character: str
    player: str


@_action
@dataclass(frozen=True, slots=True)
class DeclareFactionLost:
    """The director judges a faction lost (判负), e.g. together with a red card."""

    faction: str
    reason: str


#: Free text in the actions :meth:`~game_rules.game.Game.director_actions` lists: the director
#: replaces it before applying (the engine accepts the placeholder as given, so a listed action
#: is always legal; the same convention as M08's kill proposals, listed with the reason 刀人).
DIRECTOR_CAUSE_PLACEHOLDER = "（请填写原因）"
#: the 替补 player's name in a listed :class:`Substitute`
SUBSTITUTE_PLAYER_PLACEHOLDER = "（请填写替补玩家）"
#: the 判负 reason in a listed :class:`DeclareFactionLost`
FACTION_LOSS_PLACEHOLDER = "（请填写判负原因）"
#: the text of a listed :class:`LeaveLastWords` (its ``None`` form, 放弃遗言, is listed too)
LAST_WORDS_PLACEHOLDER = "（请填写遗言）"


Action = (
    CastVote
    | ScheduleDay
    | CloseDay
    | UseSkill
    | EndNight
    | DeadlinePassed
    | LeaveLastWords
    | Eject
    | WithdrawEjection
    | WithdrawNightAction
    | Substitute
    | DeclareFactionLost
)


ACTION_TYPES: dict[str, type] = {
    "cast_vote": CastVote,
    "schedule_day": ScheduleDay,
    "close_day": CloseDay,
    "use_skill": UseSkill,
    "end_night": EndNight,
    "deadline_passed": DeadlinePassed,
    "leave_last_words": LeaveLastWords,
    "eject": Eject,
    "withdraw_ejection": WithdrawEjection,
    "withdraw_night_action": WithdrawNightAction,
    "substitute": Substitute,
    "declare_faction_lost": DeclareFactionLost,
}
_TAGS = {cls: tag for tag, cls in ACTION_TYPES.items()}
_TIME_FIELDS = frozenset({"at", "closes_at", "requested_at"})


def action_to_dict(action: Action) -> dict[str, Any]:
    """JSON form of an action (``type`` tag; datetimes as ISO strings).

    >>> action_to_dict(UseSkill("占", "divine", "狐"))["type"]
    'use_skill'
    """
    out: dict[str, Any] = {"type": _TAGS[type(action)]}
    for f in fields(action):
        value = getattr(action, f.name)
        out[f.name] = value.isoformat() if isinstance(value, datetime) else value
    return out


def action_from_dict(data: Mapping[str, Any]) -> Action:
    """Inverse of :func:`action_to_dict`; raises :class:`ValueError` on bad input.

    >>> action_from_dict({"type": "cast_vote", "voter": "甲", "target": None,
    ...                   "at": "2026-11-02T10:00:00"}).at
    datetime.datetime(2026, 11, 2, 10, 0)
    """
    cls = ACTION_TYPES.get(str(data.get("type")))
    if cls is None:
        raise IllegalActionError("unknown_action", f"unknown action type {data.get('type')!r}")
    names = {f.name for f in fields(cls)}
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key == "type":
            continue
        if key not in names:
            raise IllegalActionError("bad_action", f"{data.get('type')} has no field {key!r}")
        if key in _TIME_FIELDS and isinstance(value, str):
            try:
                value = datetime.fromisoformat(value)
            except ValueError as exc:
                raise IllegalActionError("bad_action", f"{key}: not a time: {value!r}") from exc
        kwargs[key] = value
    try:
        action: Action = cls(**kwargs)
    except TypeError as exc:
        raise IllegalActionError("bad_action", f"{data.get('type')}: {exc}") from exc
    return action
