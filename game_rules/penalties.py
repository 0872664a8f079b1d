"""Cards: the seeds' 判罚制度 (green / blue / yellow / red), escalation, suggestions, 潜水.

Pure: values in, values out. Each ruleset's penalty rules are data in
``game_rules/rulesets/<id>.penalties.yaml`` (articles with the seed's wording, the category each
finding falls under, fixed penalties, the 潜水 thresholds), read by :func:`load_penalty_rules`.

Public API::

    CardColour.GREEN / BLUE / YELLOW / RED   (.chinese 绿牌..., .meaning 没有违规/提醒/警告/罚下,
                                              .rank, CardColour.parse("蓝牌" | "blue"))
    CardSource.DECIDED / ESCALATION / FIXED
    Card(colour, reason, article=None, source=DECIDED, category=None, day=None, at=None,
         player=None, note="", id=-1, merged_from=())
    Escalation(colour, merged: tuple[Card, ...], card: Card)
    CardLedger(character, cards=(), players=(), blues_per_yellow=3, yellows_per_red=3)
        .add(card) -> tuple[CardLedger, tuple[Escalation, ...]]
        .active() / .count(colour) / .is_red / .blue_equivalents() / .merged_ids()
        .history_by_category() -> Mapping[str, tuple[CardColour, ...]]
        .for_substitute(player, *, limit=1) -> CardLedger
        .describe() -> str
    CardLedger.replay(character, cards, *, rules=None, player=None) -> CardLedger
    load_penalty_rules(ruleset: str) -> PenaltyRules
    PenaltyRules.new_ledger(character, player=None) -> CardLedger
    PenaltyRules.article(code) -> Article; .article_for(category) -> Article | None
    PenaltyRules.check_cardable(colour, *, eliminated) -> None
    suggest_card(category, *, rules, article=None, history=None, severity=None,
                 deliberate=False) -> Suggestion
    Suggestion(colour, category, article, reasons, fixed, allowed, escalations)
    DayActivity(day, posts, water_posts=0, voted=True, accelerated=False)
    activity_penalties(days, *, rules) -> tuple[ActivityPenalty, ...]
    ActivityPenalty(day, kind, article, reason, days).card(player=None) -> Card

Errors: :class:`PenaltyError` (a :class:`game_rules.errors.GameRuleError`, so a ``ValueError``)
with ``.rule``; a second substitution raises :class:`game_rules.errors.SubstitutionError`.

>>> ledger = load_penalty_rules("m08").new_ledger("饺子")
>>> for _ in range(3):
...     ledger, ups = ledger.add(Card(CardColour.BLUE, "侮辱性语言", "1(3)"))
>>> [(e.colour.chinese, [c.id for c in e.merged]) for e in ups]
[('黄牌', [0, 1, 2])]
>>> ledger.describe()
'黄牌1张（由三张蓝牌升级）'

Readings of places where the seeds are silent or conflict: docs/rulings/penalties.md.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import Enum
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Any

import yaml

from game_rules.enums import CardColour, Category
from game_rules.errors import (
    GameRuleError,
    ParameterError,
    PenaltyError,
    SubstitutionError,
    UnknownRulesetError,
)

__all__ = [
    "KNOWN_CATEGORIES",
    "ActivityPenalty",
    "ActivityRules",
    "Article",
    "Card",
    "CardColour",
    "CardLedger",
    "CardSource",
    "DayActivity",
    "Escalation",
    "PenaltyError",
    "PenaltyRules",
    "Suggestion",
    "activity_penalties",
    "load_penalty_rules",
    "normalise_article_code",
    "penalty_rules_from_mapping",
    "suggest_card",
]


class CardSource(Enum):
    """Where a card came from: the director's decision, escalation, or a fixed penalty."""

    DECIDED = "decided"
    ESCALATION = "escalation"
    FIXED = "fixed"


