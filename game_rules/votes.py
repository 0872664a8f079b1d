"""Day votes: reading vote posts, the per-ruleset vote rules, the ballot box and the tally.

Four steps, each pure:

1. :func:`parse_vote` reads one post in the seeds' formats (``投票对象：X`` / ``投票理由：Y``,
   ``改票对象`` / ``改票理由``, ``弃权``) into a :class:`ParsedVote`, or raises a
   :class:`InvalidVoteError` (or its subclasses :class:`AmbiguousVoteError`,
   :class:`UnknownCandidateError`) saying what is wrong. It never guesses.
2. :class:`VotePolicy` holds one ruleset's vote rules as data (``rulesets/<id>.votes.yaml``, which
   also quotes the seed for every rule); :func:`load_vote_policy` reads it and
   :meth:`VotePolicy.from_mapping` merges a ruleset file's ``vote_policy:`` block over it.
3. :class:`BallotBox` is an immutable box for one day: :meth:`BallotBox.cast` returns a new box or
   raises :class:`VoteRejectedError` (``.rule`` names the rule, the message quotes the seed) and the
   old box is unchanged.
4. :func:`tally` weighs the current ballots (sheriff 2 or 1.5, hidden extra votes such as the big
   crow's +1) into a :class:`Tally` with :meth:`Tally.top`, :meth:`Tally.first_to_reach_top`
   (竞岗 / 争权 "最先获得") and :meth:`Tally.announcement` ("XX获得X票").

Public API::

    parse_vote(text: str, candidates: Mapping[str, Iterable[str]]) -> ParsedVote
    ParsedVote(target: str | None, reason: str, is_change: bool, written: str)
    VotePolicy(...); VotePolicy.from_mapping(data, *, ruleset=None) -> VotePolicy
    load_vote_policy(ruleset: str) -> VotePolicy
    Ballot(voter, target, at, proxy=False, is_change=False, post_id=None, requested_at=None,
           conditional=False, replies_to=None, reason="")
    Ballot.from_parsed(voter, parsed, at, *, post_id=None, replies_to=None) -> Ballot
    BallotBox().cast(ballot, *, policy, closes_at, accelerated=False, voters=None,
                     candidates=None) -> BallotBox
    BallotBox.accelerate(*, policy) -> BallotBox
    BallotBox.current() -> Mapping[str, Ballot]; BallotBox.history -> tuple[Ballot, ...]
    BallotBox.changes_of(voter) -> int
    tally(box, weights=None, extra=None, *, exclude=()) -> Tally
    Tally.counts / .shown / .abstentions / .abstainers / .top()
    Tally.count_units / .shown_units / .scale   (the same counts as ints in units of 1/scale)
    Tally.first_to_reach_top(*, sustained=False) -> str | None
    Tally.announcement() -> str
    format_votes(n: Fraction) -> str
    match_candidate(written, candidates) -> str; fold_name(text) -> str
    REJECTION_RULES: Mapping[str, str]   (every VoteRejectedError.rule and its Chinese message)

Errors: :class:`VoteError` (a :class:`game_rules.errors.GameRuleError`, hence a ``ValueError``) with
``.rule``; :class:`InvalidVoteError` (not counted: 废票) and its subclasses; and
:class:`VoteRejectedError`, also an :class:`game_rules.errors.IllegalActionError`.

>>> cands = {"饺子": ["jiaozi"], "包子": []}
>>> parse_vote("投票对象：饺子\\n投票理由：饺子好吃", cands)
ParsedVote(target='饺子', reason='饺子好吃', is_change=False, written='饺子')
>>> parse_vote("改票对象: ＪＩＡＯＺＩ 改票理由: 还是饺子", cands).target
'饺子'
>>> parse_vote("投票对象：弃权 投票理由：搞不清楚", cands).target is None
True

Readings of places where the seeds are silent: docs/rulings/votes.md.
"""

from __future__ import annotations

import math
import operator
import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from fractions import Fraction
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Any, NamedTuple

import yaml

# the vote errors live in errors.py, which mypyc leaves interpreted: a compiled class would turn
# their class-level ``default_rule`` into a per-instance default that the base never sees
from game_rules.errors import (
    AmbiguousVoteError,
    InvalidVoteError,
    ParameterError,
    UnknownCandidateError,
    UnknownRulesetError,
    VoteError,
    VoteRejectedError,
)
from game_rules.frozen import quick_frozen
from game_rules.names import ABSTAIN_WORD, VOTE_LABEL, strip_invisible

__all__ = [
    "ABSTAIN_WORD",
    "REJECTION_RULES",
    "AmbiguousVoteError",
    "Ballot",
    "BallotBox",
    "InvalidVoteError",
    "ParsedVote",
    "Tally",
    "UnknownCandidateError",
    "VoteError",
    "VotePolicy",
    "VoteRejectedError",
    "fold_name",
    "format_votes",
    "load_vote_policy",
    "match_candidate",
    "parse_vote",
    "tally",
]


