"""Read the project's lexicon data files (format: ``docs/lexicons.md``).

Everything here is plain parsing into frozen value types; matching lives in :mod:`moderation`.
The files sit next to this module and are read with :mod:`importlib.resources`, so an installed
package works the same as the source tree.

>>> entries = load_terms()
>>> any(e.term == "傻逼" and e.category == "insult" for e in entries)
True
>>> load_articles("m08").categories["vest"].articles["past"].code
'4(2)'
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import yaml

__all__ = [
    "CATEGORIES",
    "RULE_CATEGORIES",
    "TERM_OPTIONS",
    "AllowEntry",
    "ArticleText",
    "CategoryArticles",
    "LexiconFormatError",
    "PatternSpec",
    "RulesetArticles",
    "SeverityHint",
    "TermEntry",
    "known_rulesets",
    "load_allow",
    "load_articles",
    "load_font_rules",
    "load_game_vocab",
    "load_keep_doubles",
    "load_letter_words",
    "load_patterns",
    "load_shapes",
    "load_terms",
    "load_water",
    "read_text",
]

#: Categories that lexicon terms and sentence patterns can carry: the screener's one list (the
#: trainer's labels are these); each is a ``game_rules.enums.Category``, in its order, and
#: ``categories.yaml`` names it (tests/test_one_source.py).
CATEGORIES: tuple[str, ...] = (
    "insult",
    "oath",
    "vest",
    "director",
    "evidence",
    "real_life",
    "meta",
    "emotional",
)
#: Categories decided by rules over the raw post rather than by words.
RULE_CATEGORIES: tuple[str, ...] = ("font", "water")

#: Options a term line may carry (fourth column, comma separated).
TERM_OPTIONS = frozenset(
    {
        "boundary",  # must start and end on jieba word boundaries (automatic up to 2 characters)
        "no-boundary",  # a short domain word (马甲, 考试) that counts even inside a longer word
        "variants",  # a two-character term also gets homophone, shape and wildcard forms
        "initials",  # a two-character term also gets initials forms (sb, 傻b)
        "no-homophone",
        "no-initials",
        "no-shape",
        "no-split",
    }
)

#: Per-category term files, then files whose rows may be of any category: English and
#: mixed-script terms, dialect forms (their category column says which).
MIXED_TERM_FILES: tuple[str, ...] = ("terms/english.tsv", "terms/dialect.tsv")
TERM_FILES: tuple[str, ...] = tuple(f"terms/{c}.tsv" for c in CATEGORIES) + MIXED_TERM_FILES

_VIEWS = frozenset({"folded", "clean", "original"})


class LexiconFormatError(ValueError):
    """A lexicon data file breaks the documented format (file and line named in the message)."""


def read_text(name: str) -> str:
    """The text of one data file under ``lexicons/`` (UTF-8)."""
    return resources.files("lexicons").joinpath(name).read_text(encoding="utf-8")


def _data_lines(name: str) -> Iterator[tuple[int, str]]:
    for number, raw in enumerate(read_text(name).splitlines(), start=1):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        yield number, line


@dataclass(frozen=True)
class TermEntry:
    """One lexicon line: a term, its category and article key, match options and weight."""

    term: str
    category: str
    article: str
    options: frozenset[str] = frozenset()
    weight: float = 1.0
    source: str = ""


def _parse_term_line(name: str, number: int, line: str) -> TermEntry:
    cols = line.split("\t")
    if len(cols) < 3:
        raise LexiconFormatError(f"{name}:{number}: expected term<TAB>category<TAB>article")
    term, category, article = (c.strip() for c in cols[:3])
    if category not in CATEGORIES:
        raise LexiconFormatError(f"{name}:{number}: unknown category {category!r}")
    if not term or not article:
        raise LexiconFormatError(f"{name}:{number}: empty term or article")
    options: set[str] = set()
    weight = 1.0
    if len(cols) > 3 and cols[3].strip():
        for opt in cols[3].split(","):
            opt = opt.strip()
            if opt.startswith("weight="):
                try:
                    weight = float(opt.removeprefix("weight="))
                except ValueError as exc:
                    raise LexiconFormatError(f"{name}:{number}: bad weight {opt!r}") from exc
                if not 0.0 < weight <= 1.0:
                    raise LexiconFormatError(f"{name}:{number}: weight must be in (0, 1]")
            elif opt in TERM_OPTIONS:
                options.add(opt)
            else:
                raise LexiconFormatError(f"{name}:{number}: unknown option {opt!r}")
    return TermEntry(term, category, article, frozenset(options), weight, f"{name}:{number}")


@cache
def load_terms() -> tuple[TermEntry, ...]:
    """Every term line of every ``lexicons/terms/<category>.tsv`` file."""
    out: list[TermEntry] = []
    for name in TERM_FILES:
        for number, line in _data_lines(name):
            out.append(_parse_term_line(name, number, line))
    return tuple(out)


@dataclass(frozen=True)
class AllowEntry:
    """An allowed word: a hit lying inside it is not a violation (for ``category`` or all)."""

    word: str
    category: str | None = None


@cache
def load_allow() -> tuple[AllowEntry, ...]:
    """``allow.tsv``: word, optionally a TAB and the one category it is allowed for."""
    out: list[AllowEntry] = []
    for number, line in _data_lines("allow.tsv"):
        cols = [c.strip() for c in line.split("\t")]
        category = cols[1] if len(cols) > 1 and cols[1] else None
        if category is not None and category not in CATEGORIES:
            raise LexiconFormatError(f"allow.tsv:{number}: unknown category {category!r}")
        out.append(AllowEntry(cols[0], category))
    return tuple(out)


@cache
def load_game_vocab() -> tuple[tuple[str, int, str], ...]:
    """``game_vocab.txt`` in jieba's user-dictionary format: ``word freq tag`` per line."""
    out: list[tuple[str, int, str]] = []
    for number, line in _data_lines("game_vocab.txt"):
        cols = line.split()
        if len(cols) != 3 or not cols[1].isdigit():
            raise LexiconFormatError(f"game_vocab.txt:{number}: expected 'word freq tag'")
        out.append((cols[0], int(cols[1]), cols[2]))
    return tuple(out)


