"""[M08]『LoveLive!』 — the engine for ``rulesets/m08.yaml`` (seed 003) and its variants.

Roles: 4 狼人 who know each other but share no group; the 狼头 (elected on night 1 by "first to
reach the most votes", 传位 on death, random after a red card) chooses the night's kill among the
wolves' proposals (each with a two-character reason) and may propose 决战 once; 预言家 (村民阵营 /
非村民阵营); 女巫 (通灵<强制>, 救药 never on herself, 毒药; one potion a night; 救药 costs
通灵 too);
猎人 (最后一枪 unless red-carded); 村民. 警长 1.5 votes, elected on day 1; ties go to the sheriff's
choice, else nobody. Readings of silent places: docs/rulings/m08.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from game_rules.actions import Action, UseSkill
from game_rules.enums import POISON, RED_CARD, SHOT
from game_rules.errors import (
    IllegalActionError,
    InvalidTargetError,
    NotYourSkillError,
    SkillUsedUpError,
    WrongPhaseError,
)
from game_rules.events import (
    ActionTaken,
    Announced,
    DecisionClosed,
    FlagSet,
    StatusSet,
    Told,
)
from game_rules.night import M08Night, Step, duel_wins, resolve_m08
from game_rules.outcome import LOSE, WIN
from game_rules.registry import register_engine
from game_rules.state import DAY, NIGHT, GameState
from game_rules.werewolf import WerewolfRuleset

if TYPE_CHECKING:
    from game_rules.game import Game

SKILL_ROLES: dict[str, tuple[str, ...]] = {
    "leader_vote": ("wolf",),
    "propose": ("wolf",),
    "kill": ("wolf",),
    "duel": ("wolf",),
    "duel_agree": ("wolf",),
    "duel_kills": ("wolf",),
    "save": ("witch",),
    "poison": ("witch",),
    "divine": ("seer",),
}
# roles with any night action (the others' night needs no look)
SKILL_HOLDERS = frozenset(role for roles in SKILL_ROLES.values() for role in roles)
REASON_LENGTH = 2  # 附上两个字的指杀理由


def split_plan(text: str | None) -> tuple[str, ...]:
    """A 决战 plan written ``A,B,C`` (also ``、`` ``，`` or spaces) as a tuple of names.

    >>> split_plan("甲、乙，丙")
    ('甲', '乙', '丙')
    """
    if not text:
        return ()
    for sep in ("、", "，", " "):
        text = text.replace(sep, ",")
    return tuple(p.strip() for p in text.split(",") if p.strip())


class M08(WerewolfRuleset):
    """The M08 engine."""

    engine = "m08"

    # -- helpers --------------------------------------------------------------------------------
    @staticmethod
    def leader(state: GameState) -> str | None:
        """The current 狼头 (None before the night-1 election)."""
        value = state.flags.get("leader")
        return str(value) if value else None

    def wolves(self, state: GameState) -> list[str]:
        """Living wolves in seating order."""
        return state.with_trait("wolf")

    def set_leader(self, game: Game, character: str, how: str) -> None:
        """Record a new 狼头 and tell every living wolf (新当选的狼头会立即让每名狼人得知)."""
        state = game.state
        game.emit(FlagSet("leader", character))
        wolves = tuple(self.wolves(state))
        game.emit(
            Told(
                wolves,
                state.day,
                f"{character}成为狼头（{how}）",
                "leader",
                {"leader": character, "how": how},
            )
        )
        proposals = [
            f"{a.actor}：{a.target}（{a.detail.get('reason', '')}）"
            for a in state.night_actions.values()
            if a.skill == "propose"
        ]
        if proposals and state.phase == NIGHT:
            game.emit(
                Told(
                    (character,), state.day, "今晚的指杀提议：" + "；".join(proposals), "proposals"
                )
            )

    # -- opening and days -----------------------------------------------------------------------
    def tell_teams(self, game: Game) -> None:
        """所有狼人将在游戏开始后互知，但不共群."""
        wolves = game.state.with_trait("wolf")
        game.emit(
            Told(tuple(wolves), 0, "狼人互知：" + "、".join(wolves), "team", {"wolves": wolves})
        )

    def day_announcements(self, game: Game, day: int) -> None:
        """公示: 前一天因投票出局角色名单、夜晚出局角色名单、当日警长与存活角色状态
        (``day_opening``), the night's news, then 遗言在下一个游戏日白天开始时公示."""
        self.opening_announcements(game, day)
        self.publish_night_news(game, day)
        self.publish_last_words(game, day)

    # -- eliminations ---------------------------------------------------------------------------
    def decision_handlers(self) -> dict[str, Any]:
        """殉职 (base), 最后一枪 and 传位."""
        handlers = super().decision_handlers()
        handlers["shoot"] = (self.take_shot, self.default_shot, self.shot_options)
        handlers["leader_succession"] = (
            self.take_leader,
            self.default_leader,
            self.leader_options,
        )
        return handlers

    def on_eliminated(self, game: Game, character: str, cause: str) -> None:
        """最后一枪 then 殉职 (猎人警长依次发动), and the 狼头's 传位."""
        state = game.state
        role = state.roles[character]
        poisoned_may_shoot = bool(self.params.extra.get("poisoned_hunter_shoots", True))
        if role == "hunter" and cause != RED_CARD and (cause != POISON or poisoned_may_shoot):
            self.open_decision(game, character, "shoot", "你可以发动<最后一枪>")
        super().on_eliminated(game, character, cause)
        if character == self.leader(state):
            if not self.wolves(state):
                game.emit(FlagSet("leader", None))
            elif cause == RED_CARD:
                pick = game.pick("leader", self.wolves(state))
                self.set_leader(game, pick, "随机指定")
            else:
                self.open_decision(game, character, "leader_succession", "请选择继任狼头（传位）")

    def shot_options(self, state: GameState, actor: str) -> list[Action]:
        """最后一枪 targets (or none)."""
        out: list[Action] = [UseSkill(actor, "shoot", None)]
        out += [UseSkill(actor, "shoot", c) for c in state.living() if c != actor]
        return out

    def take_shot(self, game: Game, action: UseSkill) -> None:
        """最后一枪: the target goes out at once, right after the hunter."""
        state = game.state
        target = action.target
        if target is None:
            game.emit(DecisionClosed(action.actor, "shoot", None, "abandoned"))
            return
        game.require_character(target)
        if target not in state.alive:
            raise InvalidTargetError("dead_target", f"{target}已出局，不能被选为目标")
        game.emit(DecisionClosed(action.actor, "shoot", target, "chosen"))
        game.emit(ActionTaken(action.actor, "shoot", target, state.day))
        if state.phase == DAY:  # 投票结束后，因投票而触发的……猎人<最后一枪>立即公示
            text = self.words.line("shot", by=action.actor, name=target)
            game.emit(Announced(state.day, DAY, text, "out", (target,)))
        self.eliminate(game, target, SHOT, action.actor)

    def default_shot(self, game: Game, actor: str) -> None:
        """猎人未给法官答复，视作放弃发动技能."""
        game.emit(DecisionClosed(actor, "shoot", None, "deadline"))

    def leader_options(self, state: GameState, actor: str) -> list[Action]:
        """传位 candidates: living wolves."""
        return [UseSkill(actor, "leader_succession", c) for c in self.wolves(state)]

    def take_leader(self, game: Game, action: UseSkill) -> None:
        """传位: a living wolf becomes 狼头."""
        state = game.state
        target = action.target
        if target is None or target not in state.alive or state.roles.get(target) != "wolf":
            raise InvalidTargetError("leader_target", "须选择一名未出局的狼人来继任狼头")
        game.emit(DecisionClosed(action.actor, "leader_succession", target, "chosen"))
        self.set_leader(game, target, "传位")

    def default_leader(self, game: Game, actor: str) -> None:
        """新任狼头随机指定 (deadline missed)."""
        game.emit(DecisionClosed(actor, "leader_succession", None, "deadline"))
        wolves = self.wolves(game.state)
        if wolves:
            self.set_leader(game, game.pick("leader", wolves), "随机指定")

    def check_end(self, game: Game) -> bool:
        """游戏状态满足某阵营胜利条件之一，游戏立即结束 (and the director's 判负)."""
        state = game.state
        if state.ended:
            return True
        wolves = state.with_trait("wolf")
        winner: str | None = None
        reason = ""
        if "wolves" in state.lost:
            winner, reason = "villagers", "狼人阵营判负"
        elif "villagers" in state.lost:
            winner, reason = "wolves", "村民阵营判负"
        elif not wolves:
            winner, reason = "villagers", "狼人阵营的角色全部出局"
        elif 2 * len(wolves) >= len(state.alive):
            winner, reason = "wolves", "狼人阵营存活的人数占总存活人数的一半或一半以上"
        elif not state.with_trait("god"):
            winner, reason = "wolves", "村民阵营的预言家、女巫、猎人出局"
        elif not state.with_trait("plain_villager"):
            winner, reason = "wolves", "村民阵营的村民全部出局"
        if winner is None:
            return False
        self._finish(game, winner, reason)
        return True

    def _finish(self, game: Game, winner: str, reason: str) -> None:
        results = {f: (WIN if f == winner else LOSE) for f in self.params.factions}
        self.finish(game, winner, results, reason)

    # -- night ----------------------------------------------------------------------------------
    def on_night_start(self, game: Game) -> None:
        """Night 1: 狼人必须各自投票给一名狼人，选举狼头."""
        state = game.state
        if state.day == 1 and not self.leader(state):
            game.emit(
                Told(
                    tuple(self.wolves(state)),
                    1,
                    "<争权>：请各自投票给一名狼人，选举狼头",
                    "leader_vote",
                )
            )

    def _acted(self, state: GameState, actor: str, skill: str) -> bool:
        return (actor, skill) in state.night_actions

    def night_skill(self, game: Game, action: UseSkill) -> None:
        """争权 / 指杀提议 / 狼头指杀 / 决战 / 救药 / 毒药 / 预言."""
        state = game.state
        actor, skill = action.actor, action.skill
        roles = SKILL_ROLES.get(skill)
        if roles is None or state.roles[actor] not in roles:
            raise NotYourSkillError(message=f"{actor}没有技能<{skill}>")
        handler = getattr(self, f"_skill_{skill}")
        handler(game, action)

    def _target(self, game: Game, action: UseSkill, *, allow_self: bool = True) -> str:
        state = game.state
        target = action.target
        if target is None:
            raise InvalidTargetError("target_required", "须选择一名角色")
        game.require_character(target)
        if target not in state.alive:
            raise InvalidTargetError("dead_target", f"{target}已出局，不能被选为技能目标")
        if not allow_self and target == action.actor:
            raise InvalidTargetError("self_target", "不能选择自己")
        return target

    def _skill_leader_vote(self, game: Game, action: UseSkill) -> None:
        state = game.state
        if state.day != 1 or self.leader(state):
            raise WrongPhaseError("leader_vote_closed", "<争权>只在第一个夜晚选举狼头时进行")
        if self._acted(state, action.actor, "leader_vote"):
            raise SkillUsedUpError("leader_vote_cast", "已经投过狼头选票")
        target = self._target(game, action)
        if state.roles[target] != "wolf":
            raise InvalidTargetError("leader_vote_target", "须投票给一名狼人")
        game.emit(ActionTaken(action.actor, "leader_vote", target, state.day))
        votes = [a for a in state.night_actions.values() if a.skill == "leader_vote"]
        if {a.actor for a in votes} >= set(self.wolves(state)):
            self.elect_leader(game)

    def elect_leader(self, game: Game) -> None:
        """争权: the wolf that first reached the most votes; none cast -> random (docs R-M08-3)."""
        state = game.state
        votes = [
            a
            for a in state.night_actions.values()
            if a.skill == "leader_vote" and a.actor in state.alive and a.target in state.alive
        ]
        wolves = self.wolves(state)
        if not wolves:
            return
        if not votes:
            self.set_leader(game, game.pick("leader", wolves), "无人投票，随机指定")
            return
        final: dict[str, int] = {}
        for a in votes:
            final[a.target or ""] = final.get(a.target or "", 0) + 1
        best = max(final.values())
        running: dict[str, int] = {}
        for a in votes:  # log order = submission order: 最先获得最多票数
            t = a.target or ""
            running[t] = running.get(t, 0) + 1
            if running[t] == best:
                self.set_leader(game, t, "争权当选")
                return

    def _skill_propose(self, game: Game, action: UseSkill) -> None:
        state = game.state
        if self._acted(state, action.actor, "propose"):
            raise SkillUsedUpError("once_per_night", "今晚已经提交过指杀提议")
        if any(a.skill == "kill" for a in state.night_actions.values()):
            raise SkillUsedUpError("kill_chosen", "狼头已经选择了今晚的指杀结果")
        target = self._target(game, action)
        reason = (action.reason or "").strip()
        if len(reason) != REASON_LENGTH:
            raise IllegalActionError("kill_reason_two_chars", "指杀须附上两个字的指杀理由")
        leader = self.leader(state)
        to = (leader,) if leader and leader != action.actor else ()
        game.emit(ActionTaken(action.actor, "propose", target, state.day, {"reason": reason}, to))

    def _skill_kill(self, game: Game, action: UseSkill) -> None:
        state = game.state
        if action.actor != self.leader(state):
            raise NotYourSkillError("not_leader", "只有狼头可以选择指杀结果")
        if any(a.skill == "kill" for a in state.night_actions.values()):
            raise SkillUsedUpError("kill_chosen", "今晚已经选择了指杀结果")
        target = self._target(game, action)
        proposed = {
            a.target: a
            for a in state.night_actions.values()
            if a.skill == "propose" and a.actor in state.alive
        }
        if target not in proposed:
            raise InvalidTargetError("kill_not_proposed", "狼头须从狼人提交的指杀中选择一个")
        reason = proposed[target].detail.get("reason", "")
        detail = {"reason": reason, "proposer": proposed[target].actor}
        # The choice with its proposer and reason stays the 狼头's own (and the director's); the
        # other wolves learn the result only: 狼头选择指杀结果后，该结果将会立即让每名狼人得知,
        # and 狼人不共群, so nobody else hears who proposed it or why.
        game.emit(ActionTaken(action.actor, "kill", target, state.day, detail))
        game.emit(
            Told(
                tuple(self.wolves(state)),
                state.day,
                f"狼头选择的指杀结果：{target}",
                "kill",
                {"target": target},
            )
        )
        witch = state.with_role("witch")
        if witch and not state.status[witch[0]].get("save_used"):  # 通灵<强制>
            game.emit(Told((witch[0],), state.day, f"通灵：今晚被指杀的角色是{target}", "witch"))

    def _skill_save(self, game: Game, action: UseSkill) -> None:
        state = game.state
        if state.status[action.actor].get("save_used"):
            raise SkillUsedUpError("save_used", "<救药>已经使用过")
        if self._acted(state, action.actor, "poison"):
            raise SkillUsedUpError("one_potion_per_night", "<毒药>发动后，在该夜晚不可发动<救药>")
        target = self._target(game, action)
        if target == action.actor and not self.params.extra.get("witch_self_save", False):
            raise InvalidTargetError("witch_self_save", "女巫不允许自救")
        game.emit(ActionTaken(action.actor, "save", target, state.day))
        game.emit(StatusSet(action.actor, "save_used", True))  # 失去技能<救药>、<通灵>

    def _skill_poison(self, game: Game, action: UseSkill) -> None:
        state = game.state
        if state.status[action.actor].get("poison_used"):
            raise SkillUsedUpError("poison_used", "<毒药>已经使用过")
        if self._acted(state, action.actor, "save"):
            raise SkillUsedUpError("one_potion_per_night", "<救药>发动后，在该夜晚不可发动<毒药>")
        target = self._target(game, action)
        game.emit(ActionTaken(action.actor, "poison", target, state.day))
        game.emit(StatusSet(action.actor, "poison_used", True))

    def _skill_divine(self, game: Game, action: UseSkill) -> None:
        state = game.state
        if self._acted(state, action.actor, "divine"):
            raise SkillUsedUpError("once_per_night", "今晚已经预言过")
        target = self._target(game, action, allow_self=False)
        game.emit(ActionTaken(action.actor, "divine", target, state.day))

    def _duel_plan(self, game: Game, choice: str | None) -> tuple[str, ...]:
        """The kills of 轮次决胜 (狼人可以在夜晚连续提交之后三天的刀法), checked."""
        state = game.state
        plan = split_plan(choice)
        if not 1 <= len(plan) <= 3 or len(set(plan)) != len(plan):
            raise IllegalActionError("duel_plan", "轮次决胜须提交之后三天（至多三个）不同的刀法")
        for name in plan:
            game.require_character(name)
            if name not in state.alive or state.roles[name] == "wolf":
                raise InvalidTargetError("duel_target", f"{name}不能作为刀法目标")
        return plan

    def _skill_duel(self, game: Game, action: UseSkill) -> None:
        """决战: the 狼头 proposes; the kills follow the agreement (``duel_kills``), in the seed's
        order (若过半数同意，则执行轮次决胜…狼人可以在夜晚连续提交之后三天的刀法). A plan given
        with the proposal (the earlier form) is judged as soon as a majority agrees."""
        state = game.state
        if action.actor != self.leader(state):
            raise NotYourSkillError("not_leader", "只有狼头可以提议<决战>")
        if state.flags.get("duel_used"):
            raise SkillUsedUpError("duel_used", "<决战>一局游戏只能使用一次")
        plan = self._duel_plan(game, action.choice) if action.choice else ()
        game.emit(FlagSet("duel_used", True))
        game.emit(
            ActionTaken(
                action.actor,
                "duel",
                None,
                state.day,
                {"plan": list(plan)},
                tuple(c for c in self.wolves(state) if c != action.actor),
            )
        )
        game.emit(FlagSet("duel", {"plan": list(plan), "yes": [action.actor], "no": []}))
        self._duel_check(game)

    def _skill_duel_kills(self, game: Game, action: UseSkill) -> None:
        state = game.state
        duel = state.flags.get("duel")
        if action.actor != self.leader(state):
            raise NotYourSkillError("not_leader", "只有狼头可以提交<决战>的刀法")
        if not duel or duel.get("done") or not duel.get("agreed"):
            raise WrongPhaseError("duel_not_agreed", "<决战>须先获过半数同意，再提交刀法")
        plan = self._duel_plan(game, action.choice)
        wolves = tuple(c for c in self.wolves(state) if c != action.actor)
        game.emit(
            ActionTaken(action.actor, "duel_kills", None, state.day, {"plan": list(plan)}, wolves)
        )
        self.judge_duel(game, plan)

    def _skill_duel_agree(self, game: Game, action: UseSkill) -> None:
        state = game.state
        duel = state.flags.get("duel")
        if not duel or duel.get("done") or duel.get("agreed"):
            raise WrongPhaseError("no_duel", "没有待表决的<决战>提议")
        if action.actor in duel["yes"] or action.actor in duel["no"]:
            raise SkillUsedUpError("duel_answered", "已经表过态")
        choice = (action.choice or "").strip().lower()
        if choice not in {"yes", "no", "同意", "不同意"}:
            raise IllegalActionError("duel_choice", "请回答同意（yes）或不同意（no）")
        agree = choice in {"yes", "同意"}
        game.emit(ActionTaken(action.actor, "duel_agree", None, state.day, {"agree": agree}))
        yes = [*duel["yes"], action.actor] if agree else list(duel["yes"])
        no = [*duel["no"], action.actor] if not agree else list(duel["no"])
        game.emit(FlagSet("duel", {"plan": duel["plan"], "yes": yes, "no": no}))
        self._duel_check(game)

    def _duel_check(self, game: Game) -> None:
        """若过半数同意，则执行轮次决胜 (majority of living wolves, the 狼头 counted)."""
        state = game.state
        duel = state.flags["duel"]
        wolves = self.wolves(state)
        yes = [w for w in duel["yes"] if w in wolves]
        no = [w for w in duel["no"] if w in wolves]
        if 2 * len(yes) > len(wolves):
            if duel["plan"]:
                self.judge_duel(game, tuple(duel["plan"]))
            else:  # agreed: the 狼头 now submits the kills (duel_kills)
                game.emit(FlagSet("duel", {**duel, "agreed": True}))
                leader = self.leader(state)
                if leader:
                    game.emit(
                        Told(
                            (leader,),
                            state.day,
                            "<决战>已获过半数同意：请提交之后三天的刀法",
                            "duel",
                        )
                    )
        elif 2 * len(no) >= len(wolves):
            game.emit(FlagSet("duel", {**duel, "done": True, "agreed": False}))

    def judge_duel(self, game: Game, plan: tuple[str, ...]) -> None:
        """Judge 轮次决胜 with :func:`game_rules.night.duel_wins`; the game ends either way."""
        state = game.state
        witch = state.with_role("witch", alive_only=False)
        hunter = state.with_role("hunter")
        save_used = bool(witch and state.status[witch[0]].get("save_used"))
        poison_ready = bool(
            witch and witch[0] in state.alive and not state.status[witch[0]].get("poison_used")
        )
        wins = duel_wins(
            alive=frozenset(state.alive),
            factions=dict(state.factions),
            gods=frozenset(state.with_trait("god", alive_only=False)),
            plain_villagers=frozenset(state.with_trait("plain_villager", alive_only=False)),
            plan=plan,
            save_used=save_used,
            poison_ready=poison_ready,
            hunter=hunter[0] if hunter else None,
            witch=witch[0] if witch else None,
        )
        game.emit(
            FlagSet("duel", {"plan": list(plan), "done": True, "agreed": True, "wolves_win": wins})
        )
        game.emit(Announced(state.day, state.phase, "狼人阵营发动<决战>，执行轮次决胜", "duel"))
        if wins:
            self._finish(game, "wolves", "轮次决胜：狼人能在三天刀法以内达成胜利条件")
        elif not save_used:
            self._finish(game, "villagers", "轮次决胜：女巫仍未使用过救药，狼人阵营直接判负")
        else:
            self._finish(game, "villagers", "轮次决胜：三刀不能达到胜利条件，狼人阵营直接判负")
        self.judge(game)

    def night_actors(self, state: GameState) -> list[str]:
        """Living holders of a night skill."""
        roles = state.roles
        return [c for c in state.living() if roles[c] in SKILL_HOLDERS]

    def night_options(self, state: GameState, actor: str) -> list[Action]:
        """Night actions ``actor`` may take now (kill reasons use the placeholder 刀人)."""
        role = state.roles[actor]
        out: list[Action] = []
        if role not in SKILL_HOLDERS:
            return out
        living = state.living()
        leader = self.leader(state)
        acts = state.night_actions
        if role == "wolf":
            if state.day == 1 and not leader and not self._acted(state, actor, "leader_vote"):
                out += [UseSkill(actor, "leader_vote", w) for w in self.wolves(state)]
            kill_done = any(a.skill == "kill" for a in acts.values())
            if not kill_done and not self._acted(state, actor, "propose"):
                out += [UseSkill(actor, "propose", t, reason="刀人") for t in living]
            if actor == leader and not kill_done:
                targets = {a.target for a in acts.values() if a.skill == "propose"}
                out += [UseSkill(actor, "kill", t) for t in living if t in targets]
            if actor == leader and not state.flags.get("duel_used"):
                # a plan names one to three of these, in order: listed as the first three, and
                # each alone, so that every name a plan may hold is among the options
                allowed = [c for c in living if state.roles[c] != "wolf"]
                if allowed:
                    out.append(UseSkill(actor, "duel", choice=",".join(allowed[:3])))
                    if len(allowed) > 1:
                        out += [UseSkill(actor, "duel", choice=c) for c in allowed]
            duel = state.flags.get("duel")
            agreed = bool(duel and duel.get("agreed"))
            if (
                duel
                and not duel.get("done")
                and not agreed
                and actor not in duel["yes"] + duel["no"]
            ):
                out += [UseSkill(actor, "duel_agree", choice=c) for c in ("yes", "no")]
            if duel and not duel.get("done") and agreed and actor == leader:
                allowed = [c for c in living if state.roles[c] != "wolf"]
                if allowed:
                    out.append(UseSkill(actor, "duel_kills", choice=",".join(allowed[:3])))
                    if len(allowed) > 1:
                        out += [UseSkill(actor, "duel_kills", choice=c) for c in allowed]
        elif role == "witch":
            status = state.status[actor]
            saved, poisoned = self._acted(state, actor, "save"), self._acted(state, actor, "poison")
            if not status.get("save_used") and not poisoned:
                out += [UseSkill(actor, "save", t) for t in living if t != actor]
            if not status.get("poison_used") and not saved:
                out += [UseSkill(actor, "poison", t) for t in living]
        elif role == "seer" and not self._acted(state, actor, "divine"):
            out += [UseSkill(actor, "divine", t) for t in living if t != actor]
        return out

    def resolve_night(self, game: Game) -> None:
        """Deadline defaults, then :func:`resolve_m08` step by step (pausing for 最后一枪)."""
        state = game.state
        if state.day == 1 and not self.leader(state):
            voted = {a.actor for a in state.night_actions.values() if a.skill == "leader_vote"}
            missed = [w for w in self.wolves(state) if w not in voted]
            if missed:  # 未提交选举狼头的选票，均不计票，计黄牌
                game.emit(FlagSet("missed_leader_vote", missed))
            self.elect_leader(game)
        duel = state.flags.get("duel")
        if duel and not duel.get("done"):
            # not agreed by the night's end, or agreed with no kills submitted: 决战 is not
            # executed (and stays used: 一局游戏只能使用一次); docs/rulings/m08.md
            game.emit(FlagSet("duel", {**duel, "done": True, "agreed": bool(duel.get("agreed"))}))
        alive = frozenset(state.alive)

        def pick(skill: str) -> tuple[str, str] | None:
            for a in state.night_actions.values():
                if a.skill == skill and a.actor in alive and a.target in alive:
                    return a.actor, a.target or ""
            return None

        kill = next((a.target for a in state.night_actions.values() if a.skill == "kill"), None)
        night = M08Night(
            order=self.params.night_order,
            factions=dict(state.factions),
            alive=alive,
            kill=kill if kill in alive else None,
            save=pick("save"),
            poison=pick("poison"),
            divine=pick("divine"),
        )
        self.apply_steps(game, resolve_m08(night))

    def apply_steps(self, game: Game, steps: list[Step]) -> None:
        """Apply steps; pause (remaining steps kept in a flag) when a decision opens."""
        state = game.state
        for i, step in enumerate(steps):
            if step.kind == "tell" and step.character is not None:
                self.tell_step(game, step)
            elif step.kind == "eliminate" and step.character is not None:
                self.eliminate(game, step.character, step.detail, step.by)
                if state.decisions:
                    game.emit(FlagSet("night_rest", [s.to_dict() for s in steps[i + 1 :]]))
                    return

    def continue_night(self, game: Game) -> None:
        """如果在此流程中，猎人一旦出局……被枪杀的角色立即在猎人出局之后出局: then the rest."""
        rest = game.state.flags.get("night_rest")
        if rest:
            game.emit(FlagSet("night_rest", None))
            self.apply_steps(game, [Step.from_dict(d) for d in rest])


# a call, not a class decorator: mypyc compiles only undecorated classes to native ones
register_engine(M08)