#: Every ``VoteRejectedError.rule`` :meth:`BallotBox.cast` can raise, with its Chinese message.
REJECTION_RULES: Mapping[str, str] = MappingProxyType(
    {
        "vote_closed": "投票已截止，此票不计",
        "voter_not_alive": "投票者不是未出局的角色",
        "target_not_alive": "投票对象不是未出局的角色",
        "second_vote": "已经投过票；改票须使用改票格式",
        "change_without_vote": "尚未投票，不能改票",
        "change_not_reply": "改票没有引用（回复）原投票帖",
        "edit_changes_target": "编辑原投票帖改变了投票对象；修改错别字不算改票，改票须另行发帖",
        "proxy_not_allowed": "本场不允许代投",
        "proxy_conditional": "代投附带了条件，未明确指定投票对象",
        "proxy_late": "代投请求太晚，该票作废",
        "proxy_change_late": "代投改票请求太晚",
        "accelerated": "进程已加速，不允许改票",
        "last_hour": "关门前一小时内不允许改票",
        "change_limit": "改票次数已用完",
        "out_of_order": "选票早于票箱中最后一张选票；请按发帖时间顺序投入",
    }
)

# ---------------------------------------------------------------------------------------------
# Parsing

_QUOTE_TAG = re.compile(r"\[(/?)quote(?:=[^\]\n]*)?\]", re.IGNORECASE)
_DROP_BLOCK = re.compile(
    r"\[(img|attach|attachimg|media|flash|audio)(?:=[^\]\n]*)?\].*?\[/\1\]",
    re.IGNORECASE | re.DOTALL,
)
_TAG = re.compile(
    r"\[/?(?:b|i|u|s|strike|color|size|font|align|backcolor|url|email|p|indent|list|\*|float|"
    r"sup|sub|hr|table|tr|td|hide|free|spoiler|left|center|right|code|pre)(?:=[^\]\n]*)?\]",
    re.IGNORECASE,
)
_HTML_BREAK = re.compile(r"<br\s*/?>|</p\s*>", re.IGNORECASE)
# Labels after NFKC: full-width colon etc. are already ':'; spaces inside the label are tolerated;
# 對/像 cover traditional script and the common 对像 typo of the label (never of the name).
_LABEL = re.compile(r"([投改])\s*[票]\s*(?:([对對]\s*[象像])|(理\s*由))\s*[:∶]")
_LABEL_NO_COLON = VOTE_LABEL  # one pattern: names.py refuses a character name holding it
_WRAPPERS = ("「」", "『』", "“”", '""', "''", "‘’", "【】", "[]", "()", "《》", "<>", "〈〉")
_EDGE_PUNCT = " \t\r\n。，,.;；!！?？、~～:：…-—_*#"


@dataclass(frozen=True)
class ParsedVote:
    """A vote read from a post. ``target`` None means 弃权; ``written`` is the name as written."""

    target: str | None
    reason: str
    is_change: bool
    written: str = ""


@dataclass(frozen=True)
class _Label:
    change: bool
    is_object: bool
    start: int  # in the cleaned text
    end: int


def fold_name(text: str) -> str:
    """Case- and width-insensitive form of a name: NFKC, casefold, no spaces or zero-widths.

    >>> fold_name("Ｊiao Zi")
    'jiaozi'
    """
    # invisible characters (zero-width, bidi, control) are dropped: a name never holds one
    # (game_rules.names), so they can neither make nor break a match
    folded = strip_invisible(unicodedata.normalize("NFKC", text), keep="").casefold()
    return "".join(folded.split())


def _strip_quotes(text: str) -> str:
    """Drop [quote] blocks (nested) and '>'-quoted lines; an unclosed quote is an error."""
    out: list[str] = []
    depth = 0
    pos = 0
    for m in _QUOTE_TAG.finditer(text):
        if depth == 0:
            out.append(text[pos : m.start()])
        if m.group(1):  # closing tag; a stray one is just dropped
            depth = max(0, depth - 1)
        else:
            depth += 1
        pos = m.end()
    if depth > 0:
        raise InvalidVoteError(
            "quote_unclosed", "引用标签[quote]没有闭合，无法区分引用内容与本人的投票"
        )
    out.append(text[pos:])
    lines = "".join(out).split("\n")
    return "\n".join(line for line in lines if not line.lstrip().startswith((">", "＞")))