@dataclass(frozen=True)
class Card:
    """One card. ``id`` is its index in the ledger (set by :meth:`CardLedger.add`).

    ``merged_from``: for an escalation card, the ids of the three cards it merged.
    ``player``: who played the character when carded (a substitute inherits earlier cards).
    """

    colour: CardColour
    reason: str
    article: str | None = None
    source: CardSource = CardSource.DECIDED
    category: str | None = None
    day: int | None = None
    at: datetime | None = None
    player: str | None = None
    note: str = ""
    id: int = -1
    merged_from: tuple[int, ...] = ()


@dataclass(frozen=True)
class Escalation:
    """Three cards merged into one of the next colour: ``merged`` (oldest first) -> ``card``."""

    colour: CardColour
    merged: tuple[Card, ...]
    card: Card

    def describe(self) -> str:
        """Chinese: which cards merged into what. Cards are numbered from 1 in the order the
        ledger got them (a card's ``id`` + 1: directors count cards, they do not index them).

        >>> e = Escalation(CardColour.YELLOW,
        ...     tuple(Card(CardColour.BLUE, "x", id=i) for i in range(3)),
        ...     Card(CardColour.YELLOW, "y", id=3))
        >>> e.describe()
        '三张蓝牌（#1、#2、#3）升级为一张黄牌（#4）'
        """
        ids = "、".join(f"#{c.id + 1}" for c in self.merged)
        below = self.merged[0].colour.chinese if self.merged else ""
        return f"三张{below}（{ids}）升级为一张{self.colour.chinese}（#{self.card.id + 1}）"


_NEXT = {CardColour.BLUE: CardColour.YELLOW, CardColour.YELLOW: CardColour.RED}


