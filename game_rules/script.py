"""YAML game scripts: a whole game written down, replayable step by step.

Format (full reference: docs/game-script.md)::

    ruleset: m72
    seed: "m72-demo"
    players: [饺子, 包子, ...]            # characters in seating order (or {character, player})
    roles: {饺子: wolf}                    # optional, some or all roles fixed
    aliases: {饺子: [jiaozi]}              # optional, names accepted in vote posts
    setup: [...]                           # optional steps before day 1 (wa004 true love)
    days:
      - day: 1
        date: 2026-11-01                   # lets steps write only "HH:MM"
        closes: "22:00"
        steps: [...]                       # the day: posts, votes, cards, substitutions...
        after_close: [...]                 # after the tally: 殉职, 最后一枪, 传位, 遗言
        night: [...]                       # night skills
        after_night: [...]                 # decisions the night's deaths require
    expect: {winner: villagers, eliminated: [包子, 饺子]}

Each step is a mapping with one action key (``post``, ``vote``, ``skill``, ``card``, ``eject``,
``substitute``, ``last_words``, ``accelerate``, ``deadline``, ``declare_lost``) and optionally
``at``. A step that breaks a rule is a :class:`~game_rules.errors.ScriptError` naming the file,
line and step, unless it says ``expect_error: <rule>``. Vote posts that are invalid (废票) or
rejected by the vote rules are not errors: they are reported as notes, as the seeds prescribe.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import yaml

# Repeated on purpose: each module imports by name what it uses (an import list, not logic).
from game_rules.actions import (
    Action,
    CastVote,
    CloseDay,
    DeadlinePassed,
    DeclareFactionLost,
    Eject,
    EndNight,
    LeaveLastWords,
    ScheduleDay,
    Substitute,
    UseSkill,
)
from game_rules.errors import GameRuleError, ScriptError
from game_rules.events import GameStarted
from game_rules.game import Game, new_game
from game_rules.penalties import (
    Article,
    Card,
    CardColour,
    CardLedger,
    CardSource,
    DayActivity,
    PenaltyRules,
    activity_penalties,
    load_penalty_rules,
)
from game_rules.state import DAY, NIGHT
from game_rules.votes import InvalidVoteError, VoteRejectedError, parse_vote

LINE_KEY = "__line__"
STEP_KINDS = (
    "card",
    "post",
    "vote",
    "skill",
    "eject",
    "substitute",
    "last_words",
    "accelerate",
    "request_acceleration",
    "deadline",
    "declare_lost",
)
# night skill -> key of the ruleset's ``deadlines`` (minutes after 关门)
DEADLINE_KEYS = {
    "slander": "crow",
    "extra_kill": "kill",
    "propose": "kill",
    "duel": "kill",
    "duel_agree": "kill",
    "duel_kills": "kill",
    "save": "witch",
    "poison": "witch",
}


class _LineLoader(yaml.SafeLoader):
    """A safe loader that remembers each mapping's line (for error messages)."""


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    mapping = loader.construct_mapping(node, deep=True)
    mapping[LINE_KEY] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
# timestamps stay strings: the script's own rules (date + "HH:MM") apply, not YAML 1.1's
_LineLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