def _clean(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _HTML_BREAK.sub("\n", text).replace("&nbsp;", " ")
    text = _strip_quotes(text)
    text = _DROP_BLOCK.sub("", text)
    return strip_invisible(_TAG.sub("", text))


def _normalise_with_offsets(text: str) -> tuple[str, list[int]]:
    """NFKC per character, remembering for each output char the index of its source char."""
    parts: list[str] = []
    offsets: list[int] = []
    for i, ch in enumerate(text):
        n = unicodedata.normalize("NFKC", ch) if ord(ch) > 0x7F else ch
        parts.append(n)
        offsets.extend([i] * len(n))
    return "".join(parts), offsets


def _labels(cleaned: str) -> list[_Label]:
    norm, offsets = _normalise_with_offsets(cleaned)
    found = []
    for m in _LABEL.finditer(norm):
        found.append(
            _Label(
                change=m.group(1) == "改",
                is_object=m.group(2) is not None,
                start=offsets[m.start()],
                end=offsets[m.end() - 1] + 1,
            )
        )
    return found


def _clean_name(raw: str) -> str:
    name = raw.strip(_EDGE_PUNCT)
    changed = True
    while changed and len(name) >= 2:
        changed = False
        for pair in _WRAPPERS:
            if name[0] == pair[0] and name[-1] == pair[1]:
                name = name[1:-1].strip(_EDGE_PUNCT)
                changed = True
    return name.lstrip("@＠").strip()


def _aliases(value: Iterable[str] | str) -> tuple[str, ...]:
    # a bare string is one alias, not an iterable of characters
    return (value,) if isinstance(value, str) else tuple(str(a) for a in value)


def match_candidate(written: str, candidates: Mapping[str, Iterable[str]]) -> str:
    """The canonical name ``written`` designates: exact name, folded name, then a unique alias.

    >>> match_candidate("ａｂｃ", {"ABC": [], "饺子": ["abc"]})
    'ABC'
    >>> match_candidate("jz", {"饺子": ["JZ"], "包子": []})
    '饺子'
    """
    if written in candidates:
        return written
    key = fold_name(written)
    if not key:
        raise InvalidVoteError("empty_target", "投票对象为空")
    by_name = [name for name in candidates if fold_name(name) == key]
    if len(by_name) == 1:
        return by_name[0]
    if len(by_name) > 1:
        raise AmbiguousVoteError(written, by_name)
    by_alias = [
        name
        for name, aliases in candidates.items()
        if any(fold_name(a) == key for a in _aliases(aliases))
    ]
    if len(by_alias) == 1:
        return by_alias[0]
    if len(by_alias) > 1:
        raise AmbiguousVoteError(written, by_alias)
    raise UnknownCandidateError(written)


def parse_vote(text: str, candidates: Mapping[str, Iterable[str]]) -> ParsedVote:
    """Read one vote post.

    ``candidates`` maps each living character's canonical name to its aliases. The post must
    hold exactly one object label and one reason label of the same kind (投票 or 改票), each
    followed by a colon of either width; the object ends at the end of its line or at the next
    label (M72: "投票对象与投票理由之间可以不换行"); the reason runs to the next label or the end
    of the post.
    Quoted text ([quote]...[/quote], nested, and lines starting with '>') is ignored, BBCode
    formatting tags are dropped. ``弃权`` as the object is an abstention (``target`` None).

    Raises :class:`InvalidVoteError` (rule ``no_vote_format``, ``missing_colon``,
    ``missing_object``, ``missing_reason``, ``two_objects``, ``two_reasons``, ``mixed_labels``,
    ``empty_target``, ``empty_reason``, ``quote_unclosed``), :class:`AmbiguousVoteError` or
    :class:`UnknownCandidateError`.

    >>> c = {"饺子": [], "包子": ["BZ"]}
    >>> parse_vote("[quote]投票对象：饺子 投票理由：好吃[/quote]改票对象：bz\\n改票理由：也好吃", c)
    ParsedVote(target='包子', reason='也好吃', is_change=True, written='bz')
    >>> parse_vote("投票对象：饺子", c)
    Traceback (most recent call last):
    ...
    game_rules.errors.InvalidVoteError: [missing_reason] 缺少“投票理由：”
    """
    cleaned = _clean(str(text))
    labels = _labels(cleaned)
    objects = [lb for lb in labels if lb.is_object]
    reasons = [lb for lb in labels if not lb.is_object]
    if not labels:
        norm = unicodedata.normalize("NFKC", cleaned)
        if _LABEL_NO_COLON.search(norm):
            raise InvalidVoteError("missing_colon", "投票格式缺少冒号：应写作“投票对象：X”")
        if fold_name(cleaned) == ABSTAIN_WORD:
            raise InvalidVoteError(
                "no_vote_format", "弃权也须按投票格式发帖：在投票对象中填写“弃权”并写明投票理由"
            )
        raise InvalidVoteError("no_vote_format", "没有找到投票格式（投票对象：X / 投票理由：Y）")
    kind = "改票" if labels[0].change else "投票"
    if len(objects) > 1:
        raise InvalidVoteError("two_objects", "一帖中有多个投票对象，无法确定投给谁")
    if len(reasons) > 1:
        raise InvalidVoteError("two_reasons", "一帖中有多个投票理由")
    if not objects:
        raise InvalidVoteError("missing_object", f"缺少“{kind}对象：”")
    if not reasons:
        raise InvalidVoteError("missing_reason", f"缺少“{kind}理由：”")
    obj, why = objects[0], reasons[0]
    if obj.change != why.change:
        raise InvalidVoteError(
            "mixed_labels", "对象与理由的标签不一致（投票对象须配投票理由，改票对象须配改票理由）"
        )
    obj_end = why.start if why.start > obj.start else len(cleaned)
    newline = cleaned.find("\n", obj.end)
    if newline != -1:
        obj_end = min(obj_end, newline)
    written = cleaned[obj.end : obj_end].strip()
    name = _clean_name(written)
    if not name:
        raise InvalidVoteError(
            "empty_target", f"{kind}对象为空（对象须写在冒号后的同一行；弃权须填写“弃权”）"
        )
    reason_end = obj.start if obj.start > why.start else len(cleaned)
    reason = cleaned[why.end : reason_end].strip()
    if not reason.strip(_EDGE_PUNCT):
        raise InvalidVoteError("empty_reason", f"{kind}理由为空")
    if fold_name(name) == ABSTAIN_WORD:
        return ParsedVote(None, reason, obj.change, written)
    # a name that itself ends in punctuation is matched as written before any trimming
    target = written if written in candidates else match_candidate(name, candidates)
    return ParsedVote(target, reason, obj.change, written)


# ---------------------------------------------------------------------------------------------
# Policy

CONDITIONAL_PROXY = ("abstain", "invalid")


@dataclass(frozen=True)
class VotePolicy:
    """One ruleset's vote rules (data: ``rulesets/<id>.votes.yaml``).

    - ``max_changes``: changes allowed per voter per day; None = unlimited (M72).
    - ``no_change_before_close``: no change this long before close (1 h everywhere).
    - ``proxy_deadline``: a proxy (代投) requested later than this before close is void (30 min in
      M08/004; M72: "关门前一小时不允许改票或代投", so 1 h).
    - ``proxy_change_deadline``: a proxy change must be requested at least this long before close.
    - ``changes_when_accelerated``: may votes change while 加速 is in force?
    - ``acceleration_voids_changes``: 004's "所有改票作废": from 加速 on, each voter's first ballot
      counts.
    - ``conditional_proxy``: ``"abstain"`` (a conditional 代投 "视为弃权") or ``"invalid"``.
    - ``change_must_reply``: a change must quote / reply to the voter's own earlier vote post.
    - ``quotes``: rule key -> the seed's wording, used in rejection messages.
    """

    ruleset: str = ""
    max_changes: int | None = 1
    no_change_before_close: timedelta = timedelta(hours=1)
    proxy_deadline: timedelta = timedelta(minutes=30)
    proxy_change_deadline: timedelta = timedelta(hours=1)
    changes_when_accelerated: bool = False
    acceleration_voids_changes: bool = False
    proxies_allowed: bool = True
    conditional_proxy: str = "abstain"
    change_must_reply: bool = True
    quotes: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.max_changes is not None and self.max_changes < 0:
            raise ParameterError("bad_parameters", "max_changes must be >= 0 or null")
        if self.conditional_proxy not in CONDITIONAL_PROXY:
            raise ParameterError(
                "bad_parameters", f"conditional_proxy must be one of {CONDITIONAL_PROXY}"
            )
        for span in (self.no_change_before_close, self.proxy_deadline, self.proxy_change_deadline):
            if span < timedelta(0):
                raise ParameterError("bad_parameters", "vote deadlines must not be negative")

    def quote(self, rule: str) -> str:
        """The seed's wording for ``rule`` ('' when the seed says nothing)."""
        return self.quotes.get(rule, "")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, ruleset: str | None = None) -> VotePolicy:
        """Build a policy from a mapping (a ``.votes.yaml`` file or a ruleset's ``vote_policy:``).

        With ``ruleset``, the keys missing from ``data`` (and the seed quotes) come from that
        ruleset's ``.votes.yaml``, so a variant overrides only what differs. Durations are in
        minutes (``*_minutes`` keys), matching the ruleset files.

        >>> p = VotePolicy.from_mapping({"max_changes": 2}, ruleset="m08")
        >>> p.max_changes, p.proxy_deadline, p.ruleset
        (2, datetime.timedelta(seconds=1800), 'm08')
        """
        merged: dict[str, Any] = {}
        if ruleset is not None:
            merged.update(_read_votes_yaml(ruleset))
            merged.setdefault("ruleset", ruleset)
        merged.update(data)
        quotes_raw = merged.get("quotes") or {}
        if not isinstance(quotes_raw, Mapping):
            raise ParameterError("bad_parameters", "quotes must be a mapping")

        def minutes(key: str, default: timedelta) -> timedelta:
            if f"{key}_minutes" not in merged:
                return default
            try:
                return timedelta(minutes=float(merged[f"{key}_minutes"]))
            except (TypeError, ValueError) as exc:
                raise ParameterError("bad_parameters", f"{key}_minutes: {exc}") from exc

        base = cls()
        changes = merged.get("max_changes", base.max_changes)
        try:
            max_changes = None if changes is None else int(changes)
        except (TypeError, ValueError) as exc:
            raise ParameterError("bad_parameters", f"max_changes: {exc}") from exc
        return cls(
            ruleset=str(merged.get("ruleset", "")),
            max_changes=max_changes,
            no_change_before_close=minutes("no_change_before_close", base.no_change_before_close),
            proxy_deadline=minutes("proxy_deadline", base.proxy_deadline),
            proxy_change_deadline=minutes("proxy_change_deadline", base.proxy_change_deadline),
            changes_when_accelerated=bool(
                merged.get("changes_when_accelerated", base.changes_when_accelerated)
            ),
            acceleration_voids_changes=bool(
                merged.get("acceleration_voids_changes", base.acceleration_voids_changes)
            ),
            proxies_allowed=bool(merged.get("proxies_allowed", base.proxies_allowed)),
            conditional_proxy=str(merged.get("conditional_proxy", base.conditional_proxy)),
            change_must_reply=bool(merged.get("change_must_reply", base.change_must_reply)),
            quotes=MappingProxyType({str(k): str(v) for k, v in quotes_raw.items()}),
        )


