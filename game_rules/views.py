"""Views: the only way information leaves the engine.

* :class:`PublicView` — what everyone knows: the 公示 announcements and other public events.
* :class:`CharacterView` — one character's knowledge: public view, own role as told (M72 crows see
  only 乌鸦), own faction, and every private event addressed to them (feedback, teammates...).
* :class:`DirectorView` — everything, including the seed and the server secret.

Views are built from events' ``scope``/``audience`` only, so a view cannot leak what no event
grants; and a character or the public sees each event through :meth:`Event.for_players`, which
drops the fields only the director may read (who eliminated whom). Once the game has ended the
public view also carries the secret, the seed and the verification record
(:mod:`game_rules.verification`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from game_rules.events import (
    DIRECTOR,
    PUBLIC,
    ActionTaken,
    Announced,
    Carded,
    Event,
    GameEnded,
    Told,
    event_to_dict,
    withdrawn_positions,
)
from game_rules.verification import verification_record

if TYPE_CHECKING:
    from game_rules.game import Game


@dataclass(frozen=True)
class PublicView:
    """Public knowledge. ``announcements`` in order; ``out`` = characters announced eliminated."""

    ruleset: str
    characters: tuple[str, ...]
    commitment: str
    announcements: tuple[Announced, ...]
    out: tuple[str, ...]
    sheriff: str | None
    ended: bool
    winner: str | None
    results: Mapping[str, str]
    seed: str | None
    secret: str | None = None
    verification: Mapping[str, Any] | None = field(repr=False, default=None)
    events: tuple[Event, ...] = field(repr=False, default=())

    def by_day(self) -> dict[int, list[str]]:
        """Announcement texts grouped by game day (day 0 = before the game)."""
        out: dict[int, list[str]] = {}
        for a in self.announcements:
            out.setdefault(a.day, []).append(a.text)
        return out

    def living(self) -> list[str]:
        """Characters not yet announced eliminated."""
        gone = set(self.out)
        return [c for c in self.characters if c not in gone]

    def to_dict(self) -> dict[str, Any]:
        """JSON form (announcements as ``{day, phase, kind, text}``)."""
        return {
            "ruleset": self.ruleset,
            "characters": list(self.characters),
            "commitment": self.commitment,
            "announcements": [
                {"day": a.day, "phase": a.phase, "kind": a.kind, "text": a.text}
                for a in self.announcements
            ],
            "out": list(self.out),
            "living": self.living(),
            "sheriff": self.sheriff,
            "ended": self.ended,
            "winner": self.winner,
            "results": dict(self.results),
            "seed": self.seed,
            "secret": self.secret,
            "verification": dict(self.verification) if self.verification is not None else None,
        }


@dataclass(frozen=True)
class CharacterView:
    """What one character may know."""

    character: str
    player: str
    role: str
    role_name: str
    faction: str
    faction_name: str
    alive: bool
    told: tuple[Told, ...]
    actions: tuple[ActionTaken, ...]
    events: tuple[Event, ...]
    public: PublicView

    def messages(self) -> list[str]:
        """The private feedback texts, in order."""
        return [t.text for t in self.told]

    # Repeated on purpose: each view writes its own fields as JSON (night.Step does too).
    def to_dict(self) -> dict[str, Any]:
        """JSON form: identity, private messages, own actions, every visible event, public view."""
        return {
            "character": self.character,
            "player": self.player,
            "role": self.role,
            "role_name": self.role_name,
            "faction": self.faction,
            "faction_name": self.faction_name,
            "alive": self.alive,
            "messages": [
                {"day": t.day, "kind": t.kind, "text": t.text, "data": dict(t.data)}
                for t in self.told
            ],
            "actions": [event_to_dict(a) for a in self.actions],
            "events": [event_to_dict(e) for e in self.events],
            "public": self.public.to_dict(),
        }


@dataclass(frozen=True)
class DirectorView:
    """Everything: the state snapshot, the full log and the seed."""

    seed: str
    secret: str
    roles: Mapping[str, str]
    snapshot: Mapping[str, Any]
    events: tuple[Event, ...]
    public: PublicView

    def event_dicts(self) -> list[dict[str, Any]]:
        """The full log as JSON dicts."""
        return [event_to_dict(e) for e in self.events]


class _Views:
    """Views of one game. Each view lists the log's events that :meth:`Event.seen_by` grants.

    The first character view filters the log directly, which is all one request needs. Asked for
    more (say every character's view, as the property tests do), the builder indexes the log
    once by audience (:class:`_LogIndex`), so each further view is a merge of two sorted
    position lists instead of a ``seen_by`` call per event. The public view is built once. Both
    are rebuilt if the log has grown since.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self._length = -1
        self._public: PublicView | None = None
        self._index: _LogIndex | None = None
        self._characters_asked = 0

    def _log(self) -> tuple[Event, ...]:
        log = self.game.log
        if len(log) != self._length:  # the log only grows (a refused action leaves it as it was)
            self._length = len(log)
            self._public = None
            self._index = None
        return log

    def public(self) -> PublicView:
        log = self._log()
        if self._public is not None:
            return self._public
        g = self.game
        s = g.state
        events = tuple(e.for_players() for e in log if e.seen_by(None))
        anns = tuple(e for e in events if isinstance(e, Announced))
        out: list[str] = []
        # a withdrawn ejection puts nobody out and names no successor
        taken = withdrawn_positions(log)
        facts = (
            [e for i, e in enumerate(log) if i not in taken and e.seen_by(None)]
            if taken
            else events
        )
        for e in facts:
            names: tuple[str, ...] = ()
            if isinstance(e, Announced) and e.kind in {"out", "card"}:
                names = e.characters
            elif isinstance(e, Carded) and not e.already_out:
                names = (e.character,)
            for n in names:
                if n not in out:
                    out.append(n)
        sheriff = None
        ended = None
        for e in facts:
            if isinstance(e, Announced) and e.kind == "sheriff" and e.characters:
                sheriff = e.characters[0]
            elif isinstance(e, GameEnded):
                ended = e
        self._public = PublicView(
            ruleset=g.ruleset_id,
            characters=g.characters,
            commitment=s.commitment,
            announcements=anns,
            out=tuple(out),
            sheriff=sheriff,
            ended=ended is not None,
            winner=ended.winner if ended else None,
            results=dict(ended.results) if ended else {},
            seed=ended.seed if ended else None,
            secret=ended.secret if ended else None,
            verification=verification_record(g) if ended else None,
            events=events,
        )
        return self._public

    def character(self, character: str) -> CharacterView:
        g = self.game
        s = g.state
        log = self._log()
        self._characters_asked += 1
        told: tuple[Told, ...]
        actions: tuple[ActionTaken, ...]
        if self._characters_asked == 1:
            events = tuple(e.for_players() for e in log if e.seen_by(character))
            told = tuple(e for e in events if isinstance(e, Told))
            actions = tuple(
                e for e in events if isinstance(e, ActionTaken) and e.actor == character
            )
        else:
            index = self._index
            if index is None:
                index = self._index = _LogIndex(log)
            seen = index.visible_to(character)
            events = tuple(log[i].for_players() for i in seen)
            told = tuple(index.told[i] for i in sorted(index.told.keys() & seen))
            own = index.actions_by.get(character, {})
            actions = tuple(
                cast(ActionTaken, own[i].for_players()) for i in sorted(own.keys() & seen)
            )
        role = g.ruleset.visible_role(s, character)
        faction = s.factions[character]
        return CharacterView(
            character=character,
            player=s.players[character],
            role=role,
            role_name=g.ruleset.role_name(role),
            faction=faction,
            faction_name=g.params.factions[faction],
            alive=s.is_alive(character),
            told=told,
            actions=actions,
            events=events,
            public=self.public(),
        )

    def director(self) -> DirectorView:
        g = self.game
        return DirectorView(
            seed=g.seed_for_director,
            secret=g.secret_for_director,
            roles=dict(g.state.roles),
            snapshot=g.state.snapshot(),
            events=g.log,
            public=self.public(),
        )


_PLAIN_SEEN_BY = Event.seen_by


class _LogIndex:
    """Log positions by audience: public, private per character, and any event whose class
    decides :meth:`Event.seen_by` itself (asked per viewer, so its answer is kept exactly)."""

    __slots__ = ("actions_by", "custom", "log", "private", "public", "told")

    def __init__(self, log: tuple[Event, ...]) -> None:
        self.log = log
        self.public: list[int] = []
        self.private: dict[str, list[int]] = {}
        self.custom: list[int] = []
        self.told: dict[int, Told] = {}
        self.actions_by: dict[str, dict[int, ActionTaken]] = {}
        for i, e in enumerate(log):
            if type(e).seen_by is not _PLAIN_SEEN_BY:
                self.custom.append(i)
            elif e.scope == PUBLIC:
                self.public.append(i)
            elif e.scope != DIRECTOR:  # private: ``seen_by`` asks ``audience()``
                for c in e.audience():
                    at = self.private.setdefault(c, [])
                    if not at or at[-1] != i:  # an audience may name someone twice
                        at.append(i)
            if isinstance(e, Told):
                self.told[i] = e
            elif isinstance(e, ActionTaken):
                self.actions_by.setdefault(e.actor, {})[i] = e

    def visible_to(self, character: str) -> list[int]:
        """Positions ``character`` may see, in log order."""
        log = self.log
        at = self.public + self.private.get(character, [])
        if self.custom:
            at = at + [i for i in self.custom if log[i].seen_by(character)]
        return sorted(at)  # sorted runs: a linear merge


def build_views(game: Game) -> _Views:
    """View builder for ``game`` (use ``Game.public_view`` and friends instead)."""
    return _Views(game)