@dataclass(frozen=True)
class CardLedger:
    """One character's cards, every card ever given plus the escalation cards (immutable).

    A card merged into an escalation stays in :attr:`cards` (the audit trail) but is no longer
    :meth:`active`. The blue-equivalent total of the active cards never changes through
    escalation: 3 blues = 1 yellow, 3 yellows = 1 red.
    """

    character: str
    cards: tuple[Card, ...] = ()
    players: tuple[str, ...] = ()
    blues_per_yellow: int = 3
    yellows_per_red: int = 3

    def __post_init__(self) -> None:
        if self.blues_per_yellow < 1 or self.yellows_per_red < 1:
            raise ParameterError("bad_parameters", "escalation needs at least one card per step")

    def merged_ids(self) -> frozenset[int]:
        """Ids of the cards already merged into an escalation card."""
        return frozenset(i for c in self.cards for i in c.merged_from)

    def active(self) -> tuple[Card, ...]:
        """The cards that stand (not merged into a higher one), oldest first."""
        merged = self.merged_ids()
        return tuple(c for c in self.cards if c.id not in merged)

    def count(self, colour: CardColour) -> int:
        """How many active cards of ``colour``."""
        return sum(1 for c in self.active() if c.colour is colour)

    @property
    def is_red(self) -> bool:
        """Has the character a red card (红牌罚下)?"""
        return any(c.colour is CardColour.RED for c in self.cards)

    def _weight(self, colour: CardColour) -> int:
        per_red = self.blues_per_yellow * self.yellows_per_red
        return {
            CardColour.GREEN: 0,
            CardColour.BLUE: 1,
            CardColour.YELLOW: self.blues_per_yellow,
            CardColour.RED: per_red,
        }[colour]

    def blue_equivalents(self) -> int:
        """The active cards' weight in blues (1 / 3 / 9 with the seeds' 3-and-3)."""
        return sum(self._weight(c.colour) for c in self.active())

    def add(self, card: Card) -> tuple[CardLedger, tuple[Escalation, ...]]:
        """The ledger with ``card`` added and the escalations it caused, in order.

        Three active blues merge into a yellow, three active yellows into a red (oldest first);
        one card may cause a chain (the 9th blue: a yellow, then a red).
        """
        if card.source is CardSource.ESCALATION:
            raise PenaltyError("escalation_card", "升级产生的牌由账本自动生成，不能直接加入")
        cards = [*self.cards, replace(card, id=len(self.cards), merged_from=())]
        ledger = replace(self, cards=tuple(cards))
        escalations: list[Escalation] = []
        for colour, per in (
            (CardColour.BLUE, self.blues_per_yellow),
            (CardColour.YELLOW, self.yellows_per_red),
        ):
            while True:
                pool = [c for c in ledger.active() if c.colour is colour]
                if len(pool) < per:
                    break
                merged = tuple(pool[:per])
                up = _NEXT[colour]
                new = Card(
                    colour=up,
                    reason=f"{per}张{colour.chinese}升级为一张{up.chinese}",
                    source=CardSource.ESCALATION,
                    day=card.day,
                    at=card.at,
                    player=card.player,
                    id=len(ledger.cards),
                    merged_from=tuple(c.id for c in merged),
                )
                ledger = replace(ledger, cards=(*ledger.cards, new))
                escalations.append(Escalation(up, merged, new))
        return ledger, tuple(escalations)

    def history_by_category(self) -> Mapping[str, tuple[CardColour, ...]]:
        """Colours of the decided and fixed cards per category (escalation cards left out)."""
        out: dict[str, list[CardColour]] = {}
        for c in self.cards:
            if c.source is not CardSource.ESCALATION and c.category:
                out.setdefault(c.category, []).append(c.colour)
        return MappingProxyType({k: tuple(v) for k, v in out.items()})

    def for_substitute(self, player: str, *, limit: int | None = 1) -> CardLedger:
        """The same ledger, now played by ``player`` (替补 inherits every card).

        ``limit``: substitutions allowed per character (the seeds: once); None = no limit.

        >>> led = CardLedger("饺子", players=("甲",)).for_substitute("乙")
        >>> led.players
        ('甲', '乙')
        >>> led.for_substitute("丙")
        Traceback (most recent call last):
        ...
        game_rules.errors.SubstitutionError: [substitution_once] 每名角色仅限更换一次替补
        """
        done = max(0, len(self.players) - 1)
        if limit is not None and done >= limit:
            raise SubstitutionError("substitution_once", "每名角色仅限更换一次替补")
        return replace(self, players=(*self.players, player))

    def describe(self) -> str:
        """Chinese summary of the active cards, e.g. ``蓝牌2张、黄牌1张（由三张蓝牌升级）``."""
        parts = []
        for colour in (CardColour.BLUE, CardColour.YELLOW, CardColour.RED):
            n = self.count(colour)
            if n:
                ups = sum(
                    1
                    for c in self.active()
                    if c.colour is colour and c.source is CardSource.ESCALATION
                )
                below = {CardColour.YELLOW: "蓝牌", CardColour.RED: "黄牌"}.get(colour, "")
                tail = f"（{'其中' + str(ups) + '张' if ups < n else ''}由三张{below}升级）"
                parts.append(f"{colour.chinese}{n}张" + (tail if ups else ""))
        return "、".join(parts) if parts else "无牌"

    @classmethod
    def replay(
        cls,
        character: str,
        cards: Iterable[Card],
        *,
        rules: PenaltyRules | None = None,
        player: str | None = None,
    ) -> CardLedger:
        """Rebuild a ledger from its decided and fixed cards in order (escalations recomputed)."""
        ledger = (
            rules.new_ledger(character, player)
            if rules
            else cls(character, players=(player,) if player else ())
        )
        for card in cards:
            if card.source is CardSource.ESCALATION:
                continue
            ledger, _ = ledger.add(card)
        return ledger


# ---------------------------------------------------------------------------------------------
# Ruleset data

_CODE = re.compile(
    r"^(?:第)?\s*([0-9]+|[^\s(（.\-]+?)\s*(?:条)?\s*(?:[(（.\-]\s*([0-9]+)\s*[)）]?)?$"
)


