"""Actions: what players and the director ask the engine to do.

An action is a request; :meth:`game_rules.game.Game.apply` validates it and, if legal, appends the
events it causes. Actions are frozen value objects, so ``legal_actions`` can list them and tests can
compare them.

>>> UseSkill("占卜", "divine", "饺子")
UseSkill(actor='占卜', skill='divine', target='饺子', reason=None, choice=None)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


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


@dataclass(frozen=True, slots=True)
class ScheduleDay:
    """Set the current day's closing time (关门) and/or its 加速 state (None = unchanged)."""

    closes_at: datetime | None = None
    accelerated: bool | None = None


@dataclass(frozen=True, slots=True)
class CloseDay:
    """The day's vote closes (关门): tally, then the day's vote result and its consequences."""

    at: datetime | None = None


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


@dataclass(frozen=True, slots=True)
class EndNight:
    """Close the night: missing actions take their defaults, then the night is resolved."""


@dataclass(frozen=True, slots=True)
class DeadlinePassed:
    """The deadline of the open decisions (最后一枪, 殉职, 传位) passed: seed defaults apply."""


@dataclass(frozen=True, slots=True)
class LeaveLastWords:
    """Last words (遗言); ``text`` None abandons them."""

    actor: str
    text: str | None


@dataclass(frozen=True, slots=True)
class Eject:
    """红牌罚下 by the director; ``faction_loses`` also declares the character's faction lost."""

    character: str
    cause: str
    faction_loses: bool = False


@dataclass(frozen=True, slots=True)
class Substitute:
    """替补: ``player`` takes over ``character`` (once per character)."""

    character: str
    player: str


@dataclass(frozen=True, slots=True)
class DeclareFactionLost:
    """The director judges a faction lost (判负), e.g. together with a red card."""

    faction: str
    reason: str


Action = (
    CastVote
    | ScheduleDay
    | CloseDay
    | UseSkill
    | EndNight
    | DeadlinePassed
    | LeaveLastWords
    | Eject
    | Substitute
    | DeclareFactionLost
)