@lru_cache(maxsize=32)
def _read_votes_yaml(ruleset: str) -> dict[str, Any]:
    name = f"{ruleset}.votes.yaml"
    try:
        text = resources.files("game_rules.rulesets").joinpath(name).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError) as exc:
        raise UnknownRulesetError(message=f"no vote rules file rulesets/{name}") from exc
    data = yaml.safe_load(text)
    if not isinstance(data, dict):
        raise ParameterError(message=f"rulesets/{name} is not a mapping")
    return data


def load_vote_policy(ruleset: str) -> VotePolicy:
    """The vote policy of ``ruleset`` (``m08``, ``m72``, ``wa004``) as its seed writes it.

    >>> load_vote_policy("m72").max_changes is None
    True
    >>> load_vote_policy("wa004").acceleration_voids_changes
    True
    """
    return VotePolicy.from_mapping({}, ruleset=ruleset)


# ---------------------------------------------------------------------------------------------
# Ballots and the box


@quick_frozen
@dataclass(frozen=True, slots=True)
class Ballot:
    """One ballot: ``target`` None = 弃权.

    ``at`` is when the ballot appeared (the post time; for a 代投, when the director posted it).
    ``requested_at`` (代投 only) is when the player asked the director; the 代投 deadlines are
    judged on it (defaults to ``at``). ``conditional`` marks a 代投 given with a condition.
    ``replies_to`` is the post id the vote post quotes/replies to, or None when not known.
    """

    voter: str
    target: str | None
    at: datetime
    proxy: bool = False
    is_change: bool = False
    post_id: str | None = None
    requested_at: datetime | None = None
    conditional: bool = False
    replies_to: str | None = None
    reason: str = ""

    @classmethod
    def from_parsed(
        cls,
        voter: str,
        parsed: ParsedVote,
        at: datetime,
        *,
        post_id: str | None = None,
        replies_to: str | None = None,
    ) -> Ballot:
        """The ballot a parsed vote post makes."""
        return cls(
            voter=voter,
            target=parsed.target,
            at=at,
            is_change=parsed.is_change,
            post_id=post_id,
            replies_to=replies_to,
            reason=parsed.reason,
        )