def normalise_article_code(code: str) -> str:
    """Canonical article code: ``3(1)`` for ``3（1）``, ``3.1``, ``3-1``, ``第3条（1）``.

    >>> [normalise_article_code(c) for c in ["3（1）", "3.1", " 第5条(2)", "7", "投票规则"]]
    ['3(1)', '3(1)', '5(2)', '7', '投票规则']
    """
    text = unicodedata.normalize("NFKC", str(code)).strip()
    m = _CODE.match(text)
    if not m:
        raise PenaltyError("unknown_article", f"无法识别的条款编号：{code!r}")
    head, item = m.group(1), m.group(2)
    return f"{head}({item})" if item else head


@dataclass(frozen=True)
class Article:
    """One article (or one item of it) of a ruleset's 判罚依据, in the seed's words."""

    ruleset: str
    code: str
    title: str
    text: str
    fixed: CardColour | None = None
    max_colour: CardColour | None = None
    note: str = ""

    def cite(self) -> str:
        """Chinese citation, e.g. ``判罚依据第3条（发誓与诅咒）（1）：禁止明显的发誓句式``."""
        head, _, item = self.code.partition("(")
        if head.isdigit():
            where = f"判罚依据第{head}条（{self.title}）" + (f"（{item[:-1]}）" if item else "")
        else:
            where = self.title
        return f"{where}：{self.text}" if self.text else where


@dataclass(frozen=True)
class ActivityRules:
    """潜水 thresholds (see :func:`activity_penalties`)."""

    count_water_posts: bool
    exemption: str  # "day" | "from_first_accelerated"
    single_day_min: int | None
    single_day_article: str
    single_day_quote: str
    two_days_min_total: int | None
    two_days_article: str
    two_days_quote: str
    three_days_min_each: int | None
    three_days_article: str
    three_days_quote: str
    no_vote: bool
    no_vote_article: str
    no_vote_quote: str


#: Every category a card may carry, as plain strings (:class:`~game_rules.enums.Category`).
KNOWN_CATEGORIES: frozenset[str] = frozenset(c.value for c in Category)


@dataclass(frozen=True)
class PenaltyRules:
    """A ruleset's penalty rules as its seed writes them (from ``<id>.penalties.yaml``)."""

    ruleset: str
    director: str
    colours: Mapping[CardColour, str]
    blues_per_yellow: int
    yellows_per_red: int
    escalation_quote: str
    red_may_declare_faction_lost: bool
    red_faction_quote: str
    eliminated_can_be_carded: bool
    eliminated_quote: str
    substitute_inherits: bool
    substitute_quote: str
    substitutions_per_character: int | None
    articles: Mapping[str, Mapping[str, Any]]
    categories: Mapping[str, str]
    activity: ActivityRules
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def new_ledger(self, character: str, player: str | None = None) -> CardLedger:
        """An empty ledger with this ruleset's escalation arithmetic."""
        return CardLedger(
            character,
            players=(player,) if player else (),
            blues_per_yellow=self.blues_per_yellow,
            yellows_per_red=self.yellows_per_red,
        )

    def article(self, code: str) -> Article:
        """The article ``code`` (``"3"`` or an item ``"3(1)"``), or :class:`PenaltyError`.

        >>> load_penalty_rules("m08").article("9(1)").fixed
        <CardColour.RED: 'red'>
        """
        canon = normalise_article_code(code)
        head, _, rest = canon.partition("(")
        entry = self.articles.get(head)
        if entry is None:
            raise PenaltyError("unknown_article", f"{self.ruleset}的判罚依据没有第{head}条")
        items: Mapping[Any, Any] = entry.get("items") or {}
        text = ""
        if rest:
            item = rest[:-1]
            found = {str(k): str(v) for k, v in items.items()}.get(item)
            if found is None:
                raise PenaltyError("unknown_article", f"{self.ruleset}第{head}条没有第（{item}）项")
            text = found
        elif len(items) == 1:
            text = str(next(iter(items.values())))
        fixed = entry.get("fixed")
        top = entry.get("max")
        return Article(
            ruleset=self.ruleset,
            code=canon,
            title=str(entry.get("title", head)),
            text=text,
            fixed=CardColour.parse(fixed) if fixed else None,
            max_colour=CardColour.parse(top) if top else None,
            note=str(entry.get("note", "")),
        )

    def article_for(self, category: str) -> Article | None:
        """The article a category falls under in this ruleset, or None (not an offence here)."""
        if category not in KNOWN_CATEGORIES:
            raise PenaltyError("unknown_category", f"未知的违规类别：{category!r}")
        code = self.categories.get(category)
        return self.article(code) if code else None

    def check_cardable(self, colour: CardColour, *, eliminated: bool) -> None:
        """Raise :class:`PenaltyError` if an eliminated character may not get this card here."""
        if eliminated and not self.eliminated_can_be_carded and colour is not CardColour.GREEN:
            raise PenaltyError("eliminated_not_cardable", "本场规则不对已出局角色判罚")


