"""Adapter over :mod:`game_rules.penalties` (the seeds' 判罚制度) for stored cards.

The service stores every card as a database row (ids are row ids); the penalties module works on
an immutable :class:`~game_rules.penalties.CardLedger` whose card ids are ledger positions. A
character's rows, ordered by id, are exactly the ledger's cards in order (escalation cards are
stored right after the card that caused them, in the order the ledger made them), so positions
map to row ids one to one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from game_rules.errors import GameRuleError

# Repeated on purpose: each module imports by name what it uses (an import list, not logic).
from game_rules.penalties import (
    KNOWN_CATEGORIES,
    Card,
    CardColour,
    CardLedger,
    CardSource,
    DayActivity,
    PenaltyRules,
    activity_penalties,
    load_penalty_rules,
    suggest_card,
)
from moderation.screen import display_names

GREEN = CardColour.GREEN.value
BLUE = CardColour.BLUE.value
YELLOW = CardColour.YELLOW.value
RED = CardColour.RED.value

#: stored ``cards.source`` values <-> the penalties module's sources
SOURCES = {
    "decision": CardSource.DECIDED,
    "fixed": CardSource.FIXED,
    "escalation": CardSource.ESCALATION,
}


def category_names() -> Mapping[str, str]:
    """Chinese names of every category, from ``lexicons/categories.yaml`` (the one table)."""
    return display_names()["categories"]


def category_keys() -> tuple[str, ...]:
    """Every category a card may carry, in the table's order."""
    return tuple(k for k in category_names() if k in KNOWN_CATEGORIES)


def rules(ruleset: str) -> PenaltyRules:
    """The ruleset's penalty rules (``m08_12`` falls back to ``m08``)."""
    return load_penalty_rules(ruleset)


def colour_name(colour: str) -> str:
    """The seeds' name of a colour.

    >>> colour_name("yellow")
    '黄牌'
    """
    try:
        return CardColour.parse(colour).chinese
    except GameRuleError:
        return colour


def category_name(category: str) -> str:
    """Chinese name of a finding or game category."""
    return category_names().get(category, category)


def via_name(via: str) -> str:
    """Chinese name of how a finding matched."""
    return display_names()["via"].get(via, via)


def known_category(category: str) -> bool:
    """Whether the penalties module knows ``category``."""
    return category in KNOWN_CATEGORIES


def severity_colour(severity: str) -> CardColour | None:
    """A finding's severity hint as a colour floor, when it names one."""
    if not severity:
        return None
    try:
        return CardColour.parse(severity)
    except GameRuleError:
        return None


@dataclass(frozen=True)
class StoredCard:
    """A card row as the ledger needs it."""

    id: int
    colour: str
    source: str
    category: str | None
    reason: str
    day: int


def ledger_of(ruleset: str, character: str, stored: Sequence[StoredCard]) -> CardLedger:
    """Replay a character's stored cards into the penalties module's ledger."""
    primary = [
        Card(
            CardColour.parse(c.colour),
            c.reason,
            source=SOURCES[c.source],
            category=c.category,
            day=c.day,
        )
        for c in stored
        if c.source != "escalation"
    ]
    return CardLedger.replay(character, primary, rules=rules(ruleset))


@dataclass(frozen=True)
class SuggestedCard:
    """A suggestion: colour, the colours the article allows, and the reasons (Chinese)."""

    colour: str
    allowed: tuple[str, ...]
    reasons: tuple[str, ...]
    article: dict[str, str] | None
    fixed: bool


def article_json(ruleset: str, article: Any) -> dict[str, str] | None:
    """A penalties ``Article`` as JSON (``cite`` is the Chinese citation)."""
    if article is None:
        return None
    return {
        "ruleset": ruleset,
        "code": article.code,
        "title": article.title,
        "text": article.text,
        "cite": article.cite(),
    }