@cache
def load_shapes() -> Mapping[str, tuple[str, ...]]:
    """``shapes.tsv``: a character and the look-alike characters players write instead of it."""
    out: dict[str, tuple[str, ...]] = {}
    for number, line in _data_lines("shapes.tsv"):
        cols = line.split("\t")
        if len(cols) != 2 or len(cols[0].strip()) != 1:
            raise LexiconFormatError(f"shapes.tsv:{number}: expected char<TAB>variants")
        out[cols[0].strip()] = tuple(cols[1].split())
    return out


@cache
def load_keep_doubles() -> frozenset[str]:
    """``keep_doubles.txt``: characters whose exact doubling is a word (妈妈), not an evasion."""
    chars: set[str] = set()
    for _, line in _data_lines("keep_doubles.txt"):
        chars.update(line.split())
    return frozenset(chars)


@dataclass(frozen=True)
class PatternSpec:
    """One sentence pattern from ``patterns.yaml`` (regex over one normalisation view)."""

    id: str
    category: str
    article: str
    regex: str
    view: str = "folded"
    confidence: float = 0.85
    unless: str | None = None
    clause: bool = False  # a match must lie within one clause of the original text
    note: str = ""


def _require(obj: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in obj:
        raise LexiconFormatError(f"{where}: missing {key!r}")
    return obj[key]


@cache
def load_patterns() -> tuple[PatternSpec, ...]:
    """The ``patterns`` list of ``patterns.yaml``; each regex is checked to compile."""
    data = yaml.safe_load(read_text("patterns.yaml"))
    out: list[PatternSpec] = []
    seen: set[str] = set()
    for i, item in enumerate(data.get("patterns", [])):
        where = f"patterns.yaml: pattern #{i + 1}"
        pid = str(_require(item, "id", where))
        if pid in seen:
            raise LexiconFormatError(f"{where}: duplicate id {pid!r}")
        seen.add(pid)
        spec = PatternSpec(
            id=pid,
            category=str(_require(item, "category", where)),
            article=str(_require(item, "article", where)),
            regex=str(_require(item, "regex", where)),
            view=str(item.get("view", "folded")),
            confidence=float(item.get("confidence", 0.85)),
            unless=item.get("unless"),
            clause=bool(item.get("clause", False)),
            note=str(item.get("note", "")),
        )
        if spec.category not in CATEGORIES:
            raise LexiconFormatError(f"{where}: unknown category {spec.category!r}")
        if spec.view not in _VIEWS:
            raise LexiconFormatError(f"{where}: unknown view {spec.view!r}")
        for rx in (spec.regex, spec.unless):
            if rx is None:
                continue
            try:
                re.compile(rx)
            except re.error as exc:
                raise LexiconFormatError(f"{where} ({pid}): bad regex: {exc}") from exc
        out.append(spec)
    return tuple(out)


@cache
def load_font_rules() -> Mapping[str, Any]:
    """The ``font`` section of ``patterns.yaml`` (reserved colours and size thresholds)."""
    data = yaml.safe_load(read_text("patterns.yaml"))
    font: Mapping[str, Any] = data["font"]
    return font


@cache
def load_water() -> Mapping[str, Any]:
    """The ``water`` section of ``patterns.yaml`` (filler words of a 纯水帖)."""
    data = yaml.safe_load(read_text("patterns.yaml"))
    water: Mapping[str, Any] = data["water"]
    return water


@dataclass(frozen=True)
class SeverityHint:
    """The seed's own guidance on how hard to punish: card colours it names, and its words."""

    cards: tuple[str, ...]
    text: str


@dataclass(frozen=True)
class ArticleText:
    """One numbered clause of a ruleset's 判罚依据, quoted from the seed: what a finding cites.

    ``severity`` overrides the category's hint when the seed words this clause differently.
    The texts are the game core's (``game_rules/rulesets/<id>.penalties.yaml``), copied here
    because the screener may not read the core, and compared with it by tests/test_one_source.py.

    >>> ArticleText("3(1)", "禁止明显的发誓、诅咒句式", ruleset="m08").label
    'M08 判罚依据 3(1)'
    """

    code: str
    text: str
    severity: SeverityHint | None = None
    ruleset: str = ""

    @property
    def label(self) -> str:
        """Human-readable citation, e.g. ``M08 判罚依据 3(1)``."""
        return f"{self.ruleset.upper()} 判罚依据 {self.code}"


@dataclass(frozen=True)
class CategoryArticles:
    """A category's clauses in one ruleset, keyed by article key, and its severity hint.

    ``unruled`` holds the keys the ruleset explicitly has no clause for (``key: null`` in the
    file): a hit with such a key is no finding there, instead of falling back to ``default``.
    """

    severity: SeverityHint
    articles: Mapping[str, ArticleText]
    default: str
    unruled: frozenset[str] = frozenset()


@dataclass(frozen=True)
class RulesetArticles:
    """Which categories apply in a ruleset, with the clause each article key cites."""

    ruleset: str
    title: str
    section: str
    categories: Mapping[str, CategoryArticles] = field(default_factory=dict)
    fixed: Mapping[str, tuple[ArticleText, SeverityHint]] = field(default_factory=dict)


_CARDS = frozenset({"reminder", "blue", "yellow", "red"})


@cache
def known_rulesets() -> tuple[str, ...]:
    """Ruleset ids that have an ``articles/<id>.yaml`` file."""
    folder = resources.files("lexicons").joinpath("articles")
    return tuple(
        sorted(p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml"))
    )


@cache
def load_articles(ruleset: str) -> RulesetArticles:
    """``articles/<ruleset>.yaml``; raises :class:`KeyError` for a ruleset without one."""
    if ruleset not in known_rulesets():
        raise KeyError(ruleset)
    name = f"articles/{ruleset}.yaml"
    data = yaml.safe_load(read_text(name))
    cats: dict[str, CategoryArticles] = {}
    for cat, body in (data.get("categories") or {}).items():
        where = f"{name}: {cat}"
        if cat not in CATEGORIES and cat not in RULE_CATEGORIES:
            raise LexiconFormatError(f"{where}: unknown category")
        listed = _require(body, "articles", where).items()
        arts = {
            str(key): _article(a, f"{where}.{key}", ruleset) for key, a in listed if a is not None
        }
        unruled = frozenset(str(key) for key, a in listed if a is None)
        if not arts:
            raise LexiconFormatError(f"{where}: no article with a clause")
        default = str(body.get("default", next(iter(arts))))
        if default not in arts:
            raise LexiconFormatError(f"{where}: default {default!r} is not an article key")
        cats[cat] = CategoryArticles(
            _severity(_require(body, "severity", where), where), arts, default, unruled
        )
    fixed: dict[str, tuple[ArticleText, SeverityHint]] = {}
    for key, body in (data.get("fixed") or {}).items():
        where = f"{name}: fixed.{key}"
        fixed[str(key)] = (
            _article(body, where, ruleset),
            _severity(_require(body, "severity", where), where),
        )
    return RulesetArticles(
        ruleset=ruleset,
        title=str(data.get("title", ruleset)),
        section=str(data.get("section", "判罚依据")),
        categories=cats,
        fixed=fixed,
    )


def _severity(sev: Mapping[str, Any], where: str) -> SeverityHint:
    cards = tuple(sev.get("cards", ()))
    if not set(cards) <= _CARDS:
        raise LexiconFormatError(f"{where}: cards must be among {sorted(_CARDS)}")
    return SeverityHint(cards, str(sev.get("text", "")))


def _article(body: Mapping[str, Any], where: str, ruleset: str) -> ArticleText:
    sev = body.get("severity")
    return ArticleText(
        str(_require(body, "code", where)),
        str(_require(body, "text", where)),
        _severity(sev, where) if sev is not None else None,
        ruleset,
    )


@cache
def load_letter_words() -> frozenset[str]:
    """``letter_words.txt``: letter runs (two letters or more) that are words or shorthand, not a
    term's initials or spelled sound."""
    out: set[str] = set()
    for number, line in _data_lines("letter_words.txt"):
        word = line.split("\t")[0].strip()
        if len(word) < 2 or not (word.isascii() and word.isalpha() and word.islower()):
            raise LexiconFormatError(
                f"letter_words.txt:{number}: expected two or more lowercase letters"
            )
        out.add(word)
    return frozenset(out)
