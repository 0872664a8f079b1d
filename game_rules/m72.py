"""[M72] 软件应用大乱斗 — the engine for ``rulesets/m72.yaml`` (seed 001).

Roles: 狼人/幼狼 (one pack, 杀人; 幼狼's 激励 gives one more kill the next night), 狂人 (wolf
faction, divines and reads as 不是狼), 狐狸 (immune to the kill, dies when divined), 占卜师, 灵能者
(通灵 on the day's voted-out character), 守卫 (each character once per game, never self), 大小乌鸦
(both told only 乌鸦; only the big crow's hidden +1 counts), 村民; 警长 with 2 votes.
Judging: lose first, then win (胜负判定). Readings of silent places: docs/rulings/m72.md.
"""

from __future__ import annotations

import operator
from collections import Counter
from fractions import Fraction
from typing import TYPE_CHECKING

from game_rules.actions import Action, UseSkill
from game_rules.enums import RED_CARD, VOTE
from game_rules.errors import (
    IllegalActionError,
    InvalidTargetError,
    NotYourSkillError,
    SkillUsedUpError,
)
from game_rules.events import ActionTaken, Announced, FactionLost, FlagSet, StatusSet, Told
from game_rules.night import M72Night, Step, resolve_m72
from game_rules.outcome import LOSE, WIN
from game_rules.registry import register_engine
from game_rules.state import DAY, GameState
from game_rules.werewolf import WerewolfRuleset

if TYPE_CHECKING:
    from game_rules.game import Game

PACK = ("wolf", "wolf_cub")
CROWS = ("crow_big", "crow_small")
_CROW_ROLES = frozenset(CROWS)
# skills the whole pack shares: one choice a night, whichever wolf makes it
PACK_SKILLS = frozenset({"kill", "extra_kill"})
_SKILL_OF = operator.itemgetter(1)  # (actor, skill) -> skill
_ONE_VOTE = Fraction(1)  # the big crow's hidden extra (Fractions are immutable: made once)
# skill -> roles that hold it
SKILL_ROLES: dict[str, tuple[str, ...]] = {
    "slander": CROWS,
    "guard": ("guard",),
    "kill": PACK,
    "extra_kill": PACK,
    "divine": ("seer",),
}
# role -> its skills, in SKILL_ROLES order (most roles have none: their night needs no look)
ROLE_SKILLS: dict[str, tuple[str, ...]] = {
    role: tuple(skill for skill, roles in SKILL_ROLES.items() if role in roles)
    for role in {r for roles in SKILL_ROLES.values() for r in roles}
}


# UseSkill values are immutable: the options listed night after night are shared, not rebuilt.
# (actor, skill) -> target -> option; bounded, since character names come from outside.
_OPTIONS: dict[tuple[str, str], dict[str, UseSkill]] = {}


def _options(actor: str, skill: str, targets: tuple[str, ...] | list[str]) -> list[UseSkill]:
    """``[UseSkill(actor, skill, t) for t in targets]``, each made once."""
    table = _OPTIONS.get((actor, skill))
    if table is None:
        if len(_OPTIONS) >= 4096:
            _OPTIONS.clear()
        table = _OPTIONS[(actor, skill)] = {}
    try:
        return list(map(table.__getitem__, targets))
    except KeyError:  # a target not listed before: made once, then the lookup always succeeds
        for t in targets:
            if t not in table:
                table[t] = UseSkill(actor, skill, t)
        return list(map(table.__getitem__, targets))


