"""Views grant what the seeds grant, no more (issue 12, item 3).

Random full games of every ruleset (red cards and substitutions included, with a server secret)
are walked, and every event a character or the public can read is checked against the table in
``view_grants.yaml``: event type -> audience -> the fields (and ``data``/``detail`` keys, and the
wording of private feedback) the seeds grant, each with the seed line that grants it. A field
that carries a value it does not list fails the walk, so a new field leaks only if someone writes
it into that table.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from game_rules import Game
from game_rules.events import PUBLIC, ActionTaken, Event, GameStarted, RoleChanged, Told
from game_rules.params import available_ruleset_files, load_params
from game_rules.simulation import RandomPolicy, play_random_game

TABLE = Path(__file__).with_name("view_grants.yaml")
GAMES_PER_RULESET = 6
#: more red cards and substitutions than the default playout, so their events are walked too
POLICY = RandomPolicy(eject=0.05, substitute=0.05)
NAME = r"[^：、；，（）<>\s]+"
#: the fields naming who an event is about (its subject)
SUBJECT_FIELDS = ("actor", "character", "voter")


@dataclass(frozen=True)
class Grant:
    """One row of the table."""

    event: str
    audience: str
    fields: frozenset[str]
    seed: str
    kind: str | None = None
    engines: frozenset[str] | None = None
    roles: frozenset[str] | None = None
    keys: frozenset[str] = frozenset()  # allowed data/detail keys
    text: tuple[re.Pattern[str], ...] = ()


def load_grants() -> list[Grant]:
    rows = yaml.safe_load(TABLE.read_text(encoding="utf-8"))
    grants = []
    for row in rows:
        assert row.get("seed"), f"a grant without its seed line: {row}"
        grants.append(
            Grant(
                event=row["event"],
                audience=row["audience"],
                fields=frozenset(row["fields"]),
                seed=row["seed"],
                kind=row.get("kind"),
                engines=frozenset(row["engines"]) if "engines" in row else None,
                roles=frozenset(row["roles"]) if "roles" in row else None,
                keys=frozenset(row.get("data", ()) or row.get("detail", ())),
                text=tuple(re.compile(t.replace("{name}", NAME)) for t in row.get("text", ())),
            )
        )
    return grants


GRANTS = load_grants()


def carried(event: Event) -> dict[str, Any]:
    """The fields that tell something: those holding a value other than None or the default."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(event):  # type: ignore[arg-type]
        value = getattr(event, f.name)
        if value is None:
            continue
        if f.default is not dataclasses.MISSING and value == f.default:
            continue
        if f.default_factory is not dataclasses.MISSING and value == f.default_factory():
            continue
        out[f.name] = value
    return out


def audience_of(event: Event, viewer: str | None) -> str:
    if viewer is None or event.scope == PUBLIC:  # what the public reads, everyone reads
        return "public"
    if any(getattr(event, name, None) == viewer for name in SUBJECT_FIELDS):
        return "subject"
    return "recipient"


def sub_kind(event: Event) -> str | None:
    if isinstance(event, Told):
        return event.kind
    if isinstance(event, ActionTaken):
        return event.skill
    return None


def problems(
    event: Event, viewer: str | None, engine: str, held: Mapping[str, set[str]]
) -> list[str]:
    """Why ``viewer`` (None: the public) may not read ``event`` as it is; empty when granted."""
    audience = audience_of(event, viewer)
    kind = sub_kind(event)
    candidates = [
        g
        for g in GRANTS
        if g.event == event.TYPE
        and g.audience == audience
        and (g.kind is None or g.kind == kind)
        and (g.engines is None or engine in g.engines)
    ]
    where = f"{viewer or '公众'} reads {event.TYPE}" + (f"[{kind}]" if kind else "")
    if not candidates:
        return [f"{where} as {audience}: no grant in {TABLE.name}"]
    grant = candidates[0]
    out = []
    if grant.roles is not None and viewer is not None and not held[viewer] & grant.roles:
        out.append(f"{where}: only {sorted(grant.roles)} may ({grant.seed})")
    fields = carried(event)
    extra = set(fields) - grant.fields
    if extra:
        out.append(f"{where}: fields {sorted(extra)} are not granted ({grant.seed})")
    for name in ("data", "detail"):
        value = fields.get(name)
        if isinstance(value, Mapping) and set(value) - grant.keys:
            out.append(f"{where}: {name} keys {sorted(set(value) - grant.keys)} not granted")
    if grant.text and isinstance(event, Told):
        for line in event.text.splitlines():
            if not any(p.fullmatch(line) for p in grant.text):
                out.append(f"{where}: the text {line!r} is not a granted wording ({grant.seed})")
    return out


