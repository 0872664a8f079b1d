"""The love-game bookkeeping of wa004 inside the core :class:`~game_rules.state.GameState`.

Per character (``state.status[c]``): ``lover`` (None = 单身状态), ``true_love``, ``marks``
(不会再爱), ``spent`` (counted skills used since the couple last changed), ``retain_nights``
(nights 挽留 was used) and ``shield_until`` (捍卫: safe until that night begins; 0 = none).
Game-wide (``state.flags``): ``wa004.revealed``, ``wa004.first_noble``, ``wa004.second_noble``
(a second 单身贵族 has appeared), ``wa004.disturbed`` (tonight a couple ended or a coupled character
went out), ``wa004.retaining`` (挽留 users tonight), ``wa004.quiet_night`` (the number of
the night just judged quiet, else 0) and ``wa004.ntr_pause`` (``rules.ntr_consent: asked``: the
night's resolution waits for a 牛头人 target's answer; set by a ``FlagSet``, the answer added by
the target's ``DecisionClosed``). A character's couple ends on elimination through an explicit
``CoupleDissolved`` (skill ``out``) emitted by the engine.

Only :func:`fold_wa004` writes these keys; everything else here only reads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from game_rules.events import (
    DecisionClosed,
    Event,
    GameStarted,
    PhaseStarted,
    RoleChanged,
)
from game_rules.state import NIGHT, GameState
from game_rules.wa004 import events as ev
from game_rules.wa004.roles import NOBLE, NTR_CONSENT

REVEALED = "wa004.revealed"
FIRST_NOBLE = "wa004.first_noble"
SECOND_NOBLE = "wa004.second_noble"
DISTURBED = "wa004.disturbed"
RETAINING = "wa004.retaining"
QUIET_NIGHT = "wa004.quiet_night"
NTR_PAUSE = "wa004.ntr_pause"


# -- questions ------------------------------------------------------------------------------------


def lover_of(state: GameState, name: str) -> str | None:
    """The character's lover, or None when single (单身状态)."""
    lover: str | None = state.status[name].get("lover")
    return lover


def true_love_of(state: GameState, name: str) -> str | None:
    """The 变节者's true love (真爱对象), once chosen."""
    love: str | None = state.status[name].get("true_love")
    return love


def marks_of(state: GameState, name: str) -> int:
    """How many 不会再爱 marks the character holds."""
    return int(state.status[name].get("marks", 0))


def has_spent(state: GameState, name: str, skill: str) -> bool:
    """Whether the counted ``skill`` is used up until the couple relation changes."""
    return skill in state.status[name].get("spent", ())


def couples(state: GameState) -> list[tuple[str, str]]:
    """Current couples, each once, ordered by the seat of their first member."""
    out = []
    status = state.status
    seen: set[str] = set()  # seats up to c's: its lover is listed with the earlier member
    for c in state.characters:
        seen.add(c)
        other = status[c].get("lover")
        if other is not None and other not in seen:
            out.append((c, other))
    return out


def is_noble(state: GameState, name: str) -> bool:
    """Whether the character is a 单身贵族 now (original or converted)."""
    return state.roles.get(name) == NOBLE


def noble_group(state: GameState) -> tuple[str, ...]:
    """The 单身贵族 group: all nobles, eliminated ones included (they stay in the group)."""
    roles = state.roles
    return tuple([c for c in state.characters if roles.get(c) == NOBLE])


def shielded(state: GameState, name: str) -> bool:
    """Whether 捍卫 keeps ``name`` from going out right now."""
    return int(state.status[name].get("shield_until", 0)) > 0


def nobility_active(state: GameState, name: str, second_alive_only: bool) -> bool:
    """Whether 尊贵 keeps ``name`` (the first 单身贵族) from going out.

    ``second_alive_only``: the reading where a second noble counts only while alive (R9).
    """
    if name != state.flags.get(FIRST_NOBLE) or not is_noble(state, name):
        return False
    if second_alive_only:
        return not any(n != name for n in state.with_role(NOBLE))
    return not state.flags.get(SECOND_NOBLE, False)