@dataclass
class ReplayResult:
    """A replayed script: the game, notes (废票, missed deadlines...) and expectation failures."""

    game: Game
    notes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    ledgers: dict[str, CardLedger] = field(default_factory=dict)

    def cards(self) -> dict[str, str]:
        """Each carded character's active cards, in Chinese (``黄牌1张``...)."""
        return {c: ledger.describe() for c, ledger in self.ledgers.items() if ledger.cards}

    def told(self) -> dict[int, list[dict[str, Any]]]:
        """The private notices (私下告知) by day: who was told what (the director's view), the
        identities dealt first (as each character is told it: M72's crows only 乌鸦)."""
        game = self.game
        state = game.state
        out: dict[int, list[dict[str, Any]]] = {}
        start = game.log[0] if game.log_length else None
        dealt = start.roles if isinstance(start, GameStarted) else {}
        for c in game.characters:
            role = dealt.get(c)
            if role is None:
                continue
            # the role as told (a role changed later is told by its own notice)
            told_as = game.ruleset.visible_role(state, c) if state.roles[c] == role else role
            text = f"你的身份：{game.ruleset.role_name(told_as)}"
            out.setdefault(0, []).append({"to": [c], "kind": "role", "text": text})
        for t in state.told:
            out.setdefault(t.day, []).append({"to": list(t.to), "kind": t.kind, "text": t.text})
        return out

    def to_dict(self, *, private: bool = False) -> dict[str, Any]:
        """JSON form: announcements by day, notes, outcome, expectation failures; with
        ``private``, also the private notices by day (``told``: never for players mid-game)."""
        view = self.game.public_view()
        data = {
            "ruleset": self.game.ruleset_id,
            "characters": list(self.game.characters),
            "commitment": view.commitment,
            "announcements": {str(d): lines for d, lines in view.by_day().items()},
            "notes": list(self.notes),
            "cards": self.cards(),
            "outcome": self.game.outcome().to_dict(),
            "expectation_failures": list(self.failures),
        }
        if private:
            data["told"] = {str(d): items for d, items in self.told().items()}
        return data


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if k != LINE_KEY}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def load_script(path: str | Path) -> dict[str, Any]:
    """Read a script file (mappings carry their line under ``__line__``)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScriptError(str(p), f"cannot read: {exc.strerror or exc}") from exc
    try:
        data = yaml.load(text, Loader=_LineLoader)  # a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{p}:{mark.line + 1}" if mark is not None else str(p)
        raise ScriptError(where, f"not valid YAML: {getattr(exc, 'problem', exc)}") from exc
    if not isinstance(data, dict):
        raise ScriptError(str(p), "a game script must be a mapping")
    return data


class _Runner:
    def __init__(self, data: Mapping[str, Any], source: str) -> None:
        self.data = data
        self.source = source
        self.notes: list[str] = []
        self.ledgers: dict[str, CardLedger] = {}
        self._penalty_rules: PenaltyRules | None = None
        self.date: date | None = None
        self.closes: datetime | None = None
        # 潜水 / 未投票 at each close (`activity: true`): each character's days so far
        self.judge_activity = bool(data.get("activity", False))
        self.activity: dict[str, list[DayActivity]] = {}
        # today's 加速 requests (character -> time), reset each day
        self.requests: dict[str, datetime | None] = {}

    def where(self, node: Any, label: str) -> str:
        line = node.get(LINE_KEY) if isinstance(node, Mapping) else None
        return f"{self.source}:{line}: {label}" if line else f"{self.source}: {label}"

    def fail(self, node: Any, label: str, message: str) -> ScriptError:
        return ScriptError(self.where(node, label), message)

    # -- set-up ------------------------------------------------------------------------------
    def create(self) -> Game:
        d = self.data
        for key in ("ruleset", "players"):
            if key not in d:
                raise self.fail(d, "script", f"missing key {key!r}")
        characters: list[str] = []
        players: dict[str, str] = {}
        raw_players = d["players"]
        if not isinstance(raw_players, list):
            raise self.fail(d, "players", "players must be a list")
        for i, item in enumerate(raw_players, 1):
            if isinstance(item, Mapping):
                name = str(item.get("character", ""))
                if item.get("player"):
                    players[name] = str(item["player"])
            else:
                name = str(item)
            if not name:
                raise self.fail(item, f"players[{i}]", "empty character name")
            characters.append(name)
        roles = _clean(d.get("roles") or {})
        params = _clean(d.get("params") or {}) or None
        if d.get("couples") is not None:  # 004: the couples drawn beforehand
            params = {**(params or {}), "couples": _clean(d["couples"])}
        try:
            return new_game(
                str(d["ruleset"]),
                characters,
                seed=str(d["seed"]) if d.get("seed") is not None else None,
                params=params,
                roles={str(k): str(v) for k, v in roles.items()},
                players=players,
                secret=str(d.get("secret") or ""),
            )
        except GameRuleError as exc:
            raise self.fail(d, "game set-up", exc.message) from exc

    # -- times -------------------------------------------------------------------------------
    def when(self, value: Any, node: Any, label: str, *, after: datetime | None = None) -> datetime:
        if isinstance(value, datetime):
            return value.replace(tzinfo=None)
        text = str(value).strip()
        if len(text) <= 5 and ":" in text and self.date is None:
            raise self.fail(node, label, f"time {text!r} needs the day's 'date'")
        try:
            if len(text) <= 5 and ":" in text and self.date is not None:
                t = time.fromisoformat(text if len(text) == 5 else f"0{text}")
                moment = datetime.combine(self.date, t)
                if after is not None and moment < after:
                    moment += timedelta(days=1)  # past midnight
                return moment
            return datetime.fromisoformat(text).replace(tzinfo=None)
        except ValueError as exc:
            raise self.fail(node, label, f"bad time {text!r}") from exc

    # -- steps -------------------------------------------------------------------------------
    def run_steps(self, game: Game, steps: Any, label: str, *, at_night: bool = False) -> None:
        if steps is None:
            return
        if not isinstance(steps, list):
            raise self.fail(steps, label, "steps must be a list")
        for i, step in enumerate(steps, 1):
            name = f"{label} step {i}"
            if not isinstance(step, Mapping):
                raise self.fail(steps, name, "each step must be a mapping")
            kinds = [k for k in STEP_KINDS if k in step]
            if len(kinds) != 1:
                raise self.fail(step, name, f"a step needs exactly one of {', '.join(STEP_KINDS)}")
            if game.state.ended:
                raise self.fail(step, name, "the game has already ended")
            kind = kinds[0]
            at = (
                self.when(step["at"], step, name, after=self.closes if at_night else None)
                if ("at" in step)
                else None
            )
            action = self.action(game, kind, step[kind], at, step, name, at_night=at_night)
            if action is None:
                continue
            expected = step.get("expect_error")
            try:
                game.apply(action)
            except GameRuleError as exc:
                if expected is not None and exc.rule == expected:
                    continue
                # a post is what a player wrote in the thread: a rejected one is just not counted
                if kind == "post" or (
                    kind == "vote" and isinstance(exc, InvalidVoteError | VoteRejectedError)
                ):
                    self.notes.append(f"{self.where(step, name)}: 票无效：{exc.message}")
                    continue
                raise self.fail(step, name, f"[{exc.rule}] {exc.message}") from exc
                if expected is not None and exc.rule == expected:
                    continue
                raise self.fail(step, name, f"[{exc.rule}] {exc.message}") from exc
            else:
                if expected is not None:
                    raise self.fail(step, name, f"expected error {expected!r}, none raised")

    def action(
        self,
        game: Game,
        kind: str,
        body: Any,
        at: datetime | None,
        node: Any,
        name: str,
        *,
        at_night: bool,
    ) -> Action | None:
        b = body if isinstance(body, Mapping) else {}

        def need(key: str) -> Any:
            if key not in b:
                raise self.fail(node, name, f"{kind}: missing {key!r}")
            return b[key]

        if kind == "post":
            voter = str(need("by"))
            if voter in game.state.status and voter not in game.state.alive:
                self.notes.append(f"{self.where(node, name)}: {self.zombie(game, voter)}")
                return None
            aliases = _clean(self.data.get("aliases") or {})
            candidates = {c: aliases.get(c, []) for c in game.state.living()}
            try:
                parsed = parse_vote(str(need("text")), candidates)
            except InvalidVoteError as exc:
                self.notes.append(
                    f"{self.where(node, name)}: {voter}的投票无效（废票）：{exc.message}"
                )
                return None
            return CastVote(
                voter,
                parsed.target,
                at=at,
                is_change=parsed.is_change,
                post_id=_opt(b.get("post_id")),
                reason=parsed.reason,
                replies_to=_opt(b.get("replies_to")),
            )
        if kind == "vote":
            requested = b.get("requested_at")
            return CastVote(
                str(need("by")),
                _opt(need("target")),
                at=at,
                proxy=bool(b.get("proxy", False)),
                is_change=bool(b.get("change", False)),
                post_id=_opt(b.get("post_id")),
                replies_to=_opt(b.get("replies_to")),
                requested_at=self.when(requested, node, name) if requested else None,
                conditional=bool(b.get("conditional", False)),
            )
        if kind == "skill":
            skill = str(need("use"))
            if at_night and at is not None and self.closes is not None:
                key = DEADLINE_KEYS.get(skill, skill)
                minutes = game.params.deadlines.get(key)
                if minutes is not None and at > self.closes + timedelta(minutes=minutes):
                    self.notes.append(
                        f"{self.where(node, name)}: {b.get('by')}的<{skill}>超过行动时限"
                        f"（关门后{minutes}分钟），视为放弃"
                    )
                    return None
            return UseSkill(
                str(need("by")),
                skill,
                _opt(b.get("target")),
                reason=_opt(b.get("reason")),
                choice=_opt(b.get("choice")),
            )
        if kind == "card":
            return self.card(game, b, at, node, name)
        if kind == "eject":
            return Eject(
                str(need("character")), str(need("cause")), bool(b.get("faction_loses", False))
            )
        if kind == "substitute":
            character, player = str(need("character")), str(need("player"))
            ledger = self.ledgers.get(character)
            if ledger is not None and character not in game.state.substituted:
                self.ledgers[character] = ledger.for_substitute(player, limit=None)
            return Substitute(character, player)
        if kind == "last_words":
            return LeaveLastWords(str(need("by")), _opt(b.get("text")))
        if kind == "accelerate":
            return ScheduleDay(accelerated=bool(body))
        if kind == "request_acceleration":
            return self.request_acceleration(game, str(need("by")), at, node, name)
        if kind == "deadline":
            return DeadlinePassed()
        if kind == "declare_lost":
            return DeclareFactionLost(str(need("faction")), str(need("reason")))
        raise self.fail(node, name, f"unknown step {kind!r}")  # pragma: no cover

    def penalty_rules(self, game: Game) -> PenaltyRules:
        if self._penalty_rules is None:
            try:
                self._penalty_rules = load_penalty_rules(game.ruleset_id)
            except GameRuleError:
                self._penalty_rules = load_penalty_rules(game.params.engine)
        return self._penalty_rules

    def card(
        self, game: Game, b: Mapping[str, Any], at: datetime | None, node: Any, name: str
    ) -> Action | None:
        """A card in the seeds' 判罚制度: kept in the character's ledger (3 blue -> 1 yellow,
        3 yellow -> 1 red); a red card, given or reached by escalation, ejects the character."""
        if "breach" in b:
            return self.breach(game, b, at, node, name)
        if "character" not in b or "colour" not in b or "reason" not in b:
            raise self.fail(node, name, "card: needs character, colour and reason (or breach)")
        rules = self.penalty_rules(game)
        try:
            colour = CardColour.parse(str(b["colour"]))
        except GameRuleError as exc:
            raise self.fail(node, name, f"[{exc.rule}] {exc.message}") from exc
        card = Card(colour, str(b["reason"]), _opt(b.get("article")), day=game.state.day, at=at)
        return self.give(game, str(b["character"]), card, rules, b, node, name)

    def breach(
        self, game: Game, b: Mapping[str, Any], at: datetime | None, node: Any, name: str
    ) -> Action | None:
        """``breach: 串号``: the article of that title, and the card it fixes (M08 串号:
        此类行为直接判作红牌); a colour given must be that one, and is needed when none is fixed."""
        if "character" not in b:
            raise self.fail(node, name, "card: needs character")
        rules = self.penalty_rules(game)
        title = str(b["breach"]).strip()
        article = _article_titled(rules, title)
        if article is None:
            raise self.fail(node, name, f"card: {rules.ruleset}的判罚依据没有「{title}」一条")
        try:
            given = CardColour.parse(str(b["colour"])) if "colour" in b else None
        except GameRuleError as exc:
            raise self.fail(node, name, f"[{exc.rule}] {exc.message}") from exc
        if given is None and article.fixed is None:
            raise self.fail(node, name, f"card: 「{title}」没有固定的判罚，须写明 colour")
        if given is not None and article.fixed is not None and given is not article.fixed:
            raise self.fail(
                node,
                name,
                f"card: 「{title}」固定判作{article.fixed.chinese}，不能判{given.chinese}",
            )
        colour = article.fixed or given or CardColour.GREEN
        reason = str(b.get("reason") or f"{title}：{article.cite()}")
        source = CardSource.FIXED if article.fixed is not None else CardSource.DECIDED
        card = Card(colour, reason, article.code, source, day=game.state.day, at=at)
        return self.give(game, str(b["character"]), card, rules, b, node, name)

    def give(
        self,
        game: Game,
        character: str,
        card: Card,
        rules: PenaltyRules,
        b: Mapping[str, Any],
        node: Any,
        name: str,
    ) -> Action | None:
        """Add ``card`` to the character's ledger (escalating); a red card ejects."""
        try:
            game.require_character(character)
            rules.check_cardable(card.colour, eliminated=character not in game.state.alive)
        except GameRuleError as exc:
            raise self.fail(node, name, f"[{exc.rule}] {exc.message}") from exc
        colour, reason = card.colour, card.reason
        player = game.state.players[character]
        ledger = self.ledgers.get(character) or rules.new_ledger(character, player)
        card = replace(card, player=player)
        ledger, ups = ledger.add(card)
        self.ledgers[character] = ledger
        self.notes.append(f"{self.where(node, name)}: {character}：{colour.chinese}（{reason}）")
        for up in ups:
            self.notes.append(f"{self.where(node, name)}: {character}：{up.describe()}")
        if colour is CardColour.RED or any(up.colour is CardColour.RED for up in ups):
            return Eject(character, reason, bool(b.get("faction_loses", False)))
        return None

    def zombie(self, game: Game, voter: str) -> str:
        """A dead character's vote post: 票无效, flagged as 诈尸 with the ruleset's article."""
        article = self.penalty_rules(game).article_for("zombie")
        cite = f"（{article.cite()}）" if article is not None else ""
        return f"诈尸：{voter}已出局，仍在投票帖发帖，票无效{cite}"

    def request_acceleration(
        self, game: Game, by: str, at: datetime | None, node: Any, name: str
    ) -> Action | None:
        """A character's 加速 request, counted against the ruleset's ``acceleration`` (threshold
        of the living, deadline before the close); reaching it switches 加速 on."""
        state = game.state
        try:
            game.require_alive(by)
        except GameRuleError as exc:
            raise self.fail(node, name, f"[{exc.rule}] {exc.message}") from exc
        if state.phase != DAY or state.flags.get("day_closed"):
            raise self.fail(node, name, "[not_day] 只能在讨论日申请加速")
        rule = acceleration_rule(game)
        if rule is None:
            raise self.fail(node, name, f"{game.ruleset_id} has no 加速 threshold (acceleration)")
        here = self.where(node, name)
        minutes = rule.get("deadline_before_close_minutes")
        quote = rule.get("quote", "")
        late = (
            minutes is not None
            and at is not None
            and self.closes is not None
            and at > self.closes - timedelta(minutes=int(minutes))
        )
        if late:
            self.notes.append(f"{here}: {by}申请加速已过时限，不计入（{quote}）")
            return None
        if by in self.requests:
            self.notes.append(f"{here}: {by}已经申请过加速")
            return None
        self.requests[by] = at
        if state.flags.get("accelerated"):
            return None
        living = len(state.alive)
        n = len(self.requests)
        reached = 2 * n >= living if rule["threshold"] == "at_least_half" else 2 * n > living
        self.notes.append(f"{here}: {by}申请加速（{n}/{living}）")
        if not reached:
            return None
        self.notes.append(f"{here}: 申请加速{n}人，存活{living}人：加速（{quote}）")
        return ScheduleDay(accelerated=True)

    def judge_day_activity(
        self, game: Game, entry: Mapping[str, Any], subjects: list[str], voted: set[str], label: str
    ) -> list[Action]:
        """潜水 and 未投票 at the close (``activity: true``), as the service judges them
        (``penalties.activity_penalties``): each fixed yellow is noted and kept in the ledger;
        a red reached by escalation ejects (returned, to apply once the close is done)."""
        rules = self.penalty_rules(game)
        state = game.state
        day = state.day
        accelerated = bool(state.flags.get("accelerated"))
        posts = _clean(entry.get("posts") or {})
        if not isinstance(posts, Mapping):
            raise self.fail(entry, label, "posts must map characters to post counts")
        default = posts.get("*", 0)
        ejects: list[Action] = []
        for c in subjects:
            raw = posts.get(c, default)
            try:
                count, water = (
                    (int(raw.get("posts", 0)), int(raw.get("water", 0)))
                    if isinstance(raw, Mapping)
                    else (int(raw), 0)
                )
            except (TypeError, ValueError) as exc:
                raise self.fail(entry, label, f"posts: {c}: not a post count: {raw!r}") from exc
            days = self.activity.setdefault(c, [])
            days.append(DayActivity(day, count, water, c in voted, accelerated))
            try:
                due = [p for p in activity_penalties(days, rules=rules) if p.day == day]
            except GameRuleError as exc:
                raise self.fail(entry, label, f"[{exc.rule}] {exc.message}") from exc
            for penalty in due:
                card = penalty.card()  # the reason worded as the service words it
                reason = f"判罚依据{penalty.article}：{penalty.reason}"
                card = replace(card, reason=reason, at=self.closes)
                action = self.give(game, c, card, rules, {}, entry, f"{label} close")
                if action is not None:
                    ejects.append(action)
        return ejects

    def apply(self, game: Game, action: Action, node: Any, label: str) -> None:
        try:
            game.apply(action)
        except GameRuleError as exc:
            raise self.fail(node, label, f"[{exc.rule}] {exc.message}") from exc

    # -- the game ----------------------------------------------------------------------------
    def run(self) -> ReplayResult:
        game = self.create()
        self.run_steps(game, self.data.get("setup"), "setup")
        days = self.data.get("days") or []
        if not isinstance(days, list):
            raise self.fail(self.data, "days", "days must be a list")
        for entry in days:
            if game.state.ended:
                raise self.fail(entry, "days", "the game ended before this day")
            self.run_day(game, entry)
        result = ReplayResult(game, self.notes, ledgers=self.ledgers)
        result.failures = self.check(game, self.data.get("expect"))
        return result

    def run_day(self, game: Game, entry: Any) -> None:
        if not isinstance(entry, Mapping) or "day" not in entry:
            raise self.fail(entry, "days", "each day needs 'day: N'")
        n = int(entry["day"])
        label = f"day {n}"
        state = game.state
        if state.phase == NIGHT and state.day == n - 1 and not state.decisions:
            # the previous entry wrote no night: nobody acted (视为放弃)
            self.apply(game, EndNight(), entry, f"night {n - 1} end")
            if state.decisions:
                raise self.fail(entry, f"night {n - 1}", _open(game) + "; add them to after_night")
        if state.phase != DAY or state.day != n:
            raise self.fail(entry, label, f"the game is at {state.phase} {state.day}, not day {n}")
        self.date = date.fromisoformat(str(entry["date"])) if entry.get("date") else None
        self.closes = self.when(entry["closes"], entry, label) if entry.get("closes") else None
        if self.closes is not None:
            self.apply(game, ScheduleDay(closes_at=self.closes), entry, label)
        self.requests = {}
        self.run_steps(game, entry.get("steps"), label)
        if state.ended:
            return
        if state.phase == DAY and not state.flags.get("day_closed"):
            deferred = set(state.flags.get("deferred_cards") or ())
            subjects = [c for c in state.living() if c not in deferred]
            voted = set(state.ballots)
            ejects: list[Action] = []
            if self.judge_activity:  # judged on the day as it closes (加速 or not)
                ejects = self.judge_day_activity(game, entry, subjects, voted, label)
            self.apply(game, CloseDay(at=self.closes), entry, f"{label} close")
            for action in ejects:  # red cards reached by escalation, after the tally
                if not state.ended:
                    self.apply(game, action, entry, f"{label} close")
        self.run_steps(game, entry.get("after_close"), f"{label} after close")
        if state.ended:
            return
        if state.decisions:
            raise self.fail(entry, label, _open(game) + "; add them to after_close or a deadline")
        if "night" not in entry and "after_night" not in entry:
            return
        self.run_steps(game, entry.get("night"), f"night {n}", at_night=True)
        if state.ended:
            return
        if state.phase == NIGHT and not state.flags.get("night_closed"):
            self.apply(game, EndNight(), entry, f"night {n} end")
        self.run_steps(game, entry.get("after_night"), f"night {n} after")
        if not state.ended and state.decisions:
            raise self.fail(entry, f"night {n}", _open(game) + "; add them to after_night")

    def check(self, game: Game, expect: Any) -> list[str]:
        if not expect:
            return []
        failures: list[str] = []
        outcome = game.outcome()
        if "winner" in expect and expect["winner"] != outcome.winner:
            failures.append(f"winner: expected {expect['winner']}, got {outcome.winner}")
        if "eliminated" in expect:
            got = [e.character for e in outcome.eliminations]
            if list(expect["eliminated"]) != got:
                failures.append(f"eliminated: expected {expect['eliminated']}, got {got}")
        if "sheriff" in expect and expect["sheriff"] != game.state.sheriff:
            failures.append(f"sheriff: expected {expect['sheriff']}, got {game.state.sheriff}")
        return failures