_VOTER = operator.attrgetter("voter")


def _reject(policy: VotePolicy, rule: str, detail: str = "") -> VoteRejectedError:
    message = REJECTION_RULES[rule] + (f"：{detail}" if detail else "")
    return VoteRejectedError(rule, message, policy.quote(rule))


@quick_frozen
@dataclass(frozen=True, slots=True)
class BallotBox:
    """One day's accepted ballots, in the order they were cast (immutable).

    >>> from datetime import datetime
    >>> p = load_vote_policy("m08")
    >>> close = datetime(2026, 1, 1, 22, 0)
    >>> box = BallotBox().cast(Ballot("A", "B", datetime(2026, 1, 1, 12)),
    ...                        policy=p, closes_at=close)
    >>> box = box.cast(Ballot("A", None, datetime(2026, 1, 1, 13), is_change=True),
    ...                policy=p, closes_at=close)
    >>> box.current()["A"].target is None, len(box.history)
    (True, 2)
    >>> box.cast(Ballot("A", "C", datetime(2026, 1, 1, 14), is_change=True),
    ...          policy=p, closes_at=close)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    game_rules.errors.VoteRejectedError: [change_limit] 改票次数已用完：...
    """

    history: tuple[Ballot, ...] = ()
    changes_voided: bool = False

    def _count_of(self, voter: str) -> int:
        # C-level count: cast() needs only how many ballots a voter has, once per ballot
        return list(map(_VOTER, self.history)).count(voter)

    def changes_of(self, voter: str) -> int:
        """How many times ``voter`` changed their vote (edits of a post are not changes)."""
        return max(0, self._count_of(voter) - 1)

    def current(self) -> Mapping[str, Ballot]:
        """Each voter's counting ballot: the latest, or the first once 004's 加速 voided changes."""
        out: dict[str, Ballot] = {}
        for b in self.history:
            if self.changes_voided and b.voter in out:
                continue
            out[b.voter] = b
        return MappingProxyType(out)

    def effective_history(self) -> tuple[Ballot, ...]:
        """The ballots that count, in time order (changes dropped once voided)."""
        if not self.changes_voided:
            return self.history
        seen: set[str] = set()
        kept = []
        for b in self.history:
            if b.voter not in seen:
                seen.add(b.voter)
                kept.append(b)
        return tuple(kept)

    def accelerate(self, *, policy: VotePolicy) -> BallotBox:
        """The box once 加速 is in force (004 voids every change: "所有改票作废")."""
        if policy.acceleration_voids_changes and not self.changes_voided:
            return replace(self, changes_voided=True)
        return self

    # Its keywords repeat admit_ballot's on purpose: cast is that judgement over an immutable box.
    def cast(
        self,
        ballot: Ballot,
        *,
        policy: VotePolicy,
        closes_at: datetime | None,
        accelerated: bool = False,
        voters: Collection[str] | None = None,
        candidates: Collection[str] | None = None,
    ) -> BallotBox:
        """The box with ``ballot`` added, or :class:`VoteRejectedError` (this box unchanged).

        ``closes_at``: the day's 关门 time, None while the director has not set one (then nothing
        is late: no deadline, 代投 or last-hour rule applies). ``voters`` / ``candidates``: the
        living characters who may vote / be voted for (None: not checked here).
        ``accelerated``: 加速 is in force at the time of this ballot.
        """
        index, kept = admit_ballot(
            self.history,
            self.changes_voided,
            ballot,
            policy=policy,
            closes_at=closes_at,
            accelerated=accelerated,
            voters=voters,
            candidates=candidates,
        )
        history = self.history
        if index is None:
            return BallotBox((*history, kept), self.changes_voided)
        return BallotBox((*history[:index], kept, *history[index + 1 :]), self.changes_voided)