def _activity(data: Mapping[str, Any]) -> ActivityRules:
    def part(key: str) -> Mapping[str, Any]:
        value = data.get(key)
        return value if isinstance(value, Mapping) else {}

    single, two, three, vote = (
        part("single_day"),
        part("two_days"),
        part("three_days"),
        part("no_vote"),
    )
    exemption = str(data.get("exemption", "day"))
    if exemption not in {"day", "from_first_accelerated"}:
        raise ParameterError("bad_parameters", f"activity.exemption: {exemption!r}")

    def num(m: Mapping[str, Any], key: str) -> int | None:
        return int(m[key]) if m.get(key) is not None else None

    return ActivityRules(
        count_water_posts=bool(data.get("count_water_posts", False)),
        exemption=exemption,
        single_day_min=num(single, "min_posts"),
        single_day_article=str(single.get("article", "")),
        single_day_quote=str(single.get("quote", "")),
        two_days_min_total=num(two, "min_total"),
        two_days_article=str(two.get("article", "")),
        two_days_quote=str(two.get("quote", "")),
        three_days_min_each=num(three, "min_each"),
        three_days_article=str(three.get("article", "")),
        three_days_quote=str(three.get("quote", "")),
        no_vote=bool(vote),
        no_vote_article=str(vote.get("article", "")),
        no_vote_quote=str(vote.get("quote", "")),
    )


