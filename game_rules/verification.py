"""Checking a finished game's randomness from what it published: the deal and every random pick.

When a game ends its public view carries a verification record (:func:`verification_record`):
the ruleset, the characters in seating order, the commitment published at the start, the revealed
server secret and director seed, the deal, the roles the director fixed, and every random pick
(:class:`~game_rules.events.RandomPicked`: label, log position, candidates, result). Anyone can
then recompute, without the service (``bansha verify``, the console's 验证 page):

1. the commitment, SHA-256 over the secret, the seed and the deal;
2. the deal, dealt again from the key (secret + seed) as the game dealt it;
3. each pick, drawn again from the key and ``f"{position}:{label}"``.

>>> from game_rules.game import new_game
>>> g = new_game("m72", [f"P{i}" for i in range(1, 13)], seed="1", secret="ab" * 32)
>>> report = verify_record(verification_record(g))
>>> report.ok, report.checks[0].name
(True, 'commitment')
>>> record = verification_record(g) | {"secret": "cd" * 32}
>>> verify_record(record).ok
False
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from game_rules.errors import GameRuleError
from game_rules.events import GameStarted, RandomPicked
from game_rules.randomness import derived_rng, rng_key, verify_commitment
from game_rules.registry import get_ruleset

if TYPE_CHECKING:
    from game_rules.game import Game

#: the record's keys, as the public view publishes them
RECORD_KEYS = (
    "ruleset",
    "characters",
    "commitment",
    "seed",
    "secret",
    "roles",
    "fixed",
    "picks",
)


@dataclass(frozen=True)
class Check:
    """One recomputation: ``name`` (``commitment``, ``deal`` or ``pick:<position>:<label>``),
    whether it matched, and what it found, in Chinese."""

    name: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class VerificationReport:
    """Every check of one record; :attr:`ok` when all matched."""

    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        """Whether every check matched (False for a record with no checks)."""
        return bool(self.checks) and all(c.ok for c in self.checks)

    def lines(self) -> list[str]:
        """The report as Chinese lines, the verdict last."""
        out = [f"{'✓' if c.ok else '✗'} {c.detail}" for c in self.checks]
        verdict = "全部一致，随机安排与承诺值相符" if self.ok else "不一致，随机安排与承诺值不符"
        out.append(f"结论：{verdict}")
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "ok": self.ok,
            "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in self.checks],
        }


def verification_record(game: Game) -> dict[str, Any]:
    """What a game publishes for verification (the public view's ``verification`` once ended;
    this function does not check that the game has ended)."""
    fixed: dict[str, str] = {}
    deal: dict[str, str] = {}
    picks: list[dict[str, Any]] = []
    for event in game.log:
        if isinstance(event, GameStarted):  # the deal as dealt (roles may change later)
            fixed, deal = dict(event.fixed), dict(event.roles)
        elif isinstance(event, RandomPicked):
            picks.append(
                {
                    "label": event.label,
                    "position": event.position,
                    "method": event.method,
                    "candidates": list(event.candidates),
                    "result": list(event.result),
                }
            )
    return {
        "ruleset": game.ruleset_id,
        "characters": list(game.characters),
        "commitment": game.state.commitment,
        "seed": game.seed_for_director,
        "secret": game.secret_for_director,
        "roles": deal,
        "fixed": fixed,
        "picks": picks,
    }


class RecordError(ValueError):
    """A verification record that cannot be read (a key missing or of the wrong type)."""


def record_from_json(text: str) -> dict[str, Any]:
    """A record from JSON text: the record itself, or a response holding it under
    ``verification`` (the announcements or view of a finished game)."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise RecordError(f"不是有效的 JSON：{exc}") from None
    if isinstance(data, dict) and "verification" in data:
        data = data["verification"]
        if data is None:
            raise RecordError("这局游戏尚未结束：还没有公开验证数据")
    if not isinstance(data, dict):
        raise RecordError("验证数据须为 JSON 对象")
    return data


def _text(record: Mapping[str, Any], key: str) -> str:
    value = record.get(key)
    if not isinstance(value, str):
        raise RecordError(f"验证数据缺少「{key}」（须为字符串）")
    return value


def _names(value: Any, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RecordError(f"验证数据的「{key}」须为字符串列表")
    return list(value)


def _mapping(value: Any, key: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise RecordError(f"验证数据的「{key}」须为 角色 → 身份 的对照表")
    return dict(value)


def _pick_check(key: str, raw: Any) -> Check:
    if not isinstance(raw, Mapping):
        raise RecordError("验证数据的「picks」须为对象列表")
    label, position, method = raw.get("label"), raw.get("position"), raw.get("method")
    if (
        not isinstance(label, str)
        or not isinstance(position, int)
        or method
        not in (
            "choice",
            "shuffle",
        )
    ):
        raise RecordError(
            "随机抽取须有 label（字符串）、position（整数）与 method（choice 或 shuffle）"
        )
    candidates = _names(raw.get("candidates"), "candidates")
    result = _names(raw.get("result"), "result")
    rng = derived_rng(key, f"{position}:{label}")
    if method == "choice":
        expected = [rng.choice(candidates)] if candidates else []
    else:
        expected = list(candidates)
        rng.shuffle(expected)
    ok = expected == result
    what = f"第{position}条事件的随机抽取（{label}）"
    detail = (
        f"{what}：{'、'.join(result)}，重新计算一致"
        if ok
        else f"{what}：公布为{'、'.join(result)}，重新计算得{'、'.join(expected)}"
    )
    return Check(f"pick:{position}:{label}", ok, detail)


def verify_record(record: Mapping[str, Any]) -> VerificationReport:
    """Recompute the commitment, the deal and every pick of ``record``.

    Raises :class:`RecordError` (Chinese message) when the record is malformed; an unknown
    ruleset or a deal that cannot be dealt again is a failed ``deal`` check, not an error.
    """
    ruleset_id = _text(record, "ruleset")
    seed = _text(record, "seed")
    secret = record.get("secret") or ""
    if not isinstance(secret, str):
        raise RecordError("验证数据的「secret」须为字符串")
    published = _text(record, "commitment")
    characters = _names(record.get("characters"), "characters")
    roles = _mapping(record.get("roles"), "roles")
    fixed = _mapping(record.get("fixed") or {}, "fixed")
    picks = record.get("picks") or []
    if not isinstance(picks, Sequence) or isinstance(picks, str):
        raise RecordError("验证数据的「picks」须为列表")
    checks: list[Check] = []
    matched = verify_commitment(published, seed, roles, secret)
    checks.append(
        Check(
            "commitment",
            matched,
            "承诺值与公开的秘密、种子和身份安排一致"
            if matched
            else "承诺值与公开的秘密、种子和身份安排不一致",
        )
    )
    key = rng_key(secret, seed)
    try:
        dealt = get_ruleset(ruleset_id).deal(tuple(characters), derived_rng(key, "deal"), fixed)
    except (GameRuleError, ValueError) as exc:
        checks.append(Check("deal", False, f"无法重新发放身份：{exc}"))
    else:
        same = dealt == roles
        checks.append(
            Check(
                "deal",
                same,
                "由秘密和种子重新发放的身份与公开的身份安排一致"
                if same
                else "由秘密和种子重新发放的身份与公开的身份安排不一致",
            )
        )
    checks.extend(_pick_check(key, raw) for raw in picks)
    return VerificationReport(tuple(checks))
