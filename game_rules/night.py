"""Night resolution as pure functions: (what the night's choices were) -> ordered steps.

Each ruleset's order is data (``night_order`` in its YAML, the seed's written order); a function
here walks that order and returns :class:`Step` values, which the engine then applies one by one
(and can pause between, e.g. for M08's 最后一枪). Nothing here touches a game.

>>> n = M72Night(order=("guard", "kill", "resolve_kill"),
...              roles={"A": "guard", "B": "wolf", "C": "villager"},
...              alive=frozenset("ABC"), guard=("A", "C"), kills=("C",))
>>> [s.kind for s in resolve_m72(n)]
['status']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from game_rules.frozen import quick_frozen

WOLF_ROLES = frozenset({"wolf", "wolf_cub"})


@quick_frozen
@dataclass(frozen=True, slots=True)
class Step:
    """One effect of a night: ``tell`` (private feedback), ``eliminate``, ``flag``, ``status``."""

    kind: str
    character: str | None = None
    detail: str = ""
    by: str | None = None
    value: Any = None

    # Repeated on purpose: each value type writes its own fields as JSON (views.py does too).
    def to_dict(self) -> dict[str, Any]:
        """JSON form (paused resolutions are stored in a flag)."""
        return {
            "kind": self.kind,
            "character": self.character,
            "detail": self.detail,
            "by": self.by,
            "value": self.value,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Step:
        """Inverse of :meth:`to_dict`."""
        return cls(
            str(data["kind"]),
            data.get("character"),
            str(data.get("detail", "")),
            data.get("by"),
            data.get("value"),
        )


@quick_frozen
@dataclass(frozen=True, slots=True)
class M72Night:
    """Inputs of an M72 night: choices of living actors only (the engine filters the dead)."""

    order: tuple[str, ...]
    roles: Mapping[str, str]
    alive: frozenset[str]
    voted_out: str | None = None
    slander: Mapping[str, str] = field(default_factory=dict)  # crow -> target
    guard: tuple[str, str] | None = None  # (guard, target)
    kills: tuple[str, ...] = ()  # 杀人 targets in order (the second: 激励)
    divine: tuple[str, str] | None = None  # (seer, target)


def wolf_word(role: str) -> str:
    """M72 feedback: 狼人/幼狼 -> 是狼; everyone else (狂人 included) -> 不是狼."""
    return "是狼" if role in WOLF_ROLES else "不是狼"


def resolve_m72(n: M72Night) -> list[Step]:
    """Resolve an M72 night in ``n.order`` (结算顺序 3.(1)-(6))."""
    steps: list[Step] = []
    protected: set[str] = set()
    for name in n.order:
        if name == "medium":
            if n.voted_out is not None:
                word = wolf_word(n.roles[n.voted_out])
                for medium in sorted(c for c in n.alive if n.roles[c] == "medium"):
                    steps.append(
                        Step(
                            "tell",
                            medium,
                            f"通灵结果：{n.voted_out}<{word}>",
                            "medium",
                            {"target": n.voted_out, "wolf": word == "是狼"},
                        )
                    )
        elif name == "crow":
            for crow, target in n.slander.items():
                # 只有大乌鸦的诽谤生效
                if n.roles.get(crow) == "crow_big" and target in n.alive:
                    steps.append(Step("flag", None, "slander", crow, target))
        elif name == "guard":
            if n.guard is not None:
                protected.add(n.guard[1])
                steps.append(Step("status", n.guard[1], "guarded", n.guard[0], True))
        elif name == "divine":
            if n.divine is not None:
                seer, target = n.divine
                word = wolf_word(n.roles[target])
                steps.append(
                    Step(
                        "tell",
                        seer,
                        f"占卜结果：{target}<{word}>",
                        "divine",
                        {"target": target, "wolf": word == "是狼"},
                    )
                )
                if n.roles[target] == "fox":  # 狡黠：被<占卜>时出局
                    steps.append(Step("eliminate", target, "divined", seer))
        elif name == "resolve_kill":
            done: set[str] = set()
            for target in n.kills:
                if target in done or target in protected:
                    continue  # 1. 被指杀的角色是<守护之盾>的目标，此次指杀不会导致其出局
                if n.roles[target] == "fox":
                    continue  # 2. 被指杀的角色是狐狸，触发<狡黠>不出局
                done.add(target)
                steps.append(Step("eliminate", target, "kill"))  # 3. 被指杀的角色出局
    return steps


# Repeated on purpose: each ruleset's night inputs are its own value type (M72Night above).
@quick_frozen
@dataclass(frozen=True, slots=True)
class M08Night:
    """Inputs of an M08 night (choices of actors alive when the night is resolved)."""

    order: tuple[str, ...]
    factions: Mapping[str, str]
    alive: frozenset[str]
    kill: str | None = None  # the 狼头's chosen target
    save: tuple[str, str] | None = None  # (witch, target)
    poison: tuple[str, str] | None = None  # (witch, target)
    divine: tuple[str, str] | None = None  # (seer, target)


def resolve_m08(n: M08Night) -> list[Step]:
    """Resolve an M08 night in ``n.order`` (总体流程 3.(1)-(6))."""
    steps: list[Step] = []
    for name in n.order:
        if name == "divine" and n.divine is not None:
            seer, target = n.divine
            word = "村民阵营" if n.factions[target] == "villagers" else "非村民阵营"
            steps.append(
                Step(
                    "tell",
                    seer,
                    f"预言结果：{target}<{word}>",
                    "divine",
                    {"target": target, "villagers": word == "村民阵营"},
                )
            )
        elif name == "resolve_kill" and n.kill is not None:
            # 一、被指杀的角色如果是<救药>的目标，此次有效指杀不会导致角色出局
            if n.save is None or n.save[1] != n.kill:
                steps.append(Step("eliminate", n.kill, "kill"))
        elif name == "resolve_poison" and n.poison is not None:
            steps.append(Step("eliminate", n.poison[1], "poison", n.poison[0]))
    return steps


def duel_wins(
    *,
    alive: frozenset[str],
    factions: Mapping[str, str],
    gods: frozenset[str],
    plain_villagers: frozenset[str],
    plan: tuple[str, ...],
    save_used: bool,
    poison_ready: bool,
    hunter: str | None,
    witch: str | None = None,
) -> bool:
    """M08 决战 (轮次决胜), judged as written; True = 狼人阵营判胜.

    The wolves' ``plan`` is their kills for the next three nights. Worst case for the wolves:
    every day the village votes a wolf out, the witch poisons a wolf, the hunter shoots a wolf.
    They win only if the witch has lost 救药 and a win condition is reached within those kills.

    >>> duel_wins(alive=frozenset("WXYZ"), factions={"W": "wolves", "X": "villagers",
    ...           "Y": "villagers", "Z": "villagers"}, gods=frozenset("X"),
    ...           plain_villagers=frozenset("YZ"), plan=("X",), save_used=True,
    ...           poison_ready=False, hunter=None)
    True
    """
    if not save_used:
        return False  # 若女巫仍未使用过救药……无论结果如何，狼人阵营直接判负
    living = set(alive)
    witch_poison = poison_ready

    def wolves() -> list[str]:
        return sorted(c for c in living if factions[c] == "wolves")

    def verdict() -> bool | None:
        w = wolves()
        if not w:
            return False
        if 2 * len(w) >= len(living):
            return True
        if not (gods & living) or not (plain_villagers & living):
            return True
        return None

    def remove(c: str) -> bool | None:
        living.discard(c)
        return verdict()

    for night, target in enumerate(plan):
        # the witch acts before the kill is resolved, so a witch alive at dusk still poisons
        poison_tonight = witch_poison and (witch is None or witch in living)
        if target in living:
            result = remove(target)
            if result is not None:
                return result
            if target == hunter and wolves():
                result = remove(wolves()[0])
                if result is not None:
                    return result
        if poison_tonight and wolves():
            witch_poison = False
            result = remove(wolves()[0])
            if result is not None:
                return result
        if night < len(plan) - 1 and wolves():
            result = remove(wolves()[0])  # the day: the village votes a wolf out
            if result is not None:
                return result
    return False
