"""Shared machinery of the werewolf-style rulesets (m72, m08; reusable by others).

:class:`WerewolfRuleset` runs the day (ballots through ``votes.py``, weighted tally, sheriff
election or vote-out, ties), last words (遗言) with a quota, decisions that follow an elimination
(殉职, 最后一枪, 传位) and their deadline defaults, red cards (红牌罚下) with the ruleset's timing,
and the day/night cycle. A concrete engine adds its night (skills and a pure resolution function),
its announcements and its win/lose judging.

Control flow: a hook that ends the game raises the private ``_Ended``; ``handle``/``eject``
catch it, so nothing runs after ``GameEnded``.
"""

from __future__ import annotations

import operator
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, cast

from mypy_extensions import mypyc_attr

from game_rules.actions import (
    LAST_WORDS_PLACEHOLDER,
    Action,
    CastVote,
    CloseDay,
    DeadlinePassed,
    Eject,
    EndNight,
    LeaveLastWords,
    ScheduleDay,
    UseSkill,
)
from game_rules.announcements import Wording, day_opening, wording
from game_rules.enums import RED_CARD, VOTE
from game_rules.errors import (
    DeadActorError,
    IllegalActionError,
    InvalidTargetError,
    NotYourSkillError,
    ParameterError,
    PendingDecisionError,
    UnknownRulesetError,
    WrongPhaseError,
)
from game_rules.events import (
    Announced,
    Carded,
    DecisionClosed,
    DecisionOpened,
    Eliminated,
    Event,
    FactionLost,
    FlagSet,
    LastWordsGiven,
    LastWordsGranted,
    PhaseStarted,
    SheriffChanged,
    Told,
    VoteCast,
    VotesTallied,
)
from game_rules.params import RulesetParams
from game_rules.registry import Ruleset
from game_rules.state import DAY, NIGHT, GameState
from game_rules.votes import Ballot, BallotBox, Tally, VotePolicy, admit_ballot, tally

if TYPE_CHECKING:
    from game_rules.game import Game
    from game_rules.night import Step

# The game clock is aware: a time given without an offset is read as UTC (its wall-clock text is
# kept), and untimed ballots are placed on a synthetic UTC clock. So a day may mix ballots ordered
# by arrival, timed ballots and a 关门 scheduled at any point: every pair of times compares.
BASE_TIME = datetime(2000, 1, 1, tzinfo=UTC)
SECOND = timedelta(seconds=1)
DAY_SPAN = timedelta(days=1)
#: times a director may give, from EARLIEST_TIME up to (not including) LATEST_TIME: the clock
#: steps a day back from 关门 and seconds past a ballot, so the ends of datetime's range (years 1
#: and 9999) must stay out of reach (the API's time fields take the same range)
EARLIEST_TIME = datetime(1970, 1, 1, tzinfo=UTC)
LATEST_TIME = datetime(9999, 1, 1, tzinfo=UTC)


def aware(at: datetime) -> datetime:
    """``at`` on the game clock: unchanged with an offset, read as UTC without one."""
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def _require_in_range(at: datetime, what: str) -> datetime:
    """``at`` on the game clock, or :class:`IllegalActionError` ``bad_time`` out of range."""
    at = aware(at)
    if not EARLIEST_TIME <= at < LATEST_TIME:
        raise IllegalActionError("bad_time", f"{what}超出可用范围（1970年至9998年）：{at:%Y-%m-%d}")
    return at


_VOTER = operator.attrgetter("voter")


class _Ended(Exception):
    """Raised inside a hook once ``GameEnded`` has been emitted: stop resolving."""


_POLICIES: dict[int, tuple[RulesetParams, VotePolicy]] = {}


def vote_policy_for(params: RulesetParams) -> VotePolicy:
    """The ruleset's :class:`~game_rules.votes.VotePolicy` (its votes YAML + ``vote_policy``)."""
    cached = _POLICIES.get(id(params))
    if cached is not None and cached[0] is params:
        return cached[1]
    mapping = dict(params.vote_policy)
    try:
        policy = VotePolicy.from_mapping(mapping, ruleset=params.engine)
    except UnknownRulesetError:
        policy = VotePolicy.from_mapping(mapping)
    if len(_POLICIES) < 256:
        _POLICIES[id(params)] = (params, policy)
    return policy


_ISO: dict[datetime, str] = {}