def admit_ballot(
    history: Sequence[Ballot],
    changes_voided: bool,
    ballot: Ballot,
    *,
    policy: VotePolicy,
    closes_at: datetime | None,
    accelerated: bool = False,
    voters: Collection[str] | None = None,
    candidates: Collection[str] | None = None,
) -> tuple[int | None, Ballot]:
    """Judge ``ballot`` against a day's ``history`` (a box's ballots, in order): the rules of
    :meth:`BallotBox.cast`, without building a box.

    Returns ``(None, kept)`` when ``kept`` is to be appended (it may differ from ``ballot``: a
    conditional 代投 becomes 弃权, ``is_change`` is set from the voter's earlier ballots), or
    ``(i, kept)`` when it edits ``history[i]`` in place ("修改错别字不算做改票"). Raises
    :class:`VoteRejectedError` otherwise. The engine keeps its day's ballots in a list and calls
    this directly; :meth:`BallotBox.cast` is this plus the new box.
    """
    at = ballot.at
    proxy = ballot.proxy
    asked = ballot.requested_at if (proxy and ballot.requested_at) else at
    naive = at.tzinfo is None
    if (
        (asked.tzinfo is None) != naive
        or (closes_at is not None and (closes_at.tzinfo is None) != naive)
        or (history and (history[-1].at.tzinfo is None) != naive)
    ):
        raise VoteError("bad_time", "投票时间无法与关门时间或先前的投票比较：有的带时区，有的不带")
    if closes_at is not None and (at > closes_at or asked > closes_at):
        raise _reject(policy, "vote_closed", f"截止时间 {closes_at:%Y-%m-%d %H:%M}")
    voter = ballot.voter
    if voters is not None and voter not in voters:
        raise _reject(policy, "voter_not_alive", voter)
    if candidates is not None and ballot.target is not None and ballot.target not in candidates:
        raise _reject(policy, "target_not_alive", ballot.target)
    # C-level count: how many ballots the voter has so far
    mine = list(map(_VOTER, history)).count(voter)

    if ballot.post_id is not None and not proxy:
        for i, old in enumerate(history):
            if old.voter == voter and old.post_id == ballot.post_id:
                # an edit keeps its place and time; it may not move the vote
                if ballot.target != old.target:
                    raise _reject(policy, "edit_changes_target")
                return i, replace(old, reason=ballot.reason)

    if proxy and not policy.proxies_allowed:
        raise _reject(policy, "proxy_not_allowed")
    if history and at < history[-1].at:
        raise _reject(policy, "out_of_order", f"{at:%H:%M:%S}")
    if proxy and ballot.conditional:
        if policy.conditional_proxy == "invalid":
            raise _reject(policy, "proxy_conditional")
        ballot = replace(ballot, target=None)  # "否则视为弃权"
    is_change = mine > 0
    if not proxy:
        if is_change and not ballot.is_change:
            raise _reject(policy, "second_vote")
        if not is_change and ballot.is_change:
            raise _reject(policy, "change_without_vote")
        if (
            is_change
            and policy.change_must_reply
            and ballot.replies_to is not None
            and ballot.replies_to
            not in {b.post_id for b in history if b.voter == voter and b.post_id is not None}
        ):
            raise _reject(policy, "change_not_reply", f"回复的是 {ballot.replies_to}")
    if proxy and closes_at is not None and asked > closes_at - policy.proxy_deadline:
        raise _reject(policy, "proxy_late")
    if is_change:
        if proxy and closes_at is not None and asked > closes_at - policy.proxy_change_deadline:
            raise _reject(policy, "proxy_change_late")
        if (accelerated or changes_voided) and not policy.changes_when_accelerated:
            raise _reject(policy, "accelerated")
        if closes_at is not None and asked > closes_at - policy.no_change_before_close:
            raise _reject(policy, "last_hour")
        if policy.max_changes is not None and mine - 1 >= policy.max_changes:
            raise _reject(policy, "change_limit", f"已改票{mine - 1}次")
    if ballot.is_change != is_change:
        ballot = replace(ballot, is_change=is_change)
    return None, ballot


# ---------------------------------------------------------------------------------------------
# Tally


def format_votes(n: Fraction) -> str:
    """A vote count as the seeds write it: ``3``, ``1.5``, ``2.5``; other fractions as ``p/q``.

    >>> format_votes(Fraction(3, 2)), format_votes(Fraction(4)), format_votes(Fraction(1, 3))
    ('1.5', '4', '1/3')
    """
    if n.denominator == 1:
        return str(n.numerator)
    den = n.denominator
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    if den != 1:
        return f"{n.numerator}/{n.denominator}"
    places = max(twos, fives)
    scaled = n * 10**places
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled.numerator)).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}".rstrip("0").rstrip(".")


class _Step(NamedTuple):
    """One counted ballot replayed by :meth:`Tally.first_to_reach_top` (made on demand)."""

    at: datetime | None  # None: before any ballot (extra votes)
    order: int
    voter: str | None
    old: str | None
    new: str | None
    weight: Fraction
    units: int = 0  # ``weight`` in units of 1/scale (see :class:`Tally`)


