"""Ruleset parameters: data in ``game_rules/rulesets/<id>.yaml``, not code.

A parameters file names the engine that plays it (``engine: m08``), so a variant such as M08 with
12 players is just another YAML file (or a dict of overrides passed to ``new_game``). A variant
file may say ``extends: <id>`` and hold only what differs from that file (``m08_12.yaml``).

>>> p = load_params("m72")
>>> p.player_count, p.sheriff_weight, p.red_card_timing
(12, Fraction(2, 1), 'after_vote')
>>> load_params("m08", {"sheriff_weight": "2"}).sheriff_weight
Fraction(2, 1)
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from game_rules.errors import ParameterError, UnknownRulesetError

RED_CARD_TIMINGS = ("before_vote", "after_vote")


@dataclass(frozen=True)
class RoleSpec:
    """One role of a ruleset: its key, Chinese name, faction and how many are dealt."""

    key: str
    name: str
    faction: str
    count: int
    traits: Mapping[str, Any]


@dataclass(frozen=True)
class RulesetParams:
    """A ruleset's parameters, validated. ``extra`` holds engine-specific keys as written."""

    id: str
    engine: str
    name: str
    player_count: int
    roles: Mapping[str, RoleSpec]
    factions: Mapping[str, str]
    sheriff_weight: Fraction | None
    tie_rule: str
    last_words: int | None
    red_card_timing: str
    deadlines: Mapping[str, int]
    night_order: tuple[str, ...]
    vote_policy: Mapping[str, Any]
    extra: Mapping[str, Any]
    raw: Mapping[str, Any]

    def role_faction(self, role: str) -> str:
        """The faction a role starts in."""
        return self.roles[role].faction

    def role_name(self, role: str) -> str:
        """The role's Chinese name as the seed writes it."""
        return self.roles[role].name

    def deal_list(self) -> list[str]:
        """Every role key repeated by its count, in file order (the deck before shuffling)."""
        return [key for key, spec in self.roles.items() for _ in range(spec.count)]


def _merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


@lru_cache(maxsize=64)
def _read_yaml(ruleset_id: str) -> dict[str, Any]:
    """The ruleset file as a mapping, its ``extends`` chain resolved (callers must not mutate)."""
    return _resolve(ruleset_id, ())


#: what a ruleset id may be: the stem of a file in ``rulesets/`` (no path, no dots)
_RULESET_ID = re.compile(r"[a-z0-9_]{1,64}")


def _ruleset_text(name: str) -> str:
    try:
        return resources.files("game_rules.rulesets").joinpath(name).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError) as exc:
        raise UnknownRulesetError(
            message=f"没有这个规则集：{name.removesuffix('.yaml')}（rulesets/{name}）"
        ) from exc


def _resolve(ruleset_id: str, seen: tuple[str, ...]) -> dict[str, Any]:
    # A variant file names its base with ``extends: <id>`` and holds only what differs: it is
    # deep-merged over the base (mappings merge key by key; lists and values replace).
    if not isinstance(ruleset_id, str) or not _RULESET_ID.fullmatch(ruleset_id):
        # ids name files of the package, never paths: "../x" must not reach the file system
        raise UnknownRulesetError(
            message=f"没有这个规则集：{ruleset_id!r}（规则集编号只含 a-z、0-9 和 _）"
        )
    name = f"{ruleset_id}.yaml"
    data = yaml.safe_load(_ruleset_text(name))
    if not isinstance(data, dict):
        raise ParameterError(message=f"rulesets/{name} is not a mapping")
    base = data.pop("extends", None)
    if base is None:
        return data
    if not isinstance(base, str) or not base:
        raise ParameterError(message=f"rulesets/{name}: extends must name a ruleset file")
    chain = (*seen, ruleset_id)
    if base in chain:
        raise ParameterError(message=f"rulesets/{name}: extends loops ({' -> '.join(chain)})")
    try:
        parent = _resolve(base, chain)
    except UnknownRulesetError as exc:
        raise UnknownRulesetError(
            message=f"rulesets/{name} extends {base!r}, which has no ruleset file"
        ) from exc
    merged = _merge(parent, data)
    merged["id"] = data.get("id", ruleset_id)
    return merged


def available_ruleset_files() -> list[str]:
    """Ids of every ``rulesets/<id>.yaml`` file (companion files such as ``<id>.penalties.yaml``
    and ``common.announcements.yaml`` excluded)."""
    root = resources.files("game_rules.rulesets")
    return sorted(
        p.name[:-5] for p in root.iterdir() if p.name.endswith(".yaml") and p.name.count(".") == 1
    )