def suggest(
    ruleset: str,
    category: str,
    severity: str,
    ledger: CardLedger,
    *,
    article: str | None = None,
) -> SuggestedCard:
    """The seeds' suggestion for one offence of ``category`` given the character's ledger."""
    rule_set = rules(ruleset)
    if not known_category(category):
        category = "other"
    floor = severity_colour(severity)
    try:
        found = suggest_card(
            category, rules=rule_set, article=article, history=ledger, severity=floor
        )
    except GameRuleError:
        # a code the penalty articles do not hold: the category's own article decides
        found = suggest_card(category, rules=rule_set, history=ledger, severity=floor)
    return SuggestedCard(
        colour=found.colour.value,
        allowed=tuple(c.value for c in found.allowed),
        reasons=tuple(found.reasons),
        article=article_json(ruleset, found.article),
        fixed=found.fixed,
    )


def category_article(ruleset: str, category: str) -> dict[str, str] | None:
    """The article a category falls under in ``ruleset`` (None: not an offence there)."""
    if not known_category(category):
        return None
    return article_json(ruleset, rules(ruleset).article_for(category))


@dataclass(frozen=True)
class Step:
    """One escalation produced by adding a card: ``merged`` ledger positions -> ``colour``."""

    colour: str
    merged_positions: tuple[int, ...]
    position: int
    reason: str


def add_card(
    ruleset: str,
    ledger: CardLedger,
    colour: str,
    reason: str,
    *,
    source: str,
    category: str | None,
    day: int,
) -> tuple[CardLedger, list[Step]]:
    """Add a decided or fixed card; the new ledger and the escalations it caused, in order.

    Each escalation's reason names the merged cards and quotes the seed's sentence.
    """
    quote = rules(ruleset).escalation_quote
    new, ups = ledger.add(
        Card(
            CardColour.parse(colour),
            reason,
            source=SOURCES[source],
            category=category,
            day=day,
        )
    )
    steps = [
        Step(
            e.colour.value,
            tuple(c.id for c in e.merged),
            e.card.id,
            f"{e.describe()}（{quote}）" if quote else e.describe(),
        )
        for e in ups
    ]
    return new, steps


def check_cardable(ruleset: str, colour: str, *, eliminated: bool) -> None:
    """Raise the penalties module's error when an eliminated character may not be carded here."""
    rules(ruleset).check_cardable(CardColour.parse(colour), eliminated=eliminated)


def may_declare_faction_lost(ruleset: str) -> bool:
    """Whether a red card may come with 判负 of the character's faction in this ruleset."""
    return rules(ruleset).red_may_declare_faction_lost


@dataclass(frozen=True)
class Penalty:
    """A fixed 潜水 / 未投票 yellow for the day being closed."""

    character: str
    colour: str
    category: str
    article: dict[str, str] | None
    reason: str


def activity(
    ruleset: str,
    *,
    day: int,
    subjects: Sequence[str],
    voted: set[str],
    counts: Mapping[int, Mapping[str, int]],
    water: Mapping[int, Mapping[str, int]],
    accelerated_days: set[int],
) -> list[Penalty]:
    """The fixed yellows due when ``day`` closes, per the seeds' 潜水 articles.

    ``counts`` are non-water posts per day and character, ``water`` the water posts.
    """
    rule_set = rules(ruleset)
    out: list[Penalty] = []
    for character in subjects:
        days = [
            DayActivity(
                d,
                posts=counts.get(d, {}).get(character, 0) + water.get(d, {}).get(character, 0),
                water_posts=water.get(d, {}).get(character, 0),
                voted=(character in voted) if d == day else True,
                accelerated=d in accelerated_days,
            )
            for d in range(1, day + 1)
        ]
        for p in activity_penalties(days, rules=rule_set):
            if p.day != day:
                continue
            card = p.card()
            category = card.category or "lurking"
            out.append(
                Penalty(
                    character,
                    p.colour.value,
                    category,
                    article_json(ruleset, rule_set.article(p.article)),
                    f"判罚依据{p.article}：{p.reason}",
                )
            )
    return out