@quick_frozen
@dataclass(frozen=True, slots=True)
class Tally:
    """The weighted result of a box.

    ``counts``: decisive totals per target including hidden ``extra`` (who goes out is decided on
    these); ``shown``: what is announced (no extra); ``abstentions``: weighted 弃权 total;
    ``abstainers``: who abstained. ``count_units`` / ``shown_units`` are ``counts`` / ``shown``
    exactly, as integers in units of ``1/scale`` (``scale`` 2 when a weight is 1.5): comparing
    and ordering them needs no fraction arithmetic (the Fraction forms are properties).
    ``history`` is the box's counting ballots in time order (``excluded`` voters' too), from which
    :attr:`steps` replays the counted ones.
    """

    count_units: Mapping[str, int]
    shown_units: Mapping[str, int]
    scale: int
    abstained_units: int
    abstainers: tuple[str, ...]
    first_vote: Mapping[str, int]
    extra: Mapping[str, Fraction]
    history: tuple[Ballot, ...] = field(default=(), repr=False)
    weights: Mapping[str, Fraction] = field(default_factory=dict, repr=False)
    excluded: frozenset[str] = field(default=frozenset(), repr=False)
    step_count: int = field(default=0, repr=False, compare=False)

    # the Fraction forms are made when asked: the engine decides and announces on the units
    @property
    def counts(self) -> Mapping[str, Fraction]:
        """Decisive totals per target, hidden extra included."""
        scale = self.scale
        return MappingProxyType({t: _fraction(n, scale) for t, n in self.count_units.items()})

    @property
    def shown(self) -> Mapping[str, Fraction]:
        """The announced totals per target (no hidden extra)."""
        scale = self.scale
        return MappingProxyType({t: _fraction(n, scale) for t, n in self.shown_units.items()})

    @property
    def abstentions(self) -> Fraction:
        """The weighted 弃权 total."""
        return _fraction(self.abstained_units, self.scale)

    @property
    def steps(self) -> tuple[_Step, ...]:
        """The counted ballots in the order they were cast, each with its voter's previous target
        and weight (made on demand: only 最先获得 replays them)."""
        scale = self.scale
        weights = self.weights
        excluded = self.excluded
        steps: list[_Step] = []
        holding: dict[str, str | None] = {}
        for i, b in enumerate(self.history):
            voter = b.voter
            if voter in excluded:
                continue
            weight = weights.get(voter, _ONE)
            units = weight.numerator * (scale // weight.denominator)
            steps.append(_Step(b.at, i, voter, holding.get(voter), b.target, weight, units))
            holding[voter] = b.target
        return tuple(steps)

    def _order(self, units: Mapping[str, int]) -> list[str]:
        big = self.step_count + 1
        at = self.first_vote.get
        # decorated tuples sort in C: no Python key function per target
        return [t for _, _, t in sorted([(-n, at(t, big), t) for t, n in units.items()])]

    def top(self) -> tuple[str, ...]:
        """The targets with the highest decisive count (empty if nobody has a vote).

        More than one = 平票; ordered by the announcement order.
        """
        units = self.count_units
        best = max(units.values(), default=0)
        if best <= 0:
            return ()
        return tuple([t for t in self._order(units) if units[t] == best])

    def first_to_reach_top(self, *, sustained: bool = False) -> str | None:
        """Of the top targets, the one that first reached the final top count ("最先获得").

        The ballots are replayed in the order they were cast, changes included, extra votes being
        there from the start. Default: the first moment a target's running count reached the final
        top count, even if it later dipped. ``sustained=True``: the moment it last reached that
        count and then kept it to the close. See docs/rulings/votes.md.
        """
        tops = self.top()
        if not tops:
            return None
        if len(tops) == 1:
            return tops[0]
        scale = self.scale
        goal = self.count_units[tops[0]]
        steps = self.steps
        running = {t: w.numerator * (scale // w.denominator) for t, w in self.extra.items()}
        reached: dict[str, int] = {t: -1 for t in tops if running.get(t, 0) >= goal}
        for step in steps:
            if step.old is not None:
                running[step.old] = running.get(step.old, 0) - step.units
                if sustained and running[step.old] < goal:
                    reached.pop(step.old, None)
            if step.new is not None:
                running[step.new] = running.get(step.new, 0) + step.units
                if step.new in tops and running[step.new] >= goal and step.new not in reached:
                    reached[step.new] = step.order
        never = len(steps)
        # (step reached, announcement rank, target): the earliest, then the first announced
        return min([(reached.get(t, never), i, t) for i, t in enumerate(tops)])[2]

    def count_texts(self) -> dict[str, str]:
        """``counts`` as ``str(Fraction)`` writes them (``"3"``, ``"3/2"``), per target."""
        scale = self.scale
        return {t: _count_text(n, scale) for t, n in self.count_units.items()}

    def announcement(self) -> str:
        """The seeds' public form: one "XX获得X票" line per target, most votes first.

        Ties keep the order of each target's first counted vote. Abstentions, if any, follow as
        "弃权X票", X the number of characters who abstained (not weighted: a sheriff's 弃权 is one
        character's). Hidden extra votes are never shown; a target with only extra votes is not
        listed.

        >>> from datetime import datetime
        >>> p = load_vote_policy("m08")
        >>> box = BallotBox()
        >>> for i, (v, t) in enumerate([("A", "饺子"), ("B", "包子"), ("C", "饺子"), ("D", None)]):
        ...     box = box.cast(Ballot(v, t, datetime(2026, 1, 1, 10, i)), policy=p,
        ...                    closes_at=datetime(2026, 1, 1, 22))
        >>> print(tally(box, {"B": Fraction(3, 2)}).announcement())
        饺子获得2票
        包子获得1.5票
        弃权1票
        """
        units = self.shown_units
        scale = self.scale
        lines = [
            f"{t}获得{_votes_text(units[t], scale)}票"
            # ordered on the shown counts alone: the hidden extra must not show through the order
            for t in self._order(units)
            if units[t] > 0
        ]
        if self.abstainers:
            lines.append(f"{ABSTAIN_WORD}{len(self.abstainers)}票")
        if not lines:
            return "本日无有效投票"
        return "\n".join(lines)


# texts of the few small counts that tallies print over and over: (units, scale) -> text
_VOTES_TEXT: dict[tuple[int, int], str] = {}
_COUNT_TEXT: dict[tuple[int, int], str] = {}


def _kept_text(kept: dict[tuple[int, int], str], write: Any, n: int, scale: int) -> str:
    """``write(Fraction(n, scale))``, kept in ``kept`` for small counts."""
    text = kept.get((n, scale))
    if text is None:
        text = write(Fraction(n, scale))
        if len(kept) < 4096:
            kept[(n, scale)] = text
    return text


def _votes_text(n: int, scale: int) -> str:
    """``format_votes(Fraction(n, scale))`` ("1.5")."""
    return _kept_text(_VOTES_TEXT, format_votes, n, scale)


def _count_text(n: int, scale: int) -> str:
    """``str(Fraction(n, scale))`` ("3/2")."""
    return _kept_text(_COUNT_TEXT, str, n, scale)


_ONE = Fraction(1)
# Fractions are immutable, so the few small vote counts a tally makes are shared, not rebuilt
_FRACTION_CACHE: dict[tuple[int, int], Fraction] = {}


def _fraction(n: int, scale: int) -> Fraction:
    """``Fraction(n, scale)``, shared for the small counts tallies make over and over."""
    key = (n, scale)
    value = _FRACTION_CACHE.get(key)
    if value is None:
        value = Fraction(n, scale)
        if len(_FRACTION_CACHE) < 4096:
            _FRACTION_CACHE[key] = value
    return value


def _fractions(weights: Mapping[str, Any] | None) -> dict[str, Fraction]:
    if not weights:
        return {}
    return {who: w if type(w) is Fraction else Fraction(w) for who, w in weights.items()}


def tally(
    box: BallotBox,
    weights: Mapping[str, Fraction] | None = None,
    extra: Mapping[str, Fraction] | None = None,
    *,
    exclude: Collection[str] = (),
    void_targets: Collection[str] = (),
) -> Tally:
    """Weigh the box's current ballots.

    ``weights``: per-voter weight (missing voters weigh 1; the sheriff 2 in M72, 3/2 in M08).
    ``extra``: hidden additions per target (the big crow's +1), counted but never announced.
    ``exclude``: voters whose ballots no longer count (e.g. red-carded before the tally).
    ``void_targets``: characters who are no longer targets (红牌罚下 before the vote: 已经公示的出局
    角色……不允许被选为……投票的目标): ballots on them count for nobody and are not announced.

    >>> from datetime import datetime
    >>> p = load_vote_policy("m72")
    >>> box = BallotBox().cast(Ballot("A", "饺子", datetime(2026, 1, 1, 10)), policy=p,
    ...                        closes_at=datetime(2026, 1, 1, 22))
    >>> t = tally(box, {"A": Fraction(2)}, {"包子": Fraction(1)})
    >>> t.counts["饺子"], t.counts["包子"], t.top()
    (Fraction(2, 1), Fraction(1, 1), ('饺子',))
    """
    given = _fractions(weights)
    added = _fractions(extra)
    if given or added:
        scale = 1
        for who, w in (*given.items(), *added.items()):
            if w.numerator < 0:  # a Fraction's denominator is always positive
                raise VoteError("bad_weight", f"{who}: vote weight must not be negative")
            if scale % w.denominator:
                scale = math.lcm(scale, w.denominator)
        # Counting is done in integer units of 1/scale (scale = lcm of every weight's denominator:
        # 2 for M08's 1.5-vote sheriff), so the loop adds ints; Fractions only when asked for.
        units = {who: w.numerator * (scale // w.denominator) for who, w in given.items()}
    else:
        scale = 1
        units = {}
    excluded = frozenset(exclude)
    void = frozenset(void_targets)

    shown_units: dict[str, int] = {}
    abstainers: list[str] = []
    abstained = 0
    history = box.effective_history()
    # each voter's counting ballot (the last of the effective history), in first-ballot order
    final: dict[str, Ballot] = {}
    for b in history:
        final[b.voter] = b
    unit = units.get
    for voter, b in final.items():
        if voter in excluded:
            continue
        target = b.target
        if target is None:
            abstainers.append(voter)
            abstained += unit(voter, scale)
        elif target in void:
            continue
        else:
            shown_units[target] = shown_units.get(target, 0) + unit(voter, scale)
    count_units = dict(shown_units)
    extras: dict[str, Fraction] = {}
    for target, add in added.items():
        if add and target not in void:
            extras[target] = add
            count_units[target] = count_units.get(target, 0) + add.numerator * (
                scale // add.denominator
            )

    # announcement order: when the target got the vote that still counts for it
    first_vote: dict[str, int] = {}
    counted = 0
    for i, b in enumerate(history):
        voter = b.voter
        if voter in excluded:
            continue
        counted += 1
        voted = b.target
        if (
            voted is not None
            and voted not in first_vote
            and final[voter] is b
            and voted not in void
        ):
            first_vote[voted] = i
    return Tally(
        MappingProxyType(count_units),
        MappingProxyType(shown_units),
        scale,
        abstained,
        tuple(abstainers),
        MappingProxyType(first_vote),
        MappingProxyType(extras),
        history,
        MappingProxyType(given),
        excluded,
        counted,
    )
