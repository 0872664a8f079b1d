"""The wa004 engine: 『白色相簿1&2』 on top of the shared day machinery of ``werewolf.py``.

Flow (seed 000 总体流程):

0. deal (core); 1. random couples among all but the 单身贵族 (:class:`CouplesDrawn`);
2. every 变节者 chooses a true love (``UseSkill(actor, "true_love", target)``; the director's
   ``DeadlinePassed`` draws the missing ones at random), then each character is told its lover;
3. day 1: vote, highest out unless 捍卫/尊贵 or a tie; red cards act at once (before the vote);
4. night: marks for the single, then orders (1) 变节者 分手/私奔/牛头人, (2) 守护者 挽留/捍卫,
   (3) 单身贵族 烧烤; ``EndNight`` walks ``night_order`` (YAML): the uses are spent, the guards
   raised, a missing 烧烤 drawn, then (4) couples and (5) the kill are resolved, then the
   守护者 "quiet night" is judged; 5./6. next day, and so on. Under ``rules.ntr_consent: asked``
   step (4) stops at each 牛头人 target to ask (a ``ntr_consent`` decision) and ``continue_night``
   finishes the night once it is answered, defaulted (``DeadlinePassed``: 不同意) or void (R8).

Win/lose is judged after every elimination, at the end of each resolution step and at the end of
each night: losses first, then "only one faction left", then the three win conditions; a win stops
everything. Readings of silent places: docs/rulings/wa004.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

# Repeated on purpose: each module imports by name what it uses (an import list, not logic).
from game_rules.actions import (
    Action,
    CloseDay,
    DeadlinePassed,
    Eject,
    LeaveLastWords,
    UseSkill,
)
from game_rules.enums import BARBECUE as BY_BARBECUE  # the cause (BARBECUE: the skill)
from game_rules.enums import MARTYR, RED_CARD, VOTE
from game_rules.errors import (
    DeadActorError,
    IllegalActionError,
    InvalidTargetError,
    NotYourSkillError,
    ParameterError,
    SkillUsedUpError,
    UnknownCharacterError,
    WrongPhaseError,
)
from game_rules.events import (
    ActionTaken,
    Announced,
    DecisionClosed,
    Event,
    FactionLost,
    FlagSet,
    RoleChanged,
    Told,
    VotesTallied,
)
from game_rules.params import RulesetParams
from game_rules.registry import register_engine
from game_rules.state import DAY, SETUP, GameState
from game_rules.wa004 import events as ev
from game_rules.wa004.couples import (
    DISTURBED,
    FOLDED_EVENTS,
    NTR_PAUSE,
    QUIET_NIGHT,
    RETAINING,
    REVEALED,
    couples,
    fold_wa004,
    has_spent,
    is_noble,
    lover_of,
    marks_of,
    nobility_active,
    noble_group,
    retain_window_free,
    shielded,
    true_love_of,
)
from game_rules.wa004.errors import (
    ConsentChoiceError,
    ConsentNotAskedError,
    ElopeWithLoverError,
    NobleTargetError,
    NotInCoupleError,
    NotSingleError,
    RetainWindowError,
    SelfTargetError,
    TrueLoveChosenError,
)
from game_rules.wa004.roles import (
    BARBECUE,
    BETRAYER,
    BETRAYERS,
    BREAKUP,
    COUNTED_KEYS,
    DEFEND,
    ELOPE,
    GUARDIAN,
    GUARDIANS,
    LOVE_KEYS,
    NIGHT_SKILL_KEYS,
    NOBLE,
    NOBLES,
    NTR,
    NTR_CONSENT,
    RETAIN,
    SKILL_KEYS,
    SKILL_LABELS,
    TRUE_LOVE,
    Faction,
    Role,
    Skill,
)
from game_rules.wa004.rules import Wa004Rules, fixed_couples
from game_rules.werewolf import WerewolfRuleset

if TYPE_CHECKING:
    from game_rules.game import Game

#: skills that name a target character
TARGETED = frozenset({ELOPE, NTR, BARBECUE})
WIN = "win"
LOSE = "lose"
#: bound on the engine's cache of option lists (the engine is shared by every game)
OPTION_CACHE_SIZE = 4096
#: answers to a 牛头人 question (R8): the decision's result, and the words accepted for it
YES = "yes"
NO = "no"
CONSENT_WORDS = {"yes": YES, "同意": YES, "no": NO, "不同意": NO}
#: why an asked 牛头人 had no effect, by the ``how`` of the target's ``DecisionClosed`` (director)
CONSENT_FAILURES = {
    "chosen": "对方不同意",
    "deadline": "对方未按时答复，视为不同意",
    "void": "答复前使用者或对方已出局，或对方已成为单身贵族",
}


def _ready_error(fault: str, skill: str) -> IllegalActionError:
    """The error for a ``Wa004Ruleset._not_ready`` answer ``fault`` about ``skill``."""
    if fault == "spent":
        label = SKILL_LABELS[skill]
        return SkillUsedUpError(f"{skill}_spent", f"<{label}>使用次数为1，情侣关系变化后才恢复")
    if fault == "breakup_single":
        return NotInCoupleError(message="分手：你处于单身状态")
    if fault == "ntr_coupled":
        return NotSingleError(message="牛头人：只有处于单身状态时才能使用")
    if fault == "retain_single":
        return NotInCoupleError(message="挽留：你处于单身状态")
    return RetainWindowError(message="挽留：每两游戏日夜晚可选择一天使用")


class Wa004Ruleset(WerewolfRuleset):
    """Engine ``wa004`` (seed 000). See the module docstring for the flow."""

    engine: ClassVar[str] = "wa004"
    # a 牛头人 target's answer (R8) is the only decision wa004 adds to the shared ones
    decision_order: ClassVar[tuple[str, ...]] = (*WerewolfRuleset.decision_order, NTR_CONSENT)
    own_events: ClassVar[tuple[type[Event], ...]] = ev.WA004_EVENTS
    # Game.emit calls fold only for these: most events (Told, Announced...) need none
    folded_events: ClassVar[frozenset[type[Event]] | None] = (
        None
        if WerewolfRuleset.folded_events is None
        else WerewolfRuleset.folded_events | FOLDED_EVENTS
    )

    def __init__(self, params: RulesetParams) -> None:
        super().__init__(params)
        self.rules = Wa004Rules.from_params(params)
        self.asks_consent = self.rules.ntr_consent == "asked"
        self.faction_keys: tuple[str, ...] = tuple(params.factions)
        # (actor, skill, living, barred) -> the options: immutable values, shared by all games
        self._options: dict[tuple[Any, ...], tuple[UseSkill, ...]] = {}
        for role in Role:
            if role.value not in params.roles:
                raise ParameterError(message=f"wa004 needs the role {role.value!r}")
        for faction in Faction:
            if faction.value not in params.factions:
                raise ParameterError(message=f"wa004 needs the faction {faction.value!r}")
        order = list(params.night_order)
        if sorted(order) != sorted(NIGHT_STEPS):
            raise ParameterError(
                message=f"night_order must list each of {sorted(NIGHT_STEPS)} once, got {order}"
            )
        nobles = params.roles[Role.NOBLE].count
        if nobles < 1 or (params.player_count - nobles) % 2:
            raise ParameterError(
                message="除单身贵族以外的角色两个一组: at least one noble and an even rest"
            )

    # =========================================================================================
    # folding
    def fold(self, state: GameState, event: Event) -> None:
        """Core vote-box bookkeeping, then the love-game keys (``couples.fold_wa004``)."""
        super().fold(state, event)
        fold_wa004(state, event)

    # =========================================================================================
    # start: couples and true loves
    def start(self, game: Game) -> None:
        """游戏开始时，随机分配情侣; the 变节者 are asked for their true love."""
        state = game.state
        pool = [c for c in state.characters if state.roles[c] != NOBLE]
        fixed = self.params.extra.get("couples")
        if fixed:  # the couples a director drew beforehand (a script's `couples:`)
            pairs = fixed_couples(fixed, pool)
        else:
            pool = game.shuffled("couples", pool)
            pairs = tuple((pool[i], pool[i + 1]) for i in range(0, len(pool), 2))
        game.emit(ev.CouplesDrawn(pairs))
        group = noble_group(state)
        game.emit(Told(group, 0, f"单身贵族群：{'、'.join(group)}", "group"))
        for b in state.with_role(BETRAYER):
            game.emit(
                Told((b,), 0, "爱情追寻<强制>：请选择一位其他玩家作为你的真爱对象", "true_love")
            )
        self._maybe_reveal(game)

    def _maybe_reveal(self, game: Game) -> None:
        # 所有变节者选择出真爱对象之后，通知各人的情侣
        state = game.state
        if state.phase != SETUP or state.flags.get(REVEALED):
            return
        if any(true_love_of(state, b) is None for b in state.with_role(BETRAYER)):
            return
        game.emit(ev.CouplesRevealed())
        for a, b in couples(state):
            game.emit(Told((a,), 0, f"你的情侣：{b}", "lover"))
            game.emit(Told((b,), 0, f"你的情侣：{a}", "lover"))
        if not self.check_end(game):
            self.start_day(game, 1)

    def handle(self, game: Game, action: Action) -> None:
        """The start phase is wa004's own; everything else goes to the shared machinery."""
        state = game.state
        is_true_love = isinstance(action, UseSkill) and action.skill == TRUE_LOVE
        if state.phase == SETUP:
            if isinstance(action, UseSkill) and is_true_love:
                self._choose_true_love(game, action)
            elif isinstance(action, DeadlinePassed):
                self._true_love_deadline(game)
            elif isinstance(action, LeaveLastWords):  # a 殉情 after a red card during the start
                super().handle(game, action)
            else:
                raise WrongPhaseError("setup", "游戏尚未开始讨论：变节者正在选择真爱对象")
            return
        if is_true_love:
            raise TrueLoveChosenError(message="爱情追寻只在游戏开始时选择")
        if (
            self.asks_consent
            and isinstance(action, UseSkill)
            and action.skill == NTR_CONSENT
            and (action.actor, NTR_CONSENT) not in state.decisions
        ):
            game.require_character(action.actor)
            raise ConsentNotAskedError(message=f"{action.actor}没有待答复的牛头人（NTR）")
        super().handle(game, action)

    def _check_true_love(self, state: GameState, actor: str, target: str | None) -> str:
        if actor not in state.status:
            raise UnknownCharacterError(message=f"没有名为「{actor}」的角色")
        if actor not in state.alive:
            raise DeadActorError(message=f"{actor}已出局")
        if state.roles[actor] != BETRAYER:
            raise NotYourSkillError(message=f"{actor}没有技能<爱情追寻>")
        if true_love_of(state, actor) is not None:
            raise TrueLoveChosenError(message=f"{actor}已经选择了真爱对象")
        return self._check_target(state, actor, target)

    def _choose_true_love(self, game: Game, action: UseSkill) -> None:
        target = self._check_true_love(game.state, action.actor, action.target)
        game.emit(ev.TrueLoveChosen(action.actor, target))
        self._maybe_reveal(game)

    def _true_love_deadline(self, game: Game) -> None:
        # 爱情追寻<强制>: a missing choice is drawn at random (R2)
        state = game.state
        for b in state.with_role(BETRAYER):
            if true_love_of(state, b) is None:
                others = [c for c in state.living() if c != b]
                pick = game.pick("true_love", others)
                game.emit(ev.TrueLoveChosen(b, pick, defaulted=True))
                game.emit(
                    Told((b,), 0, f"你未按时选择，导演随机指定你的真爱对象：{pick}", "true_love")
                )
        self._maybe_reveal(game)

    # =========================================================================================
    # checks shared by night orders and legal_actions
    @staticmethod
    def _check_target(state: GameState, actor: str, target: str | None) -> str:
        if target is None:
            raise InvalidTargetError("target_required", "须选择一名角色")
        if target not in state.status:
            raise UnknownCharacterError(message=f"没有名为「{target}」的角色")
        if target not in state.alive:
            raise InvalidTargetError("dead_target", f"{target}已出局，不能被选为技能的目标")
        if target == actor:
            raise SelfTargetError(message="须选择一位其他玩家")
        return target

    def _check_night(self, state: GameState, actor: str, skill: str, target: str | None) -> None:
        """Raise the specific error if ``actor`` may not order ``skill`` on ``target`` tonight."""
        if skill not in NIGHT_SKILL_KEYS[state.roles[actor]]:
            raise NotYourSkillError(message=f"{actor}没有技能<{SKILL_LABELS[skill]}>")
        if skill in TARGETED:
            self._check_target(state, actor, target)
        elif target is not None:
            raise InvalidTargetError("no_target", f"<{SKILL_LABELS[skill]}>不选择目标")
        lover = lover_of(state, actor)
        self._check_ready(state, actor, skill, lover)
        self._check_skill_target(state, skill, target, lover)

    def _not_ready(self, state: GameState, actor: str, skill: str, lover: str | None) -> str | None:
        """Why ``skill`` may not be ordered whatever its target (uses, couple, 挽留 window), or
        None. A code, not an exception: :meth:`night_options` asks this for every skill."""
        if skill in COUNTED_KEYS and has_spent(state, actor, skill):
            return "spent"
        if skill == BREAKUP:
            return "breakup_single" if lover is None else None
        if skill == NTR:
            return "ntr_coupled" if lover is not None else None
        if skill == RETAIN:
            if lover is None:
                return "retain_single"
            if not retain_window_free(state, actor, state.day, self.rules.retain_window):
                return "retain_window"
        return None

    def _check_ready(self, state: GameState, actor: str, skill: str, lover: str | None) -> None:
        """Raise the error of :meth:`_not_ready`, if any."""
        fault = self._not_ready(state, actor, skill, lover)
        if fault is not None:
            raise _ready_error(fault, skill)

    @staticmethod
    def _barred_targets(state: GameState, skill: str, lover: str | None) -> frozenset[str]:
        """Characters ``skill`` may not name, beyond the common checks of :meth:`_check_target`.

        私奔 not one's own lover; 烧烤 never a member of the group (牛头人 on a noble is accepted:
        hidden, R8).
        """
        if skill == ELOPE:
            return frozenset() if lover is None else frozenset((lover,))
        if skill == BARBECUE:
            return frozenset(noble_group(state))
        return frozenset()

    def _check_skill_target(
        self, state: GameState, skill: str, target: str | None, lover: str | None
    ) -> None:
        """The checks of ``skill`` on this particular (living, other) ``target``."""
        if target is None or target not in self._barred_targets(state, skill, lover):
            return
        if skill == ELOPE:
            raise ElopeWithLoverError(message=f"{target}已经是你的情侣")
        raise NobleTargetError(message=f"{target}是单身贵族群成员")

    def night_skill(self, game: Game, action: UseSkill) -> None:
        """Record a night order (a newer order replaces the same slot's older one)."""
        state = game.state
        skill = SKILL_KEYS.get(action.skill)
        if skill is None:
            raise NotYourSkillError(message=f"没有技能 {action.skill!r}")
        actor = action.actor
        self._check_night(state, actor, skill, action.target)
        standing = state.night_actions
        if skill == BARBECUE:
            stale = [k for k in standing if k[1] == BARBECUE]
        elif skill in LOVE_KEYS:
            stale = [(actor, s) for s in LOVE_KEYS]
        else:
            stale = [(actor, skill)]
        for key in stale:
            if key in standing:
                game.emit(ev.OrderWithdrawn(key[0], key[1]))
        to = noble_group(state) if skill == BARBECUE else ()
        game.emit(ActionTaken(actor, skill, action.target, state.day, {}, to))

    def night_options(self, state: GameState, actor: str) -> list[Action]:
        """Every order ``actor`` may give now (targets in seat order).

        The same checks as :meth:`night_skill`, split so that a skill's target-independent
        checks run once per skill rather than once per target.
        """
        out: list[Action] = []
        lover = lover_of(state, actor)
        for skill in NIGHT_SKILL_KEYS[state.roles[actor]]:
            if self._not_ready(state, actor, skill, lover) is None:
                out.extend(self._skill_options(state, actor, skill, lover))
        return out

    def _skill_options(
        self, state: GameState, actor: str, skill: str, lover: str | None
    ) -> tuple[UseSkill, ...]:
        """``actor``'s orders of ``skill`` (a ready one), every allowed target in seat order.

        They depend only on the key below and are immutable, so they are built once (the
        policy asks every actor several times a night).
        """
        targeted = skill in TARGETED
        if targeted:
            living = state.living_tuple()
            barred = self._barred_targets(state, skill, lover)
            key: tuple[Any, ...] = (actor, skill, living, barred)
        else:
            key = (actor, skill)
        cache = self._options
        options = cache.get(key)
        if options is None:
            if not targeted:
                options = (UseSkill(actor, skill, None),)
            else:
                options = tuple(
                    [UseSkill(actor, skill, t) for t in living if t != actor and t not in barred]
                )
            if len(cache) >= OPTION_CACHE_SIZE:
                cache.clear()
            cache[key] = options
        return options

    def legal_actions(self, state: GameState, actor: str | None = None) -> list[Action]:
        """Legal actions now; in the start phase, true-love choices and the director's deadline."""
        if state.ended:
            return []
        if state.phase == SETUP:
            if actor is None:
                return [DeadlinePassed()]
            chooses = (
                actor in state.alive
                and state.roles.get(actor) == BETRAYER
                and true_love_of(state, actor) is None
            )
            if not chooses:
                return []
            return [UseSkill(actor, TRUE_LOVE, c) for c in state.living() if c != actor]
        return super().legal_actions(state, actor)

    # =========================================================================================
    # protection, elimination, marks, conversion
    def protection(self, state: GameState, name: str) -> Skill | None:
        """The skill keeping ``name`` in the game (捍卫 or 尊贵), or None. Red cards ignore it."""
        if shielded(state, name):
            return Skill.DEFEND
        if nobility_active(state, name, self.rules.nobility_ends == "second_alive"):
            return Skill.NOBILITY
        return None

    def eliminate(self, game: Game, character: str, cause: str, by: str | None = None) -> bool:
        """出局 unless 捍卫/尊贵 prevents it (red cards are never prevented)."""
        state = game.state
        if character not in state.alive:
            return False
        if cause != RED_CARD:
            guard = self.protection(state, character)
            if guard is not None:
                why = f"<{guard.label}>使其免于出局（{cause}）"
                game.emit(ev.EffectBlocked(character, guard.value, character, why))
                return False
        out = super().eliminate(game, character, cause, by)
        self._void_question(game)
        return out

    def on_eliminated(self, game: Game, character: str, cause: str) -> None:
        """The couple ends with the eliminated; 殉情 or a mark for the survivor."""
        state = game.state
        lover = lover_of(state, character)
        if lover is None:
            return
        game.emit(ev.CoupleDissolved(character, lover, "out", character))
        if lover not in state.alive:
            return
        martyr = state.roles[lover] == GUARDIAN and (
            cause != RED_CARD or self.rules.martyrdom_on_red_card
        )
        if martyr and self.protection(state, lover) is None:
            # 殉情<强制>: 当你的情侣出局时，你也出局 (announced at once by day, with no cause)
            if state.phase == DAY:
                game.emit(
                    Announced(state.day, DAY, self.words.line("out", name=lover), "out", (lover,))
                )
            self.eliminate(game, lover, MARTYR, by=character)
            return
        if martyr:
            why = "<捍卫>使其免于出局（martyr）"
            game.emit(ev.EffectBlocked(lover, DEFEND, lover, why))
        game.emit(Told((lover,), state.day, f"你的情侣{character}已出局，你处于单身状态", "lover"))
        own = cause == BY_BARBECUE and is_noble(state, lover)  # lost by its own group's skill
        if not own:
            self.mark(game, lover, "lost_lover")

    def mark(self, game: Game, name: str, reason: str) -> None:
        """A 不会再爱 mark; the third one converts to 单身贵族 (nobles take none, R12)."""
        state = game.state
        if name not in state.alive or is_noble(state, name):
            return
        total = marks_of(state, name) + 1
        game.emit(ev.MarkGained(name, reason, total))
        game.emit(Told((name,), state.day, f"你获得一枚「不会再爱」标记（共{total}枚）", "mark"))
        if total >= self.rules.marks_to_convert:
            game.emit(RoleChanged(name, NOBLE))
            game.emit(
                Told(
                    (name,),
                    state.day,
                    f"你获得了{total}枚「不会再爱」标记，强制转变为单身贵族，并加入单身贵族阵营",
                    "convert",
                )
            )
            group = noble_group(state)
            game.emit(
                Told(
                    group,
                    state.day,
                    f"{name}加入单身贵族群；单身贵族群：{'、'.join(group)}",
                    "group",
                )
            )

    # =========================================================================================
    # day
    def close_day(self, game: Game, action: CloseDay) -> None:
        """关门: tally; the highest goes out unless tie, 捍卫 or 尊贵 (then nobody)."""
        state = game.state
        if state.phase != DAY or state.flags.get("day_closed"):
            raise WrongPhaseError("not_day", "现在不是讨论日")
        day = state.day
        t = self.tally_today(state)
        tops = self.living_top(state, t)
        out = tops[0] if len(tops) == 1 else None
        game.emit(FlagSet("day_closed", True))
        self.expire_last_words(game, everyone=True)
        game.emit(VotesTallied(day, t.count_texts(), tops, out))
        game.emit(Announced(day, DAY, t.announcement(), "tally"))
        if out is None:
            text = self.words.line("tie" if tops else "nobody_out")
            game.emit(Announced(day, DAY, text, "out"))
        else:
            guard = self.protection(state, out)
            if guard is not None:
                why = f"<{guard.label}>使其免于出局（vote）"
                game.emit(ev.EffectBlocked(out, guard.value, out, why))
                game.emit(Announced(day, DAY, self.words.line("nobody_out"), "out"))
            else:
                text = self.words.line("voted_out", name=out)
                game.emit(Announced(day, DAY, text, "out", (out,)))
                self.eliminate(game, out, VOTE)
        self.advance(game)

    def day_announcements(self, game: Game, day: int) -> None:
        """公示前一天投票出局角色名单，昨晚出局角色名单 (``day_opening``), then last words."""
        self.opening_announcements(game, day)
        self.publish_last_words(game, day)

    # =========================================================================================
    # night
    def on_night_start(self, game: Game) -> None:
        """在游戏日夜晚开始时，你没有情侣，获得该标记."""
        state = game.state
        for c in state.living():
            if lover_of(state, c) is None:
                self.mark(game, c, "single_at_night")
        self.judge(game)

    def resolve_night(self, game: Game) -> None:
        """Walk ``night_order`` (the seed's (1)-(5), as data), then the 守护者 judgement."""
        self._run_steps(game, self.params.night_order)

    def _run_steps(self, game: Game, steps: tuple[str, ...]) -> None:
        """Walk ``steps`` of ``night_order`` and judge the night, unless a 牛头人 question
        (``ntr_consent: asked``) pauses it: :meth:`continue_night` then picks up."""
        state = game.state
        for step in steps:
            orders = [o for o in state.night_actions.values() if o.actor in state.alive]
            NIGHT_STEPS[step](self, game, orders)
            if state.flags.get(NTR_PAUSE):
                return
            if step.startswith("resolve_"):
                self.judge(game)  # a declared win stops the rest
        game.emit(ev.NightJudged(state.day, not state.flags.get(DISTURBED, False)))
        self.judge(game)

    def continue_night(self, game: Game) -> None:
        """After a 牛头人 target's answer (R8): apply it, go on with the other 牛头人 of step (4),
        judge the step, then walk the rest of ``night_order`` (called by ``advance`` once no
        decision is open; nothing to do when the night was not paused)."""
        state = game.state
        pause = state.flags.get(NTR_PAUSE)
        if not pause:
            return
        game.emit(FlagSet(NTR_PAUSE, None))
        x, t = pause["user"], pause["target"]
        taken, leavers = set(pause["taken"]), set(pause["leavers"])
        if pause.get("answer") == YES:
            self._ntr_takes(game, x, t, taken, leavers)
        else:
            # 不同意 (said, or no answer by the deadline) or a void question: nothing changes;
            # the user is told nothing, as for a 挽留-blocked 牛头人 or one on the 单身贵族
            game.emit(ev.EffectBlocked(x, NTR, t, CONSENT_FAILURES[pause.get("how", "void")]))
        self._resolve_ntrs(game, [(a, b) for a, b in pause["rest"]], taken, leavers)
        if state.flags.get(NTR_PAUSE):
            return  # the next target is asked
        self.judge(game)  # the end of step (4)
        order = self.params.night_order
        self._run_steps(game, order[order.index("resolve_couples") + 1 :])

    def spend_love_skills(self, game: Game, orders: list[ActionTaken]) -> None:
        """(1) 变节者: the orders stand; each counted skill's use is spent now."""
        for o in orders:
            if o.skill in LOVE_KEYS:
                game.emit(ev.SkillSpent(o.actor, o.skill))

    def raise_guards(self, game: Game, orders: list[ActionTaken]) -> None:
        """(2) 守护者: 挽留 holds the couple tonight; 捍卫 covers user and lover till next night."""
        state = game.state
        for o in orders:
            if o.skill == RETAIN:
                game.emit(ev.RetainUsed(o.actor, state.day))
            elif o.skill == DEFEND:
                game.emit(ev.SkillSpent(o.actor, o.skill))
                lover = lover_of(state, o.actor)
                covered = (o.actor,) if lover is None else (o.actor, lover)
                game.emit(ev.Shielded(o.actor, covered, state.day + 1))

    def choose_barbecue(self, game: Game, orders: list[ActionTaken]) -> None:
        """(3) 单身贵族: with no order by the deadline the director picks at random (R20)."""
        state = game.state
        living_nobles = state.with_role(NOBLE)
        if not living_nobles or any(o.skill == BARBECUE for o in orders):
            return
        targets = [c for c in state.living() if not is_noble(state, c)]
        if targets:
            pick = game.pick("barbecue", targets)
            game.emit(
                ActionTaken(
                    living_nobles[0], BARBECUE, pick, state.day,
                    {"defaulted": True}, noble_group(state),
                )
            )  # fmt: skip

    def resolve_kill(self, game: Game, orders: list[ActionTaken]) -> None:
        """(5) 指杀结算: the group's latest target goes out unless 捍卫 (or 尊贵) covers it."""
        state = game.state
        kill = next((o for o in reversed(orders) if o.skill == BARBECUE), None)
        if kill is not None and kill.target in state.alive and state.with_role(NOBLE):
            self.eliminate(game, kill.target, BY_BARBECUE, by=kill.actor)

    def resolve_couples(self, game: Game, orders: list[ActionTaken]) -> None:
        """(4) 情侣结算: 分手, then mutual 私奔, then 牛头人, each in submission order.

        Each change is checked against the couples as they stand at that moment; a change that
        would end the couple of a 挽留 user tonight has no effect (R5); a character who found a
        new lover tonight is not taken again by a later 牛头人 (R23).
        """
        state = game.state
        retaining = set(state.flags.get(RETAINING, ()))
        elopes = {o.actor: o.target for o in orders if o.skill == ELOPE}
        mutual = {a for a, b in elopes.items() if b is not None and elopes.get(b) == a}
        leavers = {o.actor for o in orders if o.skill == BREAKUP} | mutual
        taken: set[str] = set()  # found a new lover tonight: not taken again (R23)

        def betrayer(name: str | None) -> bool:
            return name is not None and name in state.alive and state.roles[name] == BETRAYER

        def blocked(o: ActionTaken, why: str) -> None:
            game.emit(ev.EffectBlocked(o.actor, o.skill, o.target, why))

        for o in orders:
            if o.skill != BREAKUP:
                continue
            lover = lover_of(state, o.actor)
            if not betrayer(o.actor) or lover is None:
                blocked(o, "分手者已不是处于情侣状态的变节者")
            elif {o.actor, lover} & retaining:
                blocked(o, "<挽留>使情侣状态不会被解除")
            else:
                self.dissolve(game, o.actor, lover, BREAKUP, o.actor, leavers)
        done: set[str] = set()
        for o in orders:
            if o.skill != ELOPE or o.actor in done:
                continue
            a, b = o.actor, o.target
            if a not in mutual or b is None:
                blocked(o, "对方未对你使用私奔")
                continue
            done.update((a, b))
            olds = [(x, y) for x in (a, b) if (y := lover_of(state, x)) is not None]
            if not (betrayer(a) and betrayer(b)) or lover_of(state, a) == b:
                blocked(o, "私奔双方不再满足条件")
            elif any({x, y} & retaining for x, y in olds):
                blocked(o, "<挽留>使情侣状态不会被解除")
            else:
                for x, y in olds:
                    if lover_of(state, x) == y:
                        self.dissolve(game, x, y, ELOPE, x, leavers)
                self.form(game, a, b, ELOPE)
                taken.update((a, b))
        ntrs = [(o.actor, o.target) for o in orders if o.skill == NTR and o.target is not None]
        self._resolve_ntrs(game, ntrs, taken, leavers)

    def _resolve_ntrs(
        self, game: Game, ntrs: list[tuple[str, str]], taken: set[str], leavers: set[str]
    ) -> None:
        """The 牛头人 part of step (4), (user, target) in submission order (R8, R23).

        Under ``ntr_consent: asked`` it stops at the first target that would be taken and asks
        it; :meth:`continue_night` applies the answer and calls this again with the rest.
        """
        state = game.state
        retaining = set(state.flags.get(RETAINING, ()))
        alive, roles = state.alive, state.roles
        for i, (x, t) in enumerate(ntrs):
            single_betrayer = x in alive and roles[x] == BETRAYER and lover_of(state, x) is None
            if not single_betrayer or t not in alive:
                # a user taken by an earlier 牛头人 tonight is no longer single
                game.emit(ev.EffectBlocked(x, NTR, t, "使用者不再是单身的变节者，或目标已出局"))
                continue
            if is_noble(state, t):
                # 若对方不是单身贵族 ……: no notice, no question, no effect; the user sees nothing
                game.emit(ev.EffectBlocked(x, NTR, t, "对方是单身贵族"))
                continue
            game.emit(Told((t,), state.day, f"{x}对你使用了牛头人（NTR）", "ntr"))
            old = lover_of(state, t)
            if t in taken:
                game.emit(ev.EffectBlocked(x, NTR, t, "对方今晚已成为他人的新情侣"))
                continue
            if old is not None and {t, old} & retaining:
                game.emit(ev.EffectBlocked(x, NTR, t, "<挽留>使情侣状态不会被解除"))
                continue
            if self.asks_consent:
                self._ask_consent(game, x, t, ntrs[i + 1 :], taken, leavers)
                return
            self._ntr_takes(game, x, t, taken, leavers)

    def _ntr_takes(self, game: Game, x: str, t: str, taken: set[str], leavers: set[str]) -> None:
        """则对方失去原有的情侣关系或单身状态。双方成为新的情侣."""
        old = lover_of(game.state, t)
        if old is not None:
            self.dissolve(game, t, old, NTR, x, leavers)
        self.form(game, x, t, NTR)
        taken.update((x, t))

    # =========================================================================================
    # the 牛头人 question (rules.ntr_consent: asked, R8)
    def _ask_consent(
        self,
        game: Game,
        x: str,
        t: str,
        rest: list[tuple[str, str]],
        taken: set[str],
        leavers: set[str],
    ) -> None:
        """并且对方同意和你成为情侣: pause the night (what is left of step (4) kept in a flag,
        JSON-shaped so that a rebuilt state is equal) and ask ``t``."""
        pause = {
            "user": x,
            "target": t,
            "rest": [[a, b] for a, b in rest],
            "taken": sorted(taken),
            "leavers": sorted(leavers),
        }
        game.emit(FlagSet(NTR_PAUSE, pause))
        minutes = self.params.deadlines.get(NTR_CONSENT)
        limit = f"（{minutes}分钟内未答复视为不同意）" if minutes else ""
        self.open_decision(
            game,
            t,
            NTR_CONSENT,
            f"牛头人（NTR）：是否同意和{x}成为情侣？"
            f"同意则你失去原有的情侣关系或单身状态，双方成为新的情侣{limit}",
        )

    def decision_handlers(self) -> dict[str, Any]:
        """The shared ones, and the 牛头人 answer when the ruleset asks it."""
        handlers = super().decision_handlers()
        if self.asks_consent:
            handlers[NTR_CONSENT] = (self.take_consent, self.default_consent, self.consent_options)
        return handlers

    @staticmethod
    def consent_options(state: GameState, actor: str) -> list[Action]:
        """同意 or 不同意."""
        return [UseSkill(actor, NTR_CONSENT, choice=YES), UseSkill(actor, NTR_CONSENT, choice=NO)]

    def take_consent(self, game: Game, action: UseSkill) -> None:
        """The target answers (``choice`` yes/同意 or no/不同意, no target)."""
        answer = CONSENT_WORDS.get((action.choice or "").strip().lower())
        if answer is None or action.target is not None:
            raise ConsentChoiceError(message="请回答同意（yes）或不同意（no），不选择目标")
        game.emit(DecisionClosed(action.actor, NTR_CONSENT, answer, "chosen"))

    def default_consent(self, game: Game, actor: str) -> None:
        """No answer by the deadline: 不同意 (同意 is a condition of the effect; R8)."""
        state = game.state
        user = state.flags[NTR_PAUSE]["user"]
        game.emit(DecisionClosed(actor, NTR_CONSENT, NO, "deadline"))
        text = f"你未按时答复，视为不同意和{user}成为情侣"
        game.emit(Told((actor,), state.day, text, NTR_CONSENT))

    def _void_question(self, game: Game) -> None:
        """A question whose user or target went out (a red card while it is open), or whose
        target became a 单身贵族 meanwhile (its lover's red card gave the last mark), is void:
        closed at once, and the night goes on when the card's resolution ends (R8)."""
        state = game.state
        pause = state.flags.get(NTR_PAUSE)
        if not pause:
            return
        x, t = pause["user"], pause["target"]
        if (t, NTR_CONSENT) not in state.decisions:
            return
        if x in state.alive and t in state.alive and not is_noble(state, t):
            return
        game.emit(DecisionClosed(t, NTR_CONSENT, None, "void"))
        if t in state.alive:
            text = f"{x}对你使用的牛头人（NTR）已失效，无需答复"
            game.emit(Told((t,), state.day, text, NTR_CONSENT))

    def dissolve(self, game: Game, a: str, b: str, skill: str, by: str, leavers: set[str]) -> None:
        """End the couple a–b; whoever did not leave by its own ``skill`` gets a mark."""
        state = game.state
        game.emit(ev.CoupleDissolved(a, b, skill, by))
        for me, other in ((a, b), (b, a)):
            game.emit(Told((me,), state.day, f"你与{other}的情侣关系已解除", "lover"))
        for me in (a, b):
            if me not in leavers:
                self.mark(game, me, "lost_lover")

    def form(self, game: Game, a: str, b: str, skill: str) -> None:
        """a and b become lovers (by ``skill``)."""
        state = game.state
        game.emit(ev.CoupleFormed(a, b, skill))
        game.emit(Told((a,), state.day, f"你与{b}成为情侣", "lover"))
        game.emit(Told((b,), state.day, f"你与{a}成为情侣", "lover"))

    # =========================================================================================
    # red cards
    def eject(self, game: Game, action: Eject) -> None:
        """红牌罚下 at once (before the day's vote); during the start it may complete the reveal."""
        super().eject(game, action)
        if game.state.phase == SETUP and not game.state.ended:
            self._maybe_reveal(game)

    # =========================================================================================
    # judging
    def lose_reason(self, state: GameState, faction: str) -> str | None:
        """Why ``faction`` meets a lose condition now, or None."""
        factions = state.factions
        members = [c for c in state.living_tuple() if factions[c] == faction]
        if faction == BETRAYERS and not members:
            return "变节者全部出局"
        if self.rules.empty_faction_loses and not members:
            return "阵营没有存活角色"
        return None

    def check_end(self, game: Game) -> bool:
        """Losses first; one faction left wins; then 变节者, 单身贵族, 守护者 win conditions."""
        state = game.state
        if state.ended:
            return True
        factions = self.faction_keys
        for f in factions:
            remaining = [g for g in factions if g not in state.lost]
            if len(remaining) <= 1:
                break
            if f in state.lost:
                continue
            reason = self.lose_reason(state, f)
            if reason is not None:
                game.emit(FactionLost(f, reason))
        remaining = [g for g in factions if g not in state.lost]
        if len(remaining) == 1:
            self._win(game, remaining[0], "场上仅有一个阵营尚未被判负")
            return True
        if not state.flags.get(REVEALED):
            return False
        if BETRAYERS in remaining:
            living = state.with_role(BETRAYER)
            if living and all(lover_of(state, b) == true_love_of(state, b) for b in living):
                self._win(game, BETRAYERS, "所有存活的变节者都与其真爱对象成为情侣")
                return True
        if NOBLES in remaining and not couples(state):
            self._win(game, NOBLES, "场上没有角色处于情侣状态")
            return True
        quiet = int(state.flags.get(QUIET_NIGHT, 0))
        if GUARDIANS in remaining and quiet >= self.rules.guardian_win_from_night:
            self._win(
                game,
                GUARDIANS,
                f"第{quiet}个游戏夜晚没有情侣解除情侣状态或者处于情侣状态的角色出局",
            )
            return True
        return False

    def _win(self, game: Game, faction: str, reason: str) -> None:
        results = {f: (WIN if f == faction else LOSE) for f in self.params.factions}
        self.finish(game, str(faction), results, reason)


# a call, not a class decorator: mypyc compiles only undecorated classes to native ones
register_engine(Wa004Ruleset)

#: night_order step name (YAML) -> the engine method doing it
NIGHT_STEPS: dict[str, Callable[[Wa004Ruleset, Game, list[ActionTaken]], None]] = {
    "betrayers": Wa004Ruleset.spend_love_skills,
    "guardians": Wa004Ruleset.raise_guards,
    "nobles": Wa004Ruleset.choose_barbecue,
    "resolve_couples": Wa004Ruleset.resolve_couples,
    "resolve_kill": Wa004Ruleset.resolve_kill,
}