def penalty_rules_from_mapping(data: Mapping[str, Any]) -> PenaltyRules:
    """Validate a ``.penalties.yaml`` mapping into :class:`PenaltyRules`."""
    try:
        colours = {CardColour.parse(k): str(v) for k, v in dict(data["colours"]).items()}
        escalation = dict(data.get("escalation", {}))
        articles = {str(k): dict(v) for k, v in dict(data["articles"]).items()}
        categories = {str(k): str(v) for k, v in dict(data.get("categories", {})).items()}
        subs = data.get("substitutions_per_character", 1)
        rules = PenaltyRules(
            ruleset=str(data["ruleset"]),
            director=str(data.get("director", "导演")),
            colours=MappingProxyType(colours),
            blues_per_yellow=int(escalation.get("blues_per_yellow", 3)),
            yellows_per_red=int(escalation.get("yellows_per_red", 3)),
            escalation_quote=str(escalation.get("quote", "")),
            red_may_declare_faction_lost=bool(data.get("red_may_declare_faction_lost", False)),
            red_faction_quote=str(data.get("red_faction_quote", "")),
            eliminated_can_be_carded=bool(data.get("eliminated_can_be_carded", False)),
            eliminated_quote=str(data.get("eliminated_quote", "")),
            substitute_inherits=bool(data.get("substitute_inherits", True)),
            substitute_quote=str(data.get("substitute_quote", "")),
            substitutions_per_character=None if subs is None else int(subs),
            articles=MappingProxyType(articles),
            categories=MappingProxyType(categories),
            activity=_activity(dict(data.get("activity", {}))),
            raw=MappingProxyType(dict(data)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, GameRuleError):
            raise
        raise ParameterError("bad_parameters", f"penalty rules: {exc!r}") from exc
    unknown = set(categories) - KNOWN_CATEGORIES
    if unknown:
        raise ParameterError("bad_parameters", f"unknown categories {sorted(unknown)}")
    for category in categories:
        try:
            rules.article_for(category)
        except PenaltyError as exc:
            raise ParameterError("bad_parameters", f"category {category!r}: {exc.message}") from exc
    return rules


@lru_cache(maxsize=32)
def load_penalty_rules(ruleset: str) -> PenaltyRules:
    """The penalty rules of ``ruleset`` (``m08``, ``m72``, ``wa004``; a variant id such as
    ``m08_12`` falls back to the part before ``_``).

    >>> r = load_penalty_rules("wa004")
    >>> r.article_for("insult").cite()
    '判罚依据第1条（称谓与叹词）'
    >>> r.red_may_declare_faction_lost, r.eliminated_can_be_carded
    (True, True)
    """
    root = resources.files("game_rules.rulesets")
    for name in dict.fromkeys((ruleset, ruleset.split("_")[0])):
        path = root.joinpath(f"{name}.penalties.yaml")
        if path.is_file():
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ParameterError(message=f"rulesets/{name}.penalties.yaml is not a mapping")
            return penalty_rules_from_mapping(data)
    raise UnknownRulesetError(message=f"no penalty rules file rulesets/{ruleset}.penalties.yaml")


def _rules(rules: PenaltyRules | str) -> PenaltyRules:
    return load_penalty_rules(rules) if isinstance(rules, str) else rules


# ---------------------------------------------------------------------------------------------
# Suggestions


@dataclass(frozen=True)
class Suggestion:
    """A suggested card with its reasons (Chinese, citing the article and the history).

    ``allowed``: the colours the article lets the director choose from (fixed penalties allow
    only one). ``escalations``: what the card would cause in the given ledger, in Chinese.
    """

    colour: CardColour
    category: str
    article: Article | None
    reasons: tuple[str, ...]
    fixed: bool
    allowed: tuple[CardColour, ...]
    escalations: tuple[str, ...] = ()


def suggest_card(
    category: str,
    *,
    rules: PenaltyRules | str,
    article: str | None = None,
    history: Mapping[str, Sequence[CardColour | str]] | CardLedger | None = None,
    severity: CardColour | str | None = None,
    deliberate: bool = False,
) -> Suggestion:
    """Suggest a card for one offence of ``category`` (a moderation or game category).

    - An article that fixes its penalty (M08 串号 / 作弊 → red, 潜水 → yellow) gives it as written.
    - Otherwise: no earlier card of this category → blue (首次违规); an earlier blue → yellow
      (同一类行为已经吃过蓝牌后仍然明知故犯); an earlier yellow or red, or ``deliberate`` → red
      (屡教不改，恶意破坏游戏进行).
    - ``severity`` (a colour, e.g. the finding's hint from the seed) raises the floor.
    - An article with a ceiling (M08 1-4: "可私下提醒、也可直接判作蓝牌或黄牌") caps the colour.
    - A category the ruleset has no article for → green (not an offence here).

    ``history`` maps category -> earlier card colours, or is the character's :class:`CardLedger`
    (then the suggestion also says which escalation the card would cause).

    >>> s = suggest_card("oath", rules="m08", history={"oath": ["blue"]})
    >>> s.colour.chinese, s.reasons[0]
    ('黄牌', '判罚依据第3条（发誓与诅咒）')
    >>> suggest_card("multi_account", rules="m08").colour
    <CardColour.RED: 'red'>
    """
    rules = _rules(rules)
    if category not in KNOWN_CATEGORIES:
        raise PenaltyError("unknown_category", f"未知的违规类别：{category!r}")
    art = rules.article(article) if article else rules.article_for(category)
    ledger = history if isinstance(history, CardLedger) else None
    prior_map: Mapping[str, Sequence[CardColour | str]]
    if ledger is not None:
        prior_map = ledger.history_by_category()
    else:
        prior_map = history if isinstance(history, Mapping) else {}
    prior = [CardColour.parse(c) for c in prior_map.get(category, ())]
    prior = [c for c in prior if c is not CardColour.GREEN]
    colours = rules.colours

    if art is None:
        return Suggestion(
            CardColour.GREEN,
            category,
            None,
            (
                f"本场规则（{rules.ruleset}）的判罚依据没有对应此类（{category}）的条款",
                colours.get(CardColour.GREEN, "该行为没有违规。"),
                f"如{rules.director}认为违规，可按“{rules.director}认为违规的其他行为”另行判罚",
            ),
            False,
            (CardColour.GREEN,),
        )

    reasons = [art.cite()]
    if prior:
        counts = {c: prior.count(c) for c in CardColour if prior.count(c)}
        listed = "、".join(f"{c.chinese}{n}张" for c, n in counts.items())
        reasons.append(f"此前同类违规已判：{listed}")
    else:
        reasons.append("此前没有同类违规")

    if art.fixed is not None:
        colour = art.fixed
        reasons.append(art.note or f"此类行为直接判作{colour.chinese}")
        allowed: tuple[CardColour, ...] = (colour,)
        fixed = True
    else:
        fixed = False
        worst = max(prior, key=lambda c: c.rank, default=None)
        if deliberate:
            colour = CardColour.RED
            reasons.append(colours[CardColour.RED])
        elif worst is None:
            colour = CardColour.BLUE
            reasons.append(colours[CardColour.BLUE])
        elif worst is CardColour.BLUE:
            colour = CardColour.YELLOW
            reasons.append(colours[CardColour.YELLOW])
        else:
            colour = CardColour.RED
            reasons.append(colours[CardColour.RED])
        if severity is not None:
            floor = CardColour.parse(severity)
            if floor.rank > colour.rank:
                colour = floor
                reasons.append(f"情节（{floor.chinese}级）至少应判{floor.chinese}")
        ceiling = art.max_colour or CardColour.RED
        allowed = tuple(c for c in CardColour if c.rank <= ceiling.rank)
        if colour.rank > ceiling.rank:
            colour = ceiling
            reasons.append(f"本条最高判至{ceiling.chinese}：{art.note}")
        elif art.note:
            reasons.append(art.note)

    escalations: tuple[str, ...] = ()
    if ledger is not None and colour is not CardColour.GREEN:
        _, ups = ledger.add(Card(colour, "", art.code, category=category))
        escalations = tuple(e.describe() for e in ups)
        if ups:
            reasons.append(f"此牌将引起升级：{'；'.join(escalations)}（{rules.escalation_quote}）")
    return Suggestion(colour, category, art, tuple(reasons), fixed, allowed, escalations)


# ---------------------------------------------------------------------------------------------
# 潜水: posts and votes per day


@dataclass(frozen=True)
class DayActivity:
    """One character's discussion day: posts in the game's threads (water posts included in
    ``posts`` and also counted in ``water_posts``), whether a ballot counted at close (弃权
    included), and whether 加速 was in force that day."""

    day: int
    posts: int
    water_posts: int = 0
    voted: bool = True
    accelerated: bool = False


@dataclass(frozen=True)
class ActivityPenalty:
    """A fixed yellow for 潜水 or for not voting.

    ``kind``: ``posts_day``, ``posts_two_days``, ``posts_three_days`` or ``no_vote``;
    ``days``: the days it covers (the last one is ``day``).
    """

    day: int
    kind: str
    article: str
    reason: str
    days: tuple[int, ...]
    colour: CardColour = CardColour.YELLOW

    def card(self, player: str | None = None) -> Card:
        """The fixed card to add to the ledger."""
        category = "no_vote" if self.kind == "no_vote" else "lurking"
        return Card(
            self.colour,
            self.reason,
            self.article,
            CardSource.FIXED,
            category=category,
            day=self.day,
            player=player,
        )


def activity_penalties(
    days: Sequence[DayActivity], *, rules: PenaltyRules | str
) -> tuple[ActivityPenalty, ...]:
    """The 潜水 and no-vote yellows for one character over ``days`` (in day order).

    Days under 加速 are exempt (from the first accelerated day on, where the seed says
    "进程加速以前"). At most one 潜水 yellow per day, the single-day clause first; the two- and
    three-day clauses look only at consecutive exempt-free days not already penalised, so the same
    silence is not punished twice. The no-vote yellow is separate. A penalty for day d depends
    only on days <= d: calling this after each close and keeping the penalties with
    ``day == closed_day`` is consistent.

    >>> days = [DayActivity(1, 9), DayActivity(2, 9), DayActivity(3, 9, voted=False)]
    >>> [(p.day, p.kind, p.article) for p in activity_penalties(days, rules="m72")]
    [(3, 'posts_three_days', '5(2)'), (3, 'no_vote', '5(3)')]
    """
    act = _rules(rules).activity
    out: list[ActivityPenalty] = []
    run: list[tuple[int, int]] = []  # (day, counted posts) of the current unpenalised run
    accelerated_seen = False
    previous: int | None = None
    for d in days:
        if d.posts < 0 or d.water_posts < 0 or d.water_posts > d.posts:
            raise PenaltyError(
                "bad_activity", f"第{d.day}日：帖数不合理（{d.posts}/{d.water_posts}）"
            )
        if previous is not None and d.day <= previous:
            raise PenaltyError("bad_activity", "讨论日须按顺序且不重复")
        if previous is not None and d.day != previous + 1:
            run = []
        previous = d.day
        accelerated_seen = accelerated_seen or d.accelerated
        exempt = d.accelerated or (act.exemption == "from_first_accelerated" and accelerated_seen)
        if exempt:
            run = []
            continue
        n = d.posts if act.count_water_posts else d.posts - d.water_posts
        run.append((d.day, n))
        hit: tuple[str, str, str, tuple[int, ...]] | None = None
        covered: tuple[int, ...]
        if act.single_day_min is not None and n < act.single_day_min:
            hit = ("posts_day", act.single_day_article, act.single_day_quote, (d.day,))
        elif (
            act.two_days_min_total is not None
            and len(run) >= 2
            and run[-1][1] + run[-2][1] < act.two_days_min_total
        ):
            covered = (run[-2][0], d.day)
            hit = ("posts_two_days", act.two_days_article, act.two_days_quote, covered)
        elif (
            act.three_days_min_each is not None
            and len(run) >= 3
            and all(p < act.three_days_min_each for _, p in run[-3:])
        ):
            covered = tuple(day for day, _ in run[-3:])
            hit = ("posts_three_days", act.three_days_article, act.three_days_quote, covered)
        if hit:
            kind, article, quote, covered = hit
            counts = "、".join(f"第{day}日{p}帖" for day, p in run if day in covered)
            out.append(ActivityPenalty(d.day, kind, article, f"潜水（{counts}）：{quote}", covered))
            run = []
        if act.no_vote and not d.voted:
            reason = f"第{d.day}日未投票：{act.no_vote_quote}"
            out.append(ActivityPenalty(d.day, "no_vote", act.no_vote_article, reason, (d.day,)))
    return tuple(out)