def _fraction(value: Any, key: str) -> Fraction | None:
    if value is None:
        return None
    try:
        return Fraction(str(value))
    except (ValueError, ZeroDivisionError) as exc:
        raise ParameterError(message=f"{key}: not a number: {value!r}") from exc


def params_from_mapping(data: Mapping[str, Any]) -> RulesetParams:
    """Validate a parameters mapping (as read from YAML) into :class:`RulesetParams`."""
    try:
        rid = str(data["id"])
        roles_raw = data["roles"]
        player_count = int(data["player_count"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ParameterError(message=f"missing or bad key: {exc}") from exc
    if not isinstance(roles_raw, Mapping) or not roles_raw:
        raise ParameterError(message="roles must be a non-empty mapping")
    roles: dict[str, RoleSpec] = {}
    for key, spec in roles_raw.items():
        if not isinstance(spec, Mapping) or "faction" not in spec:
            raise ParameterError(message=f"role {key!r} needs at least a faction")
        traits = {k: v for k, v in spec.items() if k not in {"name", "faction", "count"}}
        count = int(spec.get("count", 0))
        if count < 0:
            raise ParameterError(message=f"role {key!r}: negative count")
        roles[str(key)] = RoleSpec(
            str(key), str(spec.get("name", key)), str(spec["faction"]), count, traits
        )
    total = sum(r.count for r in roles.values())
    if total != player_count:
        raise ParameterError(
            "role_count_mismatch", f"role counts add to {total}, player_count is {player_count}"
        )
    factions = {str(k): str(v) for k, v in dict(data.get("factions", {})).items()}
    for r in roles.values():
        if r.faction not in factions:
            raise ParameterError(message=f"role {r.key!r}: unknown faction {r.faction!r}")
    last_words_raw = data.get("last_words")
    last_words: int | None
    if last_words_raw is None:
        last_words = None
    elif isinstance(last_words_raw, Mapping) and "count_roles" in last_words_raw:
        # M72: "遗言数量等于狼人的数量" — counted from the role table so variants follow.
        last_words = sum(roles[k].count for k in last_words_raw["count_roles"] if k in roles)
    else:
        last_words = int(last_words_raw)
    timing = str(data.get("red_card_timing", "before_vote"))
    if timing not in RED_CARD_TIMINGS:
        raise ParameterError(message=f"red_card_timing must be one of {RED_CARD_TIMINGS}")
    if "max_vote_changes" in data:
        # the limit has one place, <engine>.votes.yaml; a second spelling would need a precedence
        raise ParameterError(
            message="max_vote_changes is gone: the change limit is max_changes in "
            "rulesets/<engine>.votes.yaml; override it with vote_policy: {max_changes: N}"
        )
    known = {
        "id",
        "engine",
        "name",
        "player_count",
        "roles",
        "factions",
        "sheriff_weight",
        "tie_rule",
        "last_words",
        "red_card_timing",
        "deadlines",
        "night_order",
        "vote_policy",
    }
    return RulesetParams(
        id=rid,
        engine=str(data.get("engine", rid)),
        name=str(data.get("name", rid)),
        player_count=player_count,
        roles=roles,
        factions=factions,
        sheriff_weight=_fraction(data.get("sheriff_weight"), "sheriff_weight"),
        tie_rule=str(data.get("tie_rule", "none")),
        last_words=last_words,
        red_card_timing=timing,
        deadlines={str(k): int(v) for k, v in dict(data.get("deadlines", {})).items()},
        night_order=tuple(str(s) for s in data.get("night_order", ())),
        vote_policy=dict(data.get("vote_policy", {})),
        extra={k: v for k, v in data.items() if k not in known},
        raw=dict(data),
    )


def load_params(ruleset_id: str, overrides: Mapping[str, Any] | None = None) -> RulesetParams:
    """Read ``rulesets/<ruleset_id>.yaml``, apply ``overrides`` (deep merge), validate."""
    if not overrides:
        return _plain_params(ruleset_id)
    return params_from_mapping(_merge(_read_yaml(ruleset_id), overrides))


@lru_cache(maxsize=64)
def _plain_params(ruleset_id: str) -> RulesetParams:
    # RulesetParams is frozen, so the validated file can be shared by every game
    return params_from_mapping(_read_yaml(ruleset_id))