def roles_held(game: Game) -> dict[str, set[str]]:
    """Every role each character held during the game (the deal, then changes)."""
    first = game.log[0]
    assert isinstance(first, GameStarted)
    held = {c: {r} for c, r in first.roles.items()}
    for e in game.log:
        if isinstance(e, RoleChanged):
            held[e.character].add(e.role)
    return held


def walk(game: Game) -> Iterator[str]:
    """Every problem in every view of ``game``."""
    engine = game.params.engine
    held = roles_held(game)
    for e in game.public_view().events:
        yield from problems(e, None, engine, held)
    for character in game.characters:
        for e in game.character_view(character).events:
            yield from problems(e, character, engine, held)


def random_games(ruleset: str) -> Iterator[Game]:
    for n in range(GAMES_PER_RULESET):
        yield play_random_game(ruleset, seed=n, policy=POLICY, secret=f"{n + 1:064x}")


@pytest.mark.parametrize("ruleset", available_ruleset_files())
def test_every_field_a_character_or_the_public_reads_is_granted(ruleset: str) -> None:
    found: list[str] = []
    seen = 0
    for game in random_games(ruleset):
        seen += sum(len(game.character_view(c).events) for c in game.characters)
        found += walk(game)
    assert seen > 0
    assert not found, "\n".join(sorted(set(found))[:30])


def test_crows_are_told_only_crow() -> None:
    """※收到的身份都是乌鸦，不知道自己是大乌鸦还是小乌鸦 (001)."""
    game = play_random_game("m72", seed=3, policy=RandomPolicy(max_steps=20))
    crows = [c for c, r in game.state.roles.items() if r.startswith("crow")]
    assert crows
    for crow in crows:
        mine = game.character_view(crow).to_dict()
        mine.pop("public")
        text = str(mine)
        assert mine["role"] == "crow"
        assert "crow_big" not in text and "crow_small" not in text and "大乌鸦" not in text


def test_the_walk_catches_a_victim_told_who_eliminated_them(monkeypatch: Any) -> None:
    """The walk is not vacuous: hand the victim the ``by`` of its Eliminated event again (the
    leak of issue 12) and it fails, naming the field and the seed line."""
    from game_rules.events import Eliminated

    monkeypatch.setattr(Eliminated, "for_players", lambda self: self)
    found = [p for game in random_games("m08") for p in walk(game)]
    assert any("reads eliminated" in p and "'by'" in p for p in found)


def test_the_walk_catches_m08_wolves_told_the_proposer() -> None:
    """An M08 kill told with its proposer's reason, as before issue 12, is refused."""
    game = next(random_games("m08"))
    held = roles_held(game)
    wolves = [c for c, r in game.state.roles.items() if r == "wolf"]
    leak = Told(
        tuple(wolves), 1, "狼头选择的指杀结果：角色03（刀人）", "kill", {"target": "角色03"}
    )
    assert problems(leak, wolves[0], "m08", held)
    fine = Told(tuple(wolves), 1, "狼头选择的指杀结果：角色03", "kill", {"target": "角色03"})
    assert not problems(fine, wolves[0], "m08", held)
    shared = ActionTaken(wolves[0], "kill", "角色03", 1, {"reason": "刀人"}, tuple(wolves[1:]))
    assert problems(shared, wolves[1], "m08", held)  # no grant for another wolf's kill choice


def test_every_grant_names_a_known_ruleset_engine() -> None:
    engines = {load_params(r).engine for r in available_ruleset_files()}
    for grant in GRANTS:
        assert grant.engines is None or grant.engines <= engines, grant