def iso_time(at: datetime) -> str:
    """``at.isoformat()``, kept for UTC times (a random game's synthetic ballot times repeat from
    game to game; other offsets are not cached: an equal instant in another offset is an equal
    key with another text; nor are datetime subclasses, whose text may differ)."""
    if at.tzinfo is not UTC or type(at) is not datetime:
        return at.isoformat()
    text = _ISO.get(at)
    if text is None:
        if len(_ISO) >= 65536:
            _ISO.clear()
        text = _ISO[at] = at.isoformat()
    return text


@lru_cache(maxsize=256)
def day_base(day: int) -> datetime:
    """Synthetic start of ``day`` for games played without timestamps."""
    return BASE_TIME + timedelta(days=day)


# compiled by mypyc (setup.py), yet engines written elsewhere, as plain Python, may extend it
@mypyc_attr(allow_interpreted_subclasses=True)
class WerewolfRuleset(Ruleset):
    """Day votes, sheriff, last words, decisions, red cards; nights are the subclass's."""

    #: decisions of one actor are taken in this order (M08: 最后一枪 before 殉职)
    decision_order: ClassVar[tuple[str, ...]] = ("shoot", "succession", "leader_succession")

    def __init__(self, params: RulesetParams) -> None:
        super().__init__(params)
        self.policy = vote_policy_for(params)
        #: the facts each day opens with (the ruleset's ``day_opening``), and their one wording
        self.opening: tuple[str, ...] = day_opening(params.raw)
        self.words: Wording = wording()
        self._decision_keys: frozenset[str] | None = None
        self.sheriff_weight = params.sheriff_weight or Fraction(1)
        self.day1_vote = str(params.extra.get("day1_vote", "elect"))
        if self.day1_vote not in {"elect", "elect_and_eliminate", "eliminate"}:
            raise ParameterError(message=f"day1_vote: unknown value {self.day1_vote!r}")
        if params.tie_rule not in {"none", "sheriff_then_none"}:
            raise ParameterError(message=f"tie_rule: unknown value {params.tie_rule!r}")

    # =========================================================================================
    # hooks for concrete engines
    def tell_teams(self, game: Game) -> None:
        """Opening private messages (teammates, role notices)."""

    def day_announcements(self, game: Game, day: int) -> None:
        """Emit the 公示 of a day's start (eliminations of the previous day, status...)."""

    def hidden_extra(self, state: GameState) -> dict[str, Fraction]:
        """Hidden additions to today's tally (M72's big crow)."""
        return {}

    def on_night_start(self, game: Game) -> None:
        """Called after a night's ``PhaseStarted``."""

    def night_skill(self, game: Game, action: UseSkill) -> None:
        """Validate and record a night skill."""
        raise NotYourSkillError(message=f"没有技能 {action.skill}")

    def night_options(self, state: GameState, actor: str) -> list[Action]:
        """Legal night actions of ``actor``."""
        return []

    def night_actors(self, state: GameState) -> list[str]:
        """Living characters who may have night actions tonight (superset; seating order)."""
        return state.living()

    def resolve_night(self, game: Game) -> None:
        """Resolve the night (defaults for missing actions first)."""

    def continue_night(self, game: Game) -> None:
        """Resume a night resolution paused for a decision (M08's 最后一枪)."""

    def on_eliminated(self, game: Game, character: str, cause: str) -> None:
        """Consequences of one elimination (decisions, 激励...). Base: the sheriff's 殉职."""
        state = game.state
        if character == state.sheriff:
            if cause == RED_CARD:
                self.random_sheriff(game)
            else:
                self.open_decision(game, character, "succession", "请选择继任警长（殉职）")

    def check_end(self, game: Game) -> bool:
        """Judge win/lose now (subclasses)."""
        raise NotImplementedError

    # =========================================================================================
    # dispatch
    def start(self, game: Game) -> None:
        """Teams are told, then day 1 starts."""
        self.tell_teams(game)
        self.start_day(game, 1)

    def handle(self, game: Game, action: Action) -> None:
        """Dispatch one action (see the module docstring)."""
        if type(action) is CastVote:  # the most frequent action by far; a ballot ends no game
            self.cast_vote(game, action)
            return
        try:
            self._dispatch(game, action)
        except _Ended:
            return

    def _dispatch(self, game: Game, action: Action) -> None:
        state = game.state
        if isinstance(action, UseSkill):
            game.require_character(action.actor)
            if (action.actor, action.skill) in state.decisions:
                self.decide(game, action)
            elif action.skill in self.decision_keys():
                raise PendingDecisionError(
                    "no_open_decision", f"{action.actor}现在没有需要决定的<{action.skill}>"
                )
            else:
                if state.phase != NIGHT or state.flags.get("night_closed"):
                    raise WrongPhaseError("skill_outside_night", "夜晚技能只能在夜晚发动")
                if action.actor not in state.alive:
                    raise DeadActorError(message=f"{action.actor}已出局，不能发动技能")
                self.night_skill(game, action)
        elif isinstance(action, CloseDay):
            self.close_day(game, action)
        elif isinstance(action, EndNight):
            if state.phase != NIGHT or state.flags.get("night_closed"):
                raise WrongPhaseError("not_night", "现在不是夜晚")
            if state.decisions:
                raise PendingDecisionError(message="仍有未完成的决定")
            game.emit(FlagSet("night_closed", True))
            self.resolve_night(game)
            self.advance(game)
        elif isinstance(action, DeadlinePassed):
            self.deadline_passed(game)
        elif isinstance(action, LeaveLastWords):
            self.leave_last_words(game, action)
        elif isinstance(action, ScheduleDay):
            self.schedule_day(game, action)
        else:
            raise IllegalActionError("unknown_action", f"unknown action {action!r}")

    folded_events: ClassVar[frozenset[type[Event]] | None] = frozenset(
        {VoteCast, PhaseStarted, FlagSet}
    )

    def fold(self, state: GameState, event: Event) -> None:
        """Fold the vote box and per-phase flags (kept in ``state.flags``)."""
        # exact types: event classes cannot be subclassed (game_rules.frozen)
        kind = type(event)
        if kind is VoteCast:
            cache = state.box_cache
            if cache is not None and cache[0] is event:
                index, kept = cache[1]
                state.box_cache = None
            else:  # rebuilding from a log: judge the ballot as cast_vote did
                index, kept = admit_ballot(
                    state.day_ballots,
                    state.changes_voided,
                    self.ballot_of(cast(VoteCast, event)),
                    policy=self.policy,
                    closes_at=self.closes_at(state),
                    accelerated=bool(state.flags.get("accelerated")),
                )
            state.keep_ballot(index, kept)
        elif kind is PhaseStarted:
            for key in ("day_closed", "night_closed", "closes_at", "accelerated"):
                state.flags.pop(key, None)
        elif (
            kind is FlagSet
            and cast(FlagSet, event).key == "accelerated"
            and cast(FlagSet, event).value
            and state.day_ballots
            and self.policy.acceleration_voids_changes
            and not state.changes_voided
        ):
            state.void_changes()

    # =========================================================================================
    # day
    def schedule_day(self, game: Game, action: ScheduleDay) -> None:
        """Set the day's closing time and/or 加速."""
        state = game.state
        if state.phase != DAY or state.flags.get("day_closed"):
            raise WrongPhaseError("not_day", "现在不是讨论日")
        if action.closes_at is not None:
            closes_at = _require_in_range(action.closes_at, "关门时间")
            game.emit(FlagSet("closes_at", closes_at.isoformat()))
        if action.accelerated is not None:
            game.emit(FlagSet("accelerated", bool(action.accelerated)))

    def closes_at(self, state: GameState) -> datetime | None:
        """The current day's 关门 time, None until the director schedules it (nothing is late
        before that: votes.admit_ballot)."""
        raw = state.flags.get("closes_at")
        if raw:
            return aware(datetime.fromisoformat(raw))  # logs written before the clock was aware
        return None

    @staticmethod
    def ballot_of(e: VoteCast) -> Ballot:
        """The ``votes.Ballot`` a ``VoteCast`` event records."""
        return Ballot(
            voter=e.voter,
            target=e.target,
            at=aware(datetime.fromisoformat(e.at)) if e.at else BASE_TIME,
            proxy=e.proxy,
            is_change=e.is_change,
            post_id=e.post_id,
            requested_at=aware(datetime.fromisoformat(e.requested_at)) if e.requested_at else None,
            conditional=e.conditional,
            replies_to=e.replies_to,
            reason=e.reason,
        )

    def voters(self, state: GameState) -> set[str]:
        """Who may still cast ballots today (living, not awaiting a red-card exit)."""
        deferred = state.flags.get("deferred_cards")
        return state.alive.difference(deferred) if deferred else state.alive

    def cast_vote(self, game: Game, a: CastVote) -> None:
        """Validate a ballot with ``votes.BallotBox.cast`` and record it."""
        state = game.state
        flags = state.flags
        if state.phase != DAY or flags.get("day_closed"):
            raise WrongPhaseError("vote_outside_day", "只能在讨论日投票")
        voter, target = a.voter, a.target
        alive = state.alive
        if voter not in alive:  # the living are characters: only the rare miss looks further
            game.require_character(voter)
            raise DeadActorError("dead_voter", f"{voter}已出局，不能投票")
        deferred = flags.get("deferred_cards")
        if deferred and voter in deferred:
            raise DeadActorError("carded_voter", f"{voter}已被红牌罚下，不能投票")
        if target is not None and target not in alive:
            game.require_character(target)
            raise InvalidTargetError("dead_target", f"{target}已出局，不能被投票")
        history = state.day_ballots
        closes_at = self.closes_at(state)
        at = a.at
        if at is None:
            # untimed ballots (arrival order): one second after the previous one, the first a day
            # before the close, or before the day's synthetic close (year 2000) if none is set
            if history:
                at = history[-1].at + SECOND
            else:
                at = (closes_at or day_base(state.day + 1)) - DAY_SPAN + SECOND
        else:
            at = _require_in_range(at, "投票时间")
        requested_at = a.requested_at
        if requested_at is not None:
            requested_at = _require_in_range(requested_at, "代投请求时间")
        ballot = Ballot(
            voter,
            target,
            at,
            a.proxy,
            a.is_change,
            a.post_id,
            requested_at,
            a.conditional,
            a.replies_to,
            a.reason,
        )
        # voter and target were checked above (same rules, the engine's own errors)
        verdict = admit_ballot(
            history,
            state.changes_voided,
            ballot,
            policy=self.policy,
            closes_at=closes_at,
            accelerated=bool(flags.get("accelerated")),
        )
        index, kept = verdict
        if index is not None:  # an edit of an earlier post: the voter's vote as it now stands
            edited = [*history]
            edited[index] = kept
            kept = BallotBox(tuple(edited), state.changes_voided).current().get(voter, ballot)
        event = VoteCast(
            voter,
            kept.target,
            state.day,
            iso_time(at),
            a.proxy,
            kept.is_change,
            a.post_id,
            a.reason,
            a.replies_to,
            requested_at.isoformat() if requested_at else None,
            a.conditional,
        )
        state.box_cache = (event, verdict)
        game.emit(event)

    def tally_today(self, state: GameState) -> Tally:
        """Today's weighted tally (sheriff weight, extras; the dead neither vote nor count)."""
        box = state.vote_box
        sheriff = state.sheriff
        alive = state.alive
        weights = None
        if sheriff is not None and sheriff in alive:
            weights = {sheriff: self.sheriff_weight}
        exclude = set(map(_VOTER, box.history)).difference(alive)
        # M08/004 白天红牌罚下在被投票出局之前: a character out before the close is no target
        void = {b.target for b in box.history if b.target is not None}.difference(alive)
        return tally(box, weights, self.hidden_extra(state), exclude=exclude, void_targets=void)

    @staticmethod
    def living_top(state: GameState, t: Tally) -> tuple[str, ...]:
        """Top targets among living characters (votes on an ejected character are void)."""
        alive = state.alive
        best = 0
        tops: list[str] = []
        for c, n in t.count_units.items():
            if n < best or n <= 0 or c not in alive:
                continue
            if n > best:
                best = n
                tops = [c]
            else:
                tops.append(c)
        if len(tops) < 2:
            return tuple(tops)
        big = t.step_count + 1
        first = t.first_vote
        return tuple(sorted(tops, key=lambda c: (first.get(c, big), c)))

    def close_day(self, game: Game, action: CloseDay) -> None:
        """关门: tally, announce, elect the sheriff (day 1) or vote out, then consequences."""
        state = game.state
        if state.phase != DAY or state.flags.get("day_closed"):
            raise WrongPhaseError("not_day", "现在不是讨论日")
        day = state.day
        t = self.tally_today(state)
        tops = self.living_top(state, t)
        elect = day == 1 and self.day1_vote in {"elect", "elect_and_eliminate"}
        eliminate = day > 1 or self.day1_vote in {"elect_and_eliminate", "eliminate"}
        sheriff: str | None = None
        if elect and tops:
            first = t.first_to_reach_top()
            sheriff = first if first in tops else tops[0]
        out: str | None = None
        if eliminate and tops:
            if len(tops) == 1:
                out = tops[0]
            elif self.params.tie_rule == "sheriff_then_none" and state.sheriff in state.alive:
                ballot = state.vote_box.current().get(state.sheriff or "")
                if ballot is not None and ballot.target in tops:
                    out = ballot.target
        game.emit(FlagSet("day_closed", True))
        self.expire_last_words(game, everyone=True)
        game.emit(
            VotesTallied(
                day,
                t.count_texts(),
                tops,
                out if eliminate else sheriff,
            )
        )
        game.emit(Announced(day, DAY, t.announcement(), "tally"))
        words = self.words
        if sheriff is not None:
            game.emit(SheriffChanged(sheriff, "elected", day))
            game.emit(
                Announced(day, DAY, words.line("elected", name=sheriff), "sheriff", (sheriff,))
            )
            game.emit(Told((sheriff,), day, "你当选警长", "sheriff"))
        elif elect:
            game.emit(Announced(day, DAY, words.line("no_sheriff"), "sheriff"))
        if eliminate:
            if out is not None:
                game.emit(Announced(day, DAY, words.line("voted_out", name=out), "out", (out,)))
                self.eliminate(game, out, VOTE)
            elif len(tops) > 1:
                game.emit(Announced(day, DAY, words.line("tie"), "out"))
            else:
                game.emit(Announced(day, DAY, words.line("nobody_out"), "out"))
        for carded in list(state.flags.get("deferred_cards") or ()):
            # M72: 白天红牌罚下导致的出局结算在投票结算之后执行
            self.eliminate(game, carded, RED_CARD)
        if state.flags.get("deferred_cards"):
            game.emit(FlagSet("deferred_cards", []))
        self.advance(game)

    # =========================================================================================
    # phases
    def start_day(self, game: Game, day: int) -> None:
        """Begin day ``day``: expire last words due, then the day's 公示."""
        self.expire_last_words(game, everyone=False, next_day=day)
        game.emit(PhaseStarted(DAY, day))
        self.day_announcements(game, day)

    def start_night(self, game: Game) -> None:
        """Begin the night that follows the current day."""
        game.emit(PhaseStarted(NIGHT, game.state.day))
        self.on_night_start(game)

    def advance(self, game: Game) -> None:
        """Move on when nothing is left open: day -> night -> (resume night) -> next day."""
        state = game.state
        if state.decisions or state.ended:
            return
        if state.phase == DAY and state.flags.get("day_closed"):
            self.start_night(game)
        elif state.phase == NIGHT and state.flags.get("night_closed"):
            self.continue_night(game)
            if not state.decisions:
                self.start_day(game, state.day + 1)

    def announce(
        self, game: Game, text: str, kind: str = "info", names: tuple[str, ...] = ()
    ) -> None:
        """公示 now by day; at night, keep it for the next day's start (夜晚期间需要公示的内容全部在
        下一个白天开始时公布)."""
        state = game.state
        if state.phase == NIGHT:
            news = list(state.flags.get("night_news") or ())
            game.emit(FlagSet("night_news", [*news, [text, kind, list(names)]]))
        else:
            game.emit(Announced(state.day, state.phase, text, kind, names))

    def opening_announcements(self, game: Game, day: int) -> None:
        """The facts the ruleset's days open with (``day_opening``, in its seed's order), each in
        its one wording; facts about the previous day are left out on day 1."""
        state = game.state
        words = self.words
        prev = day - 1
        for fact in self.opening:
            names: list[str]
            kind = "out"
            if fact == "voted_out":  # 前一天因投票出局角色名单
                names = [
                    e.character
                    for e in state.eliminations
                    if e.day == prev and e.phase == DAY and e.cause == VOTE
                ]
            elif fact == "night_out":  # 夜晚出局角色名单 / 昨晚出局角色名单
                names = [
                    e.character for e in state.eliminations if e.day == prev and e.phase == NIGHT
                ]
            elif fact == "out":  # 前一天出局角色名单
                names = [e.character for e in state.eliminations if e.day == prev]
            elif fact == "sheriff":  # 当日警长
                sheriff = state.sheriff
                names = [sheriff] if sheriff is not None and sheriff in state.alive else []
                kind = "status"
            else:  # living: 存活角色状态
                names = state.living()
                kind = "status"
            if kind == "out" and prev < 1:
                continue
            game.emit(Announced(day, DAY, words.fact(fact, names), kind, tuple(names)))

    def finish(self, game: Game, winner: str | None, results: dict[str, str], reason: str) -> None:
        """End the game. At night, that night's deaths (and what else waited for the morning) are
        announced first: the game ends before the next day could open with them."""
        state = game.state
        if state.phase == NIGHT:
            names = [
                e.character for e in state.eliminations if e.day == state.day and e.phase == NIGHT
            ]
            text = self.words.fact("night_out", names)
            game.emit(Announced(state.day, NIGHT, text, "out", tuple(names)))
            news = state.flags.get("night_news") or ()
            for text, kind, listed in news:
                game.emit(Announced(state.day, NIGHT, text, kind, tuple(listed)))
            if news:
                game.emit(FlagSet("night_news", []))
        game.end(winner, results, reason)

    def publish_night_news(self, game: Game, day: int) -> None:
        """Emit the announcements kept during the night."""
        news = game.state.flags.get("night_news") or ()
        for text, kind, names in news:
            game.emit(Announced(day, DAY, text, kind, tuple(names)))
        if news:
            game.emit(FlagSet("night_news", []))

    # =========================================================================================
    # eliminations, judging
    def eliminate(self, game: Game, character: str, cause: str, by: str | None = None) -> bool:
        """Eliminate ``character`` (no-op if already out), grant last words, consequences, judge."""
        state = game.state
        if character not in state.alive:
            return False
        game.emit(Eliminated(character, cause, state.day, state.phase, by))
        if cause != RED_CARD:
            self.grant_last_words(game, character)
        self.on_eliminated(game, character, cause)
        self.judge(game)
        return True

    def judge(self, game: Game) -> None:
        """Run the ruleset's end check; stop the current resolution if the game ended."""
        if self.check_end(game):
            raise _Ended

    # =========================================================================================
    # decisions (殉职, 最后一枪, 传位)
    def decision_handlers(self) -> dict[str, Any]:
        """decision key -> (take(game, action), default(game, actor), options(state, actor))."""
        return {
            "succession": (self.take_succession, self.default_succession, self.succession_options)
        }

    def decision_keys(self) -> frozenset[str]:
        """The keys of :meth:`decision_handlers` (asked on every skill; built once)."""
        keys = self._decision_keys
        if keys is None:
            keys = self._decision_keys = frozenset(self.decision_handlers())
        return keys

    def open_decision(self, game: Game, actor: str, decision: str, prompt: str) -> None:
        """Open a decision the rules require of ``actor``."""
        game.emit(DecisionOpened(actor, decision, game.state.day))
        game.emit(Told((actor,), game.state.day, prompt, decision))

    def decide(self, game: Game, action: UseSkill) -> None:
        """Take an open decision (in :attr:`decision_order` per actor)."""
        state = game.state
        rank = self.decision_order.index(action.skill)
        for actor, decision in state.decisions:
            if actor == action.actor and self.decision_order.index(decision) < rank:
                raise PendingDecisionError("decision_order", f"{actor}须先决定<{decision}>")
        take = self.decision_handlers()[action.skill][0]
        take(game, action)
        self.advance(game)

    def deadline_passed(self, game: Game) -> None:
        """Every open decision takes its default (seed's 行动时限)."""
        state = game.state
        if not state.decisions:
            raise IllegalActionError("no_open_decision", "没有未完成的决定")
        handlers = self.decision_handlers()
        while state.decisions:
            pending = sorted(state.decisions, key=lambda k: self.decision_order.index(k[1]))
            actor, decision = pending[0]
            handlers[decision][1](game, actor)
        self.advance(game)

    def tell_step(self, game: Game, step: Step) -> None:
        """A night's ``tell`` step as the private notice its character receives."""
        assert step.character is not None
        detail = dict(step.value or {})
        game.emit(Told((step.character,), game.state.day, step.detail, step.by or "info", detail))

    def succession_options(self, state: GameState, actor: str) -> list[Action]:
        """Legal successors of a dead sheriff."""
        return [UseSkill(actor, "succession", c) for c in state.living() if c != actor]

    def take_succession(self, game: Game, action: UseSkill) -> None:
        """殉职: the dead sheriff names a living successor."""
        state = game.state
        target = action.target
        if target is None:
            raise InvalidTargetError("succession_required", "殉职<强制>：须选择一名未出局的角色")
        game.require_character(target)
        if target not in state.alive:
            raise InvalidTargetError("dead_target", f"{target}已出局，不能继任警长")
        game.emit(DecisionClosed(action.actor, "succession", target, "chosen"))
        game.emit(SheriffChanged(target, "successor", state.day))
        text = self.words.line("succession", by=action.actor, name=target)
        self.announce(game, text, "sheriff", (target,))
        game.emit(Told((target,), state.day, "你继任警长", "sheriff"))

    def default_succession(self, game: Game, actor: str) -> None:
        """Missed deadline: the successor is picked at random (M08 行动时限)."""
        game.emit(DecisionClosed(actor, "succession", None, "deadline"))
        self.random_sheriff(game)

    def random_sheriff(self, game: Game) -> None:
        """A random living successor (红牌罚下 / missed deadline)."""
        state = game.state
        living = state.living()
        if not living:
            game.emit(SheriffChanged(None, "none", state.day))
            return
        pick = game.pick("sheriff", living)
        game.emit(SheriffChanged(pick, "random", state.day))
        self.announce(game, self.words.line("random_sheriff", name=pick), "sheriff", (pick,))
        game.emit(Told((pick,), state.day, "你被随机指定为警长", "sheriff"))

    # =========================================================================================
    # last words
    def grant_last_words(self, game: Game, character: str) -> None:
        """Grant last words if the quota allows (放弃遗言不会使留遗言的权利留给以后出局的角色)."""
        state = game.state
        quota = self.params.last_words
        if quota is not None and len(state.last_words_granted) >= quota:
            return
        game.emit(LastWordsGranted(character, state.day))
        game.emit(Told((character,), state.day, "你可以留下遗言", "last_words"))

    def leave_last_words(self, game: Game, action: LeaveLastWords) -> None:
        """Record last words; published at the next day's start (or now if that day has begun)."""
        state = game.state
        game.require_character(action.actor)
        if action.actor not in state.last_words_granted:
            raise NotYourSkillError("no_last_words", f"{action.actor}没有遗言权利")
        if action.actor in state.last_words_given:
            raise IllegalActionError("last_words_given", f"{action.actor}已经留过（或放弃了）遗言")
        game.emit(LastWordsGiven(action.actor, action.text, state.day))
        if action.text is not None and self._words_publish_now(state, action.actor):
            text = self.words.line("last_words", name=action.actor, text=action.text)
            game.emit(Announced(state.day, state.phase, text, "words", (action.actor,)))

    @staticmethod
    def _eliminated_at(state: GameState, character: str) -> tuple[int, str]:
        for e in state.eliminations:
            if e.character == character:
                return e.day, e.phase
        return state.day, state.phase

    def _words_publish_now(self, state: GameState, character: str) -> bool:
        day, phase = self._eliminated_at(state, character)
        # a night death's words are given during the next day, published at once
        return state.phase == DAY and phase == NIGHT and day == state.day - 1

    def expire_last_words(self, game: Game, *, everyone: bool, next_day: int = 0) -> None:
        """Rights not used by their deadline lapse (视为放弃遗言).

        At a day's start (``everyone`` False) the rights of the previous day's eliminations
        lapse ("在次日游戏日开始前"); a night death keeps its right until that day closes, when
        (``everyone`` True) every open right lapses.
        """
        state = game.state
        for c in list(state.last_words_granted):
            if c in state.last_words_given:
                continue
            if not everyone:
                day, phase = self._eliminated_at(state, c)
                if phase == NIGHT and day == next_day - 1:
                    continue
            game.emit(LastWordsGiven(c, None, state.day))

    def publish_last_words(self, game: Game, day: int) -> None:
        """Announce last words given since the previous day started and not yet published."""
        state = game.state
        given = state.last_words_given
        waiting = [c for c in state.last_words_granted if given.get(c) is not None]
        if not waiting:  # most days: no words at all, so no need to look through the 公示
            return
        published = {
            a.characters[0] for a in state.announcements if a.kind == "words" and a.characters
        }
        for c in waiting:
            if c not in published:
                text = self.words.line("last_words", name=c, text=str(given[c]))
                game.emit(Announced(day, DAY, text, "words", (c,)))

    # =========================================================================================
    # red cards
    def eject(self, game: Game, action: Eject) -> None:
        """红牌罚下: announced at once; timing per ``red_card_timing``; no words/shot/choice."""
        state = game.state
        c = action.character
        game.require_character(c)
        if not action.cause.strip():
            raise IllegalActionError("card_cause", "红牌须写明原因")
        faction = state.factions[c]
        if action.faction_loses:
            self.validate_faction_loss(state, faction)
        try:
            deferred = list(state.flags.get("deferred_cards") or ())
            already = c not in state.alive or c in deferred
            game.emit(Carded(c, action.cause, state.day, state.phase, "red", already))
            if not already:
                text = self.words.line("red_card", name=c)
                game.emit(Announced(state.day, state.phase, text, "card", (c,)))
                if (
                    self.params.red_card_timing == "after_vote"
                    and state.phase == DAY
                    and not state.flags.get("day_closed")
                ):
                    game.emit(FlagSet("deferred_cards", [*deferred, c]))
                else:
                    self.eliminate(game, c, RED_CARD)
            if action.faction_loses:
                game.emit(FactionLost(faction, RED_CARD))
                self.judge(game)
            self.advance(game)
        except _Ended:
            pass

    def declare_lost(self, game: Game, action: Any) -> None:
        """Director's 判负 (with the end check)."""
        self.validate_faction_loss(game.state, action.faction)
        try:
            game.emit(FactionLost(action.faction, action.reason))
            self.judge(game)
        except _Ended:
            pass

    # =========================================================================================
    # legal actions
    def legal_actions(self, state: GameState, actor: str | None = None) -> list[Action]:
        """Legal actions now (timestamps are not considered; last-words text is free)."""
        out: list[Action] = []
        if state.ended:
            return out
        if state.decisions:
            handlers = self.decision_handlers()
            first: dict[str, str] = {}
            for who, decision in state.decisions:
                rank = self.decision_order.index(decision)
                if who not in first or rank < self.decision_order.index(first[who]):
                    first[who] = decision
            for who, decision in first.items():
                if actor is None or who == actor:
                    out.extend(handlers[decision][2](state, who))
            if actor is None:
                out.append(DeadlinePassed())
            return out
        if state.phase == DAY and not state.flags.get("day_closed"):
            if actor is None:
                out.append(CloseDay())
            elif actor in self.voters(state):
                out.extend(self.vote_options(state, actor))
        elif state.phase == NIGHT and not state.flags.get("night_closed"):
            if actor is None:
                out.append(EndNight())
            elif actor in state.alive:
                return self.night_options(state, actor)  # a fresh list: asked very often
        return out

    def director_actions(self, state: GameState) -> list[Action]:
        """The base list, then: by day until the vote closes, one ``ScheduleDay`` switching 加速
        on, or off again (M72: 延迟成功时，不再视为执行加速) — a closing time is any time, so
        none is listed; then the last words of every open right, and their ``None`` form
        (放弃遗言)."""
        out = super().director_actions(state)
        if state.ended:
            return out
        if state.phase == DAY and not state.flags.get("day_closed"):
            out.append(ScheduleDay(accelerated=not state.flags.get("accelerated")))
        given = state.last_words_given
        for c in state.last_words_granted:
            if c not in given:
                out += [LeaveLastWords(c, LAST_WORDS_PLACEHOLDER), LeaveLastWords(c, None)]
        return out

    def pending_actors(self, state: GameState) -> list[str]:
        """Who may act now: open decisions' actors, tonight's skill holders, today's voters."""
        if state.ended:
            return []
        if state.decisions:
            waiting = {who for who, _ in state.decisions}
            return [c for c in state.characters if c in waiting]
        if state.phase == NIGHT and not state.flags.get("night_closed"):
            return self.night_actors(state)
        if state.phase == DAY and not state.flags.get("day_closed"):
            voters = self.voters(state)
            return [c for c in state.characters if c in voters]
        return state.living()  # other phases (wa004's start) answer for the living

    def vote_options(self, state: GameState, actor: str) -> list[Action]:
        """Ballots ``actor`` may cast now (first ballot, or a change within the limit)."""
        box = state.vote_box
        current = box.current().get(actor)
        targets: list[str | None] = [*state.living(), None]
        if current is None:
            return [CastVote(actor, t) for t in targets]
        limit = self.policy.max_changes
        if state.flags.get("accelerated") and not self.policy.changes_when_accelerated:
            return []
        if limit is not None and box.changes_of(actor) >= limit:
            return []
        return [CastVote(actor, t, is_change=True) for t in targets if t != current.target]