class M72(WerewolfRuleset):
    """The M72 engine."""

    engine = "m72"

    # -- roles as told --------------------------------------------------------------------------
    def visible_role(self, state: GameState, character: str) -> str:
        """Crows are told only 乌鸦 (收到的身份都是乌鸦，不知道自己是大乌鸦还是小乌鸦)."""
        role = state.roles[character]
        return "crow" if role in CROWS else role

    def role_name(self, role: str) -> str:
        """Chinese role name (``crow`` -> 乌鸦)."""
        return "乌鸦" if role == "crow" else super().role_name(role)

    def tell_teams(self, game: Game) -> None:
        """狼人与幼狼将在游戏开始后互知共群 (狂人 are not told)."""
        state = game.state
        pack = state.with_role(*PACK)
        names = "、".join(f"{c}（{self.role_name(state.roles[c])}）" for c in pack)
        game.emit(Told(tuple(pack), 0, f"狼人共群：{names}", "team", {"pack": pack}))

    # -- day ------------------------------------------------------------------------------------
    def hidden_extra(self, state: GameState) -> dict[str, Fraction]:
        """诽谤: the big crow's target gets one more vote today, never announced."""
        target = state.flags.get("slander")
        if state.phase == DAY and target and state.flags.get("slander_day") == state.day:
            return {target: _ONE_VOTE}
        return {}

    def day_announcements(self, game: Game, day: int) -> None:
        """公示: the previous day's eliminations in order, night news, last words, 乌鸦飞过."""
        state = game.state
        self.opening_announcements(game, day)  # day_opening: 前一天出局角色名单
        self.publish_night_news(game, day)
        self.publish_last_words(game, day)
        if not _CROW_ROLES.isdisjoint(map(state.roles.__getitem__, state.alive)):
            game.emit(Announced(day, DAY, "「乌鸦飞过」", "crow"))

    # -- eliminations ---------------------------------------------------------------------------
    def on_eliminated(self, game: Game, character: str, cause: str) -> None:
        """殉职 (base) and 幼狼's 激励<强制> unless red-carded."""
        super().on_eliminated(game, character, cause)
        state = game.state
        if state.roles[character] == "wolf_cub" and cause != RED_CARD:
            # 仅限下一个夜晚: the night of this day, or the next one if it died at night
            night = state.day if state.phase == DAY else state.day + 1
            game.emit(FlagSet("incite_night", night))
            pack = state.with_role(*PACK)
            if pack:
                game.emit(
                    Told(
                        tuple(pack),
                        state.day,
                        f"幼狼出局，<激励>：第{night}个夜晚可以再杀一人",
                        "incite",
                    )
                )

    def check_end(self, game: Game) -> bool:
        """某阵营满足其判负条件之一时，该阵营优先判负; then a win condition or last faction."""
        state = game.state
        if state.ended:
            return True
        # the living's roles counted in one C-level pass: this runs after every elimination
        alive_roles = Counter(map(state.roles.__getitem__, state.alive))
        pack = sum(map(alive_roles.__getitem__, PACK))
        key_alive = not state.roles_with_trait("key_role").isdisjoint(alive_roles)
        fox_alive = "fox" in alive_roles
        newly: list[tuple[str, str]] = []
        if "wolves" not in state.lost and not pack:
            newly.append(("wolves", "狼人阵营的狼人角色全部出局"))
        if "villagers" not in state.lost and not key_alive:
            newly.append(("villagers", "村民阵营的占卜师、灵能者、守卫、大小乌鸦出局"))
        if "foxes" not in state.lost and not fox_alive:
            newly.append(("foxes", "狐狸出局"))
        for faction, reason in newly:
            game.emit(FactionLost(faction, reason))
        remaining = [f for f in self.params.factions if f not in state.lost]
        winner: str | None = None
        reason = ""
        if (
            "foxes" in remaining
            and fox_alive
            and ("villagers" in state.lost or "wolves" in state.lost)
        ):
            winner, reason = "foxes", "村民阵营/狼人阵营有任意一方判负时，狐狸存活"
        elif "wolves" in remaining and 2 * pack >= len(state.alive):
            winner, reason = "wolves", "狼人阵营狼人的存活的人数占总存活人数的一半或一半以上"
        elif len(remaining) == 1:
            winner, reason = remaining[0], "场上仅有一个阵营尚未被判负"
        if winner is None:
            return False
        results = {f: (WIN if f == winner else LOSE) for f in self.params.factions}
        self.finish(game, winner, results, reason)
        return True

    def validate_faction_loss(self, state: GameState, faction: str) -> None:
        """The last faction not yet lost cannot be declared lost (exactly one faction wins)."""
        super().validate_faction_loss(state, faction)
        remaining = [f for f in self.params.factions if f not in state.lost]
        if remaining == [faction]:
            raise IllegalActionError("last_faction", "场上仅剩此阵营尚未判负，不能再判负")

    # -- night ----------------------------------------------------------------------------------
    def _used_tonight(self, state: GameState, skill: str, actor: str) -> bool:
        if skill in PACK_SKILLS:
            return skill in map(_SKILL_OF, state.night_actions)
        return (actor, skill) in state.night_actions

    def night_skill(self, game: Game, action: UseSkill) -> None:
        """诽谤 / 守护之盾 / 杀人 (and 激励's extra kill) / 占卜; 通灵 is automatic."""
        state = game.state
        actor, skill, target = action.actor, action.skill, action.target
        roles = SKILL_ROLES.get(skill)
        if roles is None or state.roles[actor] not in roles:
            raise NotYourSkillError(message=f"{actor}没有技能<{skill}>")
        if skill == "extra_kill" and state.flags.get("incite_night") != state.day:
            raise SkillUsedUpError("no_incite", "只有幼狼出局后的下一个夜晚才能再杀一人")
        if self._used_tonight(state, skill, actor):
            raise SkillUsedUpError("once_per_night", f"今晚已经选择过<{skill}>的目标")
        if target is None:
            raise InvalidTargetError("target_required", "须选择一名角色")
        game.require_character(target)
        if target not in state.alive:
            raise InvalidTargetError("dead_target", f"{target}已出局，不能被选为技能目标")
        if skill == "guard":
            if target == actor:
                raise InvalidTargetError("guard_self", "<守护之盾>不能对自己使用")
            if state.status[target].get("guarded"):
                raise InvalidTargetError(
                    "guard_repeat_target", "每名角色整局游戏只能成为<守护之盾>的目标一次"
                )
        if skill == "divine" and target == actor:
            raise InvalidTargetError("divine_self", "占卜须选择另一名角色")
        to: tuple[str, ...] = ()
        if skill in {"kill", "extra_kill"}:
            to = tuple(c for c in state.with_role(*PACK) if c != actor)
        game.emit(ActionTaken(actor, skill, target, state.day, {"seq": game.log_length}, to))

    def night_actors(self, state: GameState) -> list[str]:
        """Living holders of a night skill not yet used tonight.

        Stays valid for the rest of the night: roles never change in M72, a skill used tonight
        stays used, and 激励's extra kill opens only when a day or a night is resolved.
        """
        roles, acts = state.roles, state.night_actions
        pack_used = PACK_SKILLS.intersection(map(_SKILL_OF, acts))
        incite = state.flags.get("incite_night") == state.day
        out = []
        skills_of = ROLE_SKILLS.get
        for c in state.living_tuple():
            for skill in skills_of(roles[c], ()):
                if skill in PACK_SKILLS:  # once a night for the whole pack
                    is_open = skill not in pack_used and (incite or skill != "extra_kill")
                else:
                    is_open = (c, skill) not in acts
                if is_open:
                    out.append(c)
                    break
        return out

    def _skill_open(self, state: GameState, actor: str, skill: str) -> bool:
        """Whether ``actor`` may still use ``skill`` tonight (targets aside)."""
        if skill == "extra_kill" and state.flags.get("incite_night") != state.day:
            return False
        return not self._used_tonight(state, skill, actor)

    def night_options(self, state: GameState, actor: str) -> list[Action]:
        """Night skills ``actor`` may still use tonight."""
        skills = ROLE_SKILLS.get(state.roles[actor])
        out: list[Action] = []
        if not skills:
            return out
        living = state.living_tuple()
        targets: tuple[str, ...] | list[str]
        for skill in skills:
            if not self._skill_open(state, actor, skill):
                continue
            if skill == "guard":
                status = state.status
                targets = [t for t in living if t != actor and not status[t].get("guarded")]
            elif skill == "divine":
                targets = [t for t in living if t != actor]
            else:
                targets = living
            out.extend(_options(actor, skill, targets))
        return out

    def resolve_night(self, game: Game) -> None:
        """Collect tonight's choices (missing = abandoned) and apply :func:`resolve_m72`."""
        state = game.state
        alive = frozenset(state.alive)
        chosen: dict[str, list[ActionTaken]] = {}
        for a in state.night_actions.values():
            if a.actor in alive:
                chosen.setdefault(a.skill, []).append(a)
        voted = [
            e.character
            for e in state.eliminations
            if e.day == state.day and e.phase == DAY and e.cause == VOTE
        ]

        def one(skill: str) -> tuple[str, str] | None:
            acts = chosen.get(skill)
            return (acts[0].actor, acts[0].target or "") if acts else None

        kills = tuple(
            a.target or ""
            for skill in ("kill", "extra_kill")
            for a in sorted(chosen.get(skill, []), key=lambda a: a.detail.get("seq", 0))[-1:]
        )
        night = M72Night(
            order=self.params.night_order,
            roles=dict(state.roles),
            alive=alive,
            voted_out=voted[-1] if voted else None,
            slander={a.actor: a.target or "" for a in chosen.get("slander", [])},
            guard=one("guard"),
            kills=kills,
            divine=one("divine"),
        )
        self.apply_steps(game, resolve_m72(night))

    def apply_steps(self, game: Game, steps: list[Step]) -> None:
        """Apply resolved steps in order."""
        state = game.state
        for step in steps:
            if step.kind == "tell" and step.character is not None:
                self.tell_step(game, step)
            elif step.kind == "flag":
                game.emit(FlagSet(step.detail, step.value))
                if step.detail == "slander":
                    game.emit(FlagSet("slander_day", state.day + 1))
            elif step.kind == "status" and step.character is not None:
                game.emit(StatusSet(step.character, step.detail, step.value))
            elif step.kind == "eliminate" and step.character is not None:
                self.eliminate(game, step.character, step.detail, step.by)

    def on_night_start(self, game: Game) -> None:
        """A slander counts only on the day after its night."""
        if game.state.flags.get("slander"):
            game.emit(FlagSet("slander", None))


# a call, not a class decorator: mypyc compiles only undecorated classes to native ones
register_engine(M72)