def acceleration_rule(game: Game) -> dict[str, Any] | None:
    """The ruleset's ``acceleration`` block: ``threshold`` (``at_least_half`` M72 大于等于存活人数
    的一半 | ``more_than_half`` M08 过半数, 004 超过二分之一), ``deadline_before_close_minutes``
    (M72: 讨论日结束三个小时前) and the seed's ``quote``; None if the ruleset has none."""
    rule = dict(game.params.raw.get("acceleration") or {})
    if rule.get("threshold") not in {"at_least_half", "more_than_half"}:
        return None
    return rule


def _article_titled(rules: PenaltyRules, title: str) -> Article | None:
    """The article of ``rules`` whose title is ``title`` (``串号``), with its single item."""
    for code, entry in rules.articles.items():
        if str(entry.get("title", "")) == title:
            return rules.article(code)
    return None


def _opt(value: Any) -> str | None:
    return None if value is None else str(value)


def _open(game: Game) -> str:
    pending = ", ".join(f"{a}: {d}" for a, d in game.state.decisions)
    return f"decisions still open ({pending})"


def run_script(data: Mapping[str, Any], source: str = "<script>") -> ReplayResult:
    """Replay a loaded script (see :func:`load_script`)."""
    return _Runner(data, source).run()


def replay_file(path: str | Path) -> ReplayResult:
    """Load and replay a script file."""
    return run_script(load_script(path), str(path))
