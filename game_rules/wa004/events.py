"""wa004's own event types (the core ones live in :mod:`game_rules.events`).

Each is folded by :func:`game_rules.wa004.couples.fold_wa004` into ``state.status`` (per character)
and ``state.flags`` (``wa004.*`` keys). ``scope``/``audience`` say who may see each one; private
feedback to players is sent as core ``Told`` events with the seed's wording.
"""

# Repeated on purpose: every event is declared the same way (register_event, quick_frozen, a
# frozen slotted dataclass with its TYPE, scope and fields): one small value type per fact the
# log records, which duplicates reports as shared shape.

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from game_rules.events import DIRECTOR, PRIVATE, Event, register_event
from game_rules.frozen import quick_frozen


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class CouplesDrawn(Event):
    """游戏开始时，随机分配情侣 (drawn from the seed; told to the lovers only at the reveal)."""

    TYPE: ClassVar[str] = "wa004_couples_drawn"
    couples: tuple[tuple[str, str], ...]


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class TrueLoveChosen(Event):
    """爱情追寻: ``actor`` chose ``target``; ``defaulted`` = drawn at random after the deadline."""

    TYPE: ClassVar[str] = "wa004_true_love"
    scope: ClassVar[str] = PRIVATE
    actor: str
    target: str
    defaulted: bool = False

    def audience(self) -> tuple[str, ...]:
        return (self.actor,)


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class CouplesRevealed(Event):
    """所有变节者选择出真爱对象之后，通知各人的情侣."""

    TYPE: ClassVar[str] = "wa004_couples_revealed"


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class OrderWithdrawn(Event):
    """A standing night order replaced by a newer one (one love skill per 变节者, one 烧烤)."""

    TYPE: ClassVar[str] = "wa004_order_withdrawn"
    actor: str
    skill: str


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class SkillSpent(Event):
    """A counted skill's one use is gone (until the user's couple relation changes)."""

    TYPE: ClassVar[str] = "wa004_skill_spent"
    actor: str
    skill: str


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class RetainUsed(Event):
    """挽留 on ``night``: the user's couple cannot be dissolved tonight."""

    TYPE: ClassVar[str] = "wa004_retain_used"
    actor: str
    night: int


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class Shielded(Event):
    """捍卫: ``covered`` cannot go out until night ``until`` begins (red cards excepted)."""

    TYPE: ClassVar[str] = "wa004_shielded"
    actor: str
    covered: tuple[str, ...]
    until: int


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class CoupleDissolved(Event):
    """The couple ``a``–``b`` ended by ``skill`` (分手/私奔/牛头人) used by ``by``."""

    TYPE: ClassVar[str] = "wa004_couple_dissolved"
    a: str
    b: str
    skill: str
    by: str


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class CoupleFormed(Event):
    """``a`` and ``b`` became lovers by ``skill`` (私奔/牛头人)."""

    TYPE: ClassVar[str] = "wa004_couple_formed"
    a: str
    b: str
    skill: str


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class MarkGained(Event):
    """A 不会再爱 mark; ``reason`` lost_lover | single_at_night; ``total`` after it."""

    TYPE: ClassVar[str] = "wa004_mark"
    scope: ClassVar[str] = PRIVATE
    character: str
    reason: str
    total: int

    def audience(self) -> tuple[str, ...]:
        return (self.character,)


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class EffectBlocked(Event):
    """A skill had no effect; ``why`` explains it to the director (never to players)."""

    TYPE: ClassVar[str] = "wa004_blocked"
    scope: ClassVar[str] = DIRECTOR
    actor: str
    skill: str
    target: str | None
    why: str


@register_event
@quick_frozen
@dataclass(frozen=True, slots=True)
class NightJudged(Event):
    """End of night ``night``: ``quiet`` = no couple ended and no coupled character went out."""

    TYPE: ClassVar[str] = "wa004_night_judged"
    night: int
    quiet: bool


WA004_EVENTS: tuple[type[Event], ...] = (
    CouplesDrawn,
    TrueLoveChosen,
    CouplesRevealed,
    OrderWithdrawn,
    SkillSpent,
    RetainUsed,
    Shielded,
    CoupleDissolved,
    CoupleFormed,
    MarkGained,
    EffectBlocked,
    NightJudged,
)