def retain_window_free(state: GameState, name: str, night: int, window: str) -> bool:
    """Whether 挽留 may be used on ``night`` (每两游戏日夜晚可选择一天使用, R6)."""
    nights = state.status[name].get("retain_nights", ())
    if window == "pairs":
        pair = (night - 1) // 2
        return not any(n != night and (n - 1) // 2 == pair for n in nights)
    return night - 1 not in nights


# -- fold -----------------------------------------------------------------------------------------


def _put(state: GameState, name: str, key: str, value: Any) -> None:
    state.status[name][key] = value


def _unpair(state: GameState, a: str, b: str) -> None:
    for name in (a, b):
        _put(state, name, "lover", None)
        # 当你的情侣关系出现变化时，使用次数将恢复
        _put(state, name, "spent", [])


def _started(state: GameState, event: GameStarted) -> None:
    nobles = [c for c in event.characters if event.roles[c] == NOBLE]
    state.flags[FIRST_NOBLE] = nobles[0] if nobles else ""
    state.flags[SECOND_NOBLE] = len(nobles) > 1
    state.flags[REVEALED] = False
    state.flags[DISTURBED] = False
    state.flags[RETAINING] = []
    state.flags[QUIET_NIGHT] = 0
    for c in event.characters:
        state.status[c].update(
            lover=None,
            true_love=None,
            marks=0,
            spent=[],
            retain_nights=[],
            shield_until=0,
        )


def _couples_drawn(state: GameState, event: ev.CouplesDrawn) -> None:
    for a, b in event.couples:
        _put(state, a, "lover", b)
        _put(state, b, "lover", a)


def _true_love(state: GameState, event: ev.TrueLoveChosen) -> None:
    _put(state, event.actor, "true_love", event.target)


def _revealed(state: GameState, event: ev.CouplesRevealed) -> None:
    state.flags[REVEALED] = True


def _withdrawn(state: GameState, event: ev.OrderWithdrawn) -> None:
    state.night_actions.pop((event.actor, event.skill), None)


def _spent(state: GameState, event: ev.SkillSpent) -> None:
    spent = set(state.status[event.actor].get("spent", ()))
    _put(state, event.actor, "spent", sorted(spent | {event.skill}))


def _retain(state: GameState, event: ev.RetainUsed) -> None:
    nights = list(state.status[event.actor].get("retain_nights", ()))
    _put(state, event.actor, "retain_nights", [*nights, event.night])
    state.flags[RETAINING] = [*state.flags.get(RETAINING, []), event.actor]


def _shielded(state: GameState, event: ev.Shielded) -> None:
    for c in event.covered:
        until = max(int(state.status[c].get("shield_until", 0)), event.until)
        _put(state, c, "shield_until", until)


def _dissolved(state: GameState, event: ev.CoupleDissolved) -> None:
    _unpair(state, event.a, event.b)
    if state.phase == NIGHT:
        state.flags[DISTURBED] = True


def _formed(state: GameState, event: ev.CoupleFormed) -> None:
    _unpair(state, event.a, event.b)
    _put(state, event.a, "lover", event.b)
    _put(state, event.b, "lover", event.a)


def _marked(state: GameState, event: ev.MarkGained) -> None:
    _put(state, event.character, "marks", event.total)


def _judged(state: GameState, event: ev.NightJudged) -> None:
    state.flags[QUIET_NIGHT] = event.night if event.quiet else 0


def _role_changed(state: GameState, event: RoleChanged) -> None:
    if event.role == NOBLE and event.character != state.flags.get(FIRST_NOBLE):
        state.flags[SECOND_NOBLE] = True
    for key in [k for k in state.night_actions if k[0] == event.character]:
        del state.night_actions[key]


def _decision_closed(state: GameState, event: DecisionClosed) -> None:
    # the 牛头人 target's answer (or its deadline default, or a void question) goes with the
    # paused resolution, which the engine resumes from the state alone
    pause = state.flags.get(NTR_PAUSE)
    if event.decision == NTR_CONSENT and pause and pause.get("target") == event.actor:
        state.flags[NTR_PAUSE] = {**pause, "answer": event.result, "how": event.how}


def _phase(state: GameState, event: PhaseStarted) -> None:
    state.flags[QUIET_NIGHT] = 0
    if event.phase == NIGHT:
        state.flags[DISTURBED] = False
        state.flags[RETAINING] = []
        for c in state.characters:
            if 0 < int(state.status[c].get("shield_until", 0)) <= event.day:
                _put(state, c, "shield_until", 0)


# event type -> its fold (one dict look-up per event: most events, e.g. Told, have none)
_FOLDS: dict[type[Event], Callable[[GameState, Any], None]] = {
    GameStarted: _started,
    ev.CouplesDrawn: _couples_drawn,
    ev.TrueLoveChosen: _true_love,
    ev.CouplesRevealed: _revealed,
    ev.OrderWithdrawn: _withdrawn,
    ev.SkillSpent: _spent,
    ev.RetainUsed: _retain,
    ev.Shielded: _shielded,
    ev.CoupleDissolved: _dissolved,
    ev.CoupleFormed: _formed,
    ev.MarkGained: _marked,
    ev.NightJudged: _judged,
    RoleChanged: _role_changed,
    PhaseStarted: _phase,
    DecisionClosed: _decision_closed,
}


#: the event types :func:`fold_wa004` acts on
FOLDED_EVENTS: frozenset[type[Event]] = frozenset(_FOLDS)


def fold_wa004(state: GameState, event: Event) -> None:
    """Fold one event into the wa004 keys of ``state`` (in place, like the core fold)."""
    fold = _FOLDS.get(type(event))
    if fold is not None:
        fold(state, event)
