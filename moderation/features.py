"""Turn posts into sparse feature vectors for the post classifier.

A post is read through several views of its normalised text (:mod:`moderation.normalize`),
so that a model trained on one spelling of a phrase also recognises its evasions:

* ``c:`` character n-grams of the folded text (traditional, width, noise, repeats folded away);
* ``p:`` pinyin-syllable n-grams (homophones 煞笔/沙比/傻逼 and romanised "sha bi" share them);
* ``i:`` initials n-grams (``nmsl`` in letters and 你妈死了 in characters share them);
* ``e:`` emoji and other pictographs of the original text (你🐴的: folding drops symbols);
* ``l:`` lexicon hits, when the lexicon matcher is importable (a category and how it matched).

Tokens are plain strings; :class:`FeatureSpace` maps them to columns through a fixed, sorted
vocabulary learnt from the training split, weighted with a smoothed idf (see its docstring).
Everything is deterministic: the same token lists always give the same matrix.

>>> tokens = post_tokens("你是不是sb")
>>> "c:不是" in tokens and "i:ssb" in tokens
True
>>> space = FeatureSpace.fit([post_tokens("傻逼"), post_tokens("金水")], min_df=1)
>>> space.transform([post_tokens("傻逼")]).shape[0]
1
"""

from __future__ import annotations

import functools
import importlib
import itertools
import math
import operator
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from moderation.implementation import reference
from moderation.normalize import NormalizedText, normalize
from moderation.pinyin_table import lazy_pinyin

if TYPE_CHECKING:  # SciPy only for training's matrices: screening never imports it (22 MiB)
    from scipy import sparse

# Bump whenever the token stream changes: a model trained on other tokens would silently mis-score.
FEATURE_VERSION = 1

_K = TypeVar("_K")
_V = TypeVar("_V")

# Longer letter runs are prose (English, URLs), not an evasion: they stay letters.
_MAX_PINYIN_RUN = 40


@dataclass(frozen=True)
class FeatureConfig:
    """Which views feed the model and the n-gram ranges over each (inclusive)."""

    char_ngrams: tuple[int, int] = (1, 3)
    pinyin_ngrams: tuple[int, int] = (1, 3)
    initials_ngrams: tuple[int, int] = (2, 4)
    lexicon: bool = True

    def as_dict(self) -> dict[str, Any]:
        """Plain data for the model file."""
        return {
            "char_ngrams": list(self.char_ngrams),
            "pinyin_ngrams": list(self.pinyin_ngrams),
            "initials_ngrams": list(self.initials_ngrams),
            "lexicon": self.lexicon,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FeatureConfig:
        """Inverse of :meth:`as_dict`."""
        return cls(
            char_ngrams=_pair(data["char_ngrams"]),
            pinyin_ngrams=_pair(data["pinyin_ngrams"]),
            initials_ngrams=_pair(data["initials_ngrams"]),
            lexicon=bool(data["lexicon"]),
        )


def _pair(value: Sequence[int]) -> tuple[int, int]:
    low, high = (int(v) for v in value)
    return (low, high)


@dataclass(frozen=True)
class TextViews:
    """The normalised views of one post that features are drawn from.

    ``syllables`` and ``initials`` run in parallel: one entry per pronounceable unit (a Chinese
    character, a pinyin syllable spelt in letters, or any other kept letter or digit).
    """

    folded: str
    syllables: tuple[str, ...]
    initials: str


# ------------------------------------------------------------------------------------------------
# Views


@functools.lru_cache(maxsize=1)
def _pinyin_syllables() -> frozenset[str]:
    """Every toneless pinyin syllable pypinyin knows (about 420), for reading romanised runs."""
    from moderation.pinyin_table import normal_syllables

    return normal_syllables()


@functools.lru_cache(maxsize=4096)  # letter runs repeat (sb, nmsl, qq); the result is immutable
def split_pinyin(run: str) -> tuple[str, ...]:
    """Read a run of lowercase letters as pinyin where it can be, letter by letter where it cannot.

    Among all readings, the one that leaves the fewest letters unread wins, then the one with the
    fewest pieces, so a romanised phrase reads as its syllables and an abbreviation stays letters.

    >>> split_pinyin("nimasile")
    ('ni', 'ma', 'si', 'le')
    >>> split_pinyin("sbnimade")
    ('s', 'b', 'ni', 'ma', 'de')
    >>> split_pinyin("tmd")
    ('t', 'm', 'd')
    """
    if len(run) > _MAX_PINYIN_RUN:
        return tuple(run)
    syllables = _pinyin_syllables()
    # best[i] = (unread letters, pieces, reading) for run[i:]
    best: list[tuple[int, int, tuple[str, ...]]] = [(0, 0, ())] * (len(run) + 1)
    for start in range(len(run) - 1, -1, -1):
        unread, pieces, rest = best[start + 1]
        choice = (unread + 1, pieces + 1, (run[start], *rest))
        for end in range(start + 2, min(len(run), start + 6) + 1):
            piece = run[start:end]
            if piece in syllables:
                unread, pieces, rest = best[end]
                choice = min(choice, (unread, pieces + 1, (piece, *rest)))
        if run[start] in syllables:
            unread, pieces, rest = best[start + 1]
            choice = min(choice, (unread, pieces + 1, (run[start], *rest)))
        best[start] = choice
    return best[0][2]


# Han characters as :func:`moderation.normalize.is_han` sees them, as one regex class.
_HAN = "\u4e00-\u9fff\u3400-\u4dbf\U00020000-\U0003134f\uf900-\ufaff\u3007"
# One pass over the folded text: a Han run, a lowercase letter run, or any other single character.
_UNITS = re.compile(f"([{_HAN}]+)|([a-z]+)|(.)", re.DOTALL)


class _Memo(dict[_K, _V]):
    """A dict that fills itself with ``compute(key)`` on first sight, up to ``limit`` entries.

    A known key then costs one C-level lookup (``lru_cache`` spends more on its bookkeeping than
    the lookups these memos serve, which run for every post screened).
    """

    def __init__(self, compute: Callable[[_K], _V], limit: int = 1 << 16) -> None:
        super().__init__()
        self._compute = compute
        self._limit = limit

    def __missing__(self, key: _K) -> _V:
        value = self._compute(key)
        if len(self) < self._limit:
            self[key] = value
        return value


def han_pinyin(run: str) -> list[str]:
    """``pypinyin.lazy_pinyin(run)`` for a run of Han characters, without pypinyin.

    Read from :mod:`moderation.pinyin_table` (pypinyin's own phrase cuts and readings, phrase
    context included, from compact tables built once per machine). Runs repeat (金水, 查杀,
    预言家), so each distinct run is read once (a bounded memo). On the reference path
    (:mod:`moderation.implementation`) this is ``lazy_pinyin(run)`` itself.

    >>> han_pinyin("银行行长"), han_pinyin("沙比")
    (['yin', 'hang', 'hang', 'zhang'], ['sha', 'bi'])
    """
    if reference():
        return lazy_pinyin(run)  # pypinyin itself on the reference path
    return list(_run_pinyin[run])


def _han_pinyin(run: str) -> tuple[str, ...]:
    """:func:`han_pinyin` of one run, computed (the memo's fill)."""
    return tuple(lazy_pinyin(run))


# the pinyin of each distinct Han run seen (a run is at most a post long; 65,536 runs at most)
_run_pinyin = _Memo(_han_pinyin)


def text_views(text: str | NormalizedText) -> TextViews:
    """Compute the folded text and its parallel syllable and initials streams.

    Chinese characters read as their most likely pinyin (pypinyin with phrase context); letter
    runs read as pinyin where they can (``shabi`` -> ``sha bi``); any other letter or digit stands
    for itself, so ``nmsl`` gives the initials stream ``nmsl``. Pass the post's
    :class:`~moderation.normalize.NormalizedText` when it is already at hand (the screener does) to
    skip normalising again.

    >>> views = text_views("煞笔 shabi")
    >>> views.syllables
    ('sha', 'bi', 'sha', 'bi')
    >>> views.initials
    'sbsb'
    """
    folded = (text if isinstance(text, NormalizedText) else normalize(text)).folded
    syllables = _syllables(folded)
    return TextViews(
        folded=folded, syllables=tuple(syllables), initials="".join([s[0] for s in syllables])
    )


def _syllables(folded: str) -> list[str]:
    """The syllable stream of a folded text (see :func:`text_views`)."""
    syllables: list[str] = []
    runs = lazy_pinyin if reference() else _run_pinyin.__getitem__  # han_pinyin without a copy
    for han, letters, other in _UNITS.findall(folded):
        if han:
            syllables += runs(han)
        elif letters:
            syllables.extend(split_pinyin(letters))
        elif other.isalnum():
            syllables.append(other)
    return syllables


# ------------------------------------------------------------------------------------------------
# Lexicon hits (optional)


def _ngrams(items: Sequence[str], low: int, high: int, joiner: str) -> list[str]:
    grams: list[str] = []
    for size in range(low, high + 1):
        grams.extend(joiner.join(items[i : i + size]) for i in range(len(items) - size + 1))
    return grams


LexiconHits = Callable[[str], Iterable[tuple[str, str]]]


@functools.lru_cache(maxsize=1)
def lexicon_hits_function() -> LexiconHits | None:
    """The lexicon matcher ``hits(text) -> [(category, via), ...]`` if importable, else None.

    The matcher is optional: the classifier must train and load without it, and a model records
    whether it used lexicon features so that prediction uses the same tokens.
    """
    try:
        module = importlib.import_module("moderation.lexicon")
    except ImportError:
        return None
    hits: LexiconHits | None = getattr(module, "category_hits", None)
    return hits


def lexicon_digest() -> str:
    """SHA-256 over the lexicon data files (``lexicons/**``, not code) that lexicon features read.

    A model records it so that a stale model (lexicons edited since training) can be recognised.
    """
    import hashlib
    from importlib import resources

    digest = hashlib.sha256()
    root = resources.files("lexicons")

    def walk(node: Any, prefix: str) -> None:
        for child in sorted(node.iterdir(), key=lambda c: c.name):
            name = f"{prefix}{child.name}"
            if child.is_dir():
                if child.name != "__pycache__":
                    walk(child, name + "/")
            elif child.name.endswith((".tsv", ".txt", ".yaml", ".yml", ".json")):
                digest.update(name.encode() + b"\0" + child.read_bytes() + b"\0")

    walk(root, "")
    return digest.hexdigest()


Hits = Iterable[tuple[str, str]]


def post_tokens(
    text: str,
    config: FeatureConfig | None = None,
    *,
    normalized: NormalizedText | None = None,
    hits: Hits | None = None,
) -> list[str]:
    """All feature tokens of one post (with repeats: term frequency matters).

    This is the definition of the features (training reads it). ``normalized`` (the post's
    :func:`~moderation.normalize.normalize` result) and ``hits`` (its ``(category, via)`` lexicon
    and pattern hits) may be passed when already computed; by default both are computed here.

    >>> sorted(t for t in post_tokens("沙比") if t.startswith("p:"))
    ['p:bi', 'p:sha', 'p:sha bi']
    """
    config = config or FeatureConfig()
    views = text_views(normalized if normalized is not None else text)
    tokens = ["c:" + g for g in _ngrams(list(views.folded), *config.char_ngrams, joiner="")]
    tokens += ["p:" + g for g in _ngrams(list(views.syllables), *config.pinyin_ngrams, joiner=" ")]
    tokens += ["i:" + g for g in _ngrams(list(views.initials), *config.initials_ngrams, joiner="")]
    tokens += ["e:" + c for c in text if unicodedata.category(c) == "So"]
    if config.lexicon:
        found = _lexicon_hits(text, hits)
        if found is not None:
            for category, via in found:
                tokens += [f"l:{category}", f"l:{category}:{via}"]
    return tokens


def _lexicon_hits(text: str, hits: Hits | None) -> Hits | None:
    if hits is not None:
        return hits
    function = lexicon_hits_function()
    return function(text) if function is not None else None


Span = tuple[int, int]
#: A lexicon or pattern hit with its place in the original text: ``(category, via, start, end)``.
HitSpan = tuple[str, str, int, int]


def lexicon_hit_spans(normalized: NormalizedText) -> list[HitSpan] | None:
    """The lexicon and sentence-pattern hits of a post with their original spans, or None.

    The same hits as :func:`moderation.lexicon.category_hits` (the ``l:`` features), where they
    are; None when the lexicon matcher is not importable.
    """
    try:
        from moderation.lexicon import default_matcher, lexicon_hits
        from moderation.patterns import default_patterns
    except ImportError:
        return None
    candidates = default_matcher().candidates(normalized)
    candidates += default_patterns().candidates(normalized)
    kept = set(lexicon_hits(candidates))
    return [(c.category, c.via, c.start, c.end) for c in candidates if (c.category, c.via) in kept]


def token_spans(
    text: str,
    config: FeatureConfig | None = None,
    *,
    normalized: NormalizedText | None = None,
    hit_spans: Iterable[HitSpan] | None = None,
) -> dict[str, list[Span]]:
    """Where in the original ``text`` each feature token of :func:`post_tokens` comes from.

    One ``(start, end)`` per occurrence (so the lists have :func:`post_tokens`' repeats), each a
    span of what the player typed: a ``c:`` n-gram maps through the folded view's offsets (noise
    between its characters included), a ``p:`` or ``i:`` n-gram through the characters or letters
    its syllables were read from, an ``e:`` token to its emoji, an ``l:`` token to the lexicon or
    pattern hit behind it (``hit_spans``; computed here when None). This is how a classifier
    finding shows the words that drove it.

    >>> spans = token_spans("你是 煞-笔")
    >>> spans["c:煞笔"], spans["p:sha bi"], spans["i:sb"]
    ([(3, 6)], [(3, 6)], [(3, 6)])
    """
    config = config or FeatureConfig()
    nt = normalized if normalized is not None else normalize(text)
    folded = nt.folded
    out: dict[str, list[Span]] = {}

    def add(token: str, span: Span) -> None:
        out.setdefault(token, []).append(span)

    low, high = config.char_ngrams
    for size in range(low, high + 1):
        for i in range(len(folded) - size + 1):
            add("c:" + folded[i : i + size], nt.span(i, i + size))
    units = syllable_units(folded)
    syllables = [u[0] for u in units]
    for prefix, items, (low, high), joiner in (
        ("p:", syllables, config.pinyin_ngrams, " "),
        ("i:", [s[0] for s in syllables], config.initials_ngrams, ""),
    ):
        for size in range(low, high + 1):
            for i in range(len(items) - size + 1):
                span = nt.span(units[i][1], units[i + size - 1][2])
                add(prefix + joiner.join(items[i : i + size]), span)
    for i, ch in enumerate(text):
        if unicodedata.category(ch) == "So":
            add("e:" + ch, (i, i + 1))
    if config.lexicon:
        found = hit_spans if hit_spans is not None else lexicon_hit_spans(nt)
        for category, via, start, end in found or ():
            add(f"l:{category}", (start, end))
            add(f"l:{category}:{via}", (start, end))
    return out


def token_places(
    tokens: Iterable[str],
    text: str,
    config: FeatureConfig | None = None,
    *,
    normalized: NormalizedText | None = None,
    hit_spans: Iterable[HitSpan] | None = None,
    units: list[tuple[str, int, int]] | None = None,
) -> dict[str, list[Span]]:
    """:func:`token_spans` for the given tokens only (the same places, in the same order).

    ``units``: the post's :func:`syllable_units`, when already at hand.

    Finding a few tokens costs a search per token instead of every n-gram of the post, which is
    what explaining a finding needs. Tokens the post does not have map to ``[]``.

    >>> token_places(["c:煞笔", "i:sb", "c:金水"], "你是 煞-笔")
    {'c:煞笔': [(3, 6)], 'i:sb': [(3, 6)], 'c:金水': []}
    """
    config = config or FeatureConfig()
    nt = normalized if normalized is not None else normalize(text)
    folded = nt.folded
    wanted = list(dict.fromkeys(tokens))
    out: dict[str, list[Span]] = {t: [] for t in wanted}
    hits: list[HitSpan] | None = None
    spelled: _Spelled | None = None
    for token in wanted:
        prefix, key = token[:2], token[2:]
        places = out[token]
        if prefix == "c:" and key and _in_range(len(key), config.char_ngrams):
            at = folded.find(key)
            while at >= 0:
                places.append(nt.span(at, at + len(key)))
                at = folded.find(key, at + 1)
        elif prefix in ("p:", "i:") and key:
            if prefix == "p:":
                size = key.count(" ") + 1
                if not _in_range(size, config.pinyin_ngrams):
                    continue
                if spelled is None:
                    spelled = _Spelled(folded, units)
                firsts = spelled.syllable_runs(key)
            else:
                size = len(key)
                if not _in_range(size, config.initials_ngrams):
                    continue
                if spelled is None:
                    spelled = _Spelled(folded, units)
                firsts = spelled.initial_runs(key)
            starts, ends = spelled.starts, spelled.ends
            places.extend(nt.span(starts[i], ends[i + size - 1]) for i in firsts)
        elif prefix == "e:" and len(key) == 1 and unicodedata.category(key) == "So":
            places.extend((i, i + 1) for i, ch in enumerate(text) if ch == key)
        elif prefix == "l:" and config.lexicon:
            if hits is None:
                found = hit_spans if hit_spans is not None else lexicon_hit_spans(nt)
                hits = list(found or ())
            category, _, via = key.partition(":")
            places.extend(
                (start, end) for c, v, start, end in hits if c == category and (not via or v == via)
            )
    return out


def _in_range(size: int, bounds: tuple[int, int]) -> bool:
    return bounds[0] <= size <= bounds[1]


class _Spelled:
    """A post's syllables spelt out once, so that a syllable or initials n-gram is found by
    ``str.find`` rather than by comparing a slice at every place.

    Syllables hold no spaces, so in the syllables joined by spaces (one before each and one at
    the end) the n-gram ``k1 k2`` with a space on each side is found exactly where the syllables
    ``k1, k2`` follow each other, and the number of spaces before a place is the index of its
    first syllable; each initial is one character, so in the initials joined an n-gram's offset
    is the index of its first syllable. ``starts``/``ends``: each syllable's folded span (those of
    :func:`syllable_units`, from ``units`` when given).
    """

    def __init__(self, folded: str, units: Sequence[tuple[str, int, int]] | None = None) -> None:
        if units is None:
            syllables, self.starts, self.ends = _syllable_spans(folded)
        else:
            syllables = [u[0] for u in units]
            self.starts = [u[1] for u in units]
            self.ends = [u[2] for u in units]
        self.joined = " " + " ".join(syllables) + " "
        self.initials = "".join([s[0] for s in syllables])
        self.index: dict[int, int] | None = None
        if self.joined.count(" ") != len(syllables) + 1:  # a syllable with a space: by offsets
            offsets = itertools.accumulate([len(s) + 1 for s in syllables[:-1]], initial=0)
            self.index = {offset: i for i, offset in enumerate(offsets)}

    def syllable_runs(self, key: str) -> list[int]:
        """Index of the first syllable of every place of ``key`` (syllables joined by spaces)."""
        joined, index = self.joined, self.index
        places = _places(joined, " " + key + " ")
        if index is not None:
            return [index[at] for at in places]
        return [joined.count(" ", 0, at) for at in places]

    def initial_runs(self, key: str) -> list[int]:
        """Index of the first syllable of every place of ``key`` (one initial per syllable)."""
        return _places(self.initials, key)


def _places(text: str, needle: str) -> list[int]:
    """Every offset of ``needle`` in ``text``, overlapping ones included, in order."""
    out: list[int] = []
    at = text.find(needle)
    while at >= 0:
        out.append(at)
        at = text.find(needle, at + 1)
    return out


def syllable_units(folded: str) -> list[tuple[str, int, int]]:
    """The syllables of ``folded`` (as the ``p:`` and ``i:`` features read them), each with the
    folded ``[start, end)`` it was read from.

    A Han run reads one syllable per character (so each maps to its character); should pypinyin
    ever return another count, every syllable of the run maps to the whole run.

    >>> syllable_units("傻逼sb")
    [('sha', 0, 1), ('bi', 1, 2), ('s', 2, 3), ('b', 3, 4)]
    """
    return list(zip(*_syllable_spans(folded), strict=True))


def _syllable_spans(folded: str) -> tuple[list[str], list[int], list[int]]:
    """:func:`syllable_units` as three parallel lists: syllables, starts, ends (built a run at a
    time, not a tuple per syllable)."""
    syllables: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for m in _UNITS.finditer(folded):
        han, letters, other = m.groups()
        start = m.start()
        if han:
            readings = han_pinyin(han)
            end = m.end()
            syllables += readings
            if len(readings) == len(han):
                starts += range(start, end)
                ends += range(start + 1, end + 1)
            else:
                starts += [start] * len(readings)
                ends += [end] * len(readings)
        elif letters:
            for piece in split_pinyin(letters):
                syllables.append(piece)
                starts.append(start)
                start += len(piece)
                ends.append(start)
        elif other.isalnum():
            syllables.append(other)
            starts.append(start)
            ends.append(start + 1)
    return syllables, starts, ends


class ColumnMapper:
    """A post straight to vocabulary columns, without building token strings.

    ``columns(...)`` gives exactly the in-vocabulary columns of :func:`post_tokens` (as a multiset,
    in another order). Instead of slicing every n-gram and looking it up, one Aho-Corasick
    automaton per view holds the vocabulary's n-grams of that view and reports every occurrence in
    one C-level scan: each occurrence of a key is one n-gram of the post that is in the
    vocabulary, and n-grams that are not never cost anything. Syllable n-grams are matched in
    the syllables joined by spaces, keys padded with a space on each side, so they align on
    syllable boundaries. This is the prediction path; training keeps the readable
    :func:`post_tokens`.

    >>> space = FeatureSpace.fit([post_tokens("傻逼"), post_tokens("金水")], min_df=1)
    >>> mapper = ColumnMapper(space.vocabulary, FeatureConfig())
    >>> index = space.index
    >>> sorted(mapper.columns("傻逼")) == sorted(index[t] for t in post_tokens("傻逼"))
    True
    """

    def __init__(self, vocabulary: Sequence[str], config: FeatureConfig) -> None:
        self.config = config
        chars: dict[str, int] = {}
        syllables: dict[str, int] = {}
        initials: dict[str, int] = {}
        emoji: dict[str, int] = {}
        self._lexicon: dict[str, int] = {}
        self._syllable_codes = _SyllableCodes()
        c_low, c_high = config.char_ngrams
        p_low, p_high = config.pinyin_ngrams
        i_low, i_high = config.initials_ngrams
        for column, token in enumerate(vocabulary):
            prefix, key = token[:2], token[2:]
            if prefix == "c:" and c_low <= len(key) <= c_high:
                chars[key] = column
            elif prefix == "p:" and key and p_low <= key.count(" ") + 1 <= p_high:
                codes = map(self._syllable_codes.assign, key.split(" "))
                syllables["".join(codes)] = column
            elif prefix == "i:" and i_low <= len(key) <= i_high:
                initials[key] = column
            elif prefix == "e:" and len(key) == 1:
                emoji[key] = column
            elif prefix == "l:":
                self._lexicon[token] = column
        self._chars = _column_automaton(chars)
        self._syllables = _column_automaton(syllables)
        self._initials = _column_automaton(initials)
        self._emoji = emoji
        # open the reading tables now (built once per machine), not during the first post screened
        _pinyin_syllables()
        han_pinyin("预言家")
        # only emoji the model knows can add a column; one C-level scan finds them all
        self._emoji_rx = re.compile("|".join(map(re.escape, sorted(emoji)))) if emoji else None
        # (category, via) -> the columns of its two ``l:`` tokens; categories and vias are a small
        # fixed set, so a hit costs one lookup instead of two f-strings and two lookups
        self._hit_columns = _Memo(self._columns_of_hit)

    def columns(
        self,
        text: str,
        normalized: NormalizedText | None = None,
        hits: Hits | None = None,
        syllables: Sequence[str] | None = None,
    ) -> list[int]:
        """Vocabulary columns of ``text``'s tokens, repeats kept (see :func:`post_tokens`).

        ``syllables``: the post's syllable stream, when already at hand.
        """
        out: list[int] = []
        self._collect(text, normalized, hits, out.extend, syllables)
        return out

    def column_set(
        self, text: str, normalized: NormalizedText | None = None, hits: Hits | None = None
    ) -> set[int]:
        """The distinct columns of :meth:`columns` (all a binary feature space needs)."""
        out: set[int] = set()
        self._collect(text, normalized, hits, out.update)
        return out

    def _collect(
        self,
        text: str,
        normalized: NormalizedText | None,
        hits: Hits | None,
        add: Callable[[Iterable[int]], None],
        known: Sequence[str] | None = None,
    ) -> None:
        # the views are built inline (no TextViews, no tuple copy): this runs once per post screened
        folded = (normalized if normalized is not None else normalize(text)).folded
        if folded:
            if self._chars is not None:
                add(map(_VALUE, self._chars.iter(folded)))
            syllables = _syllables(folded) if known is None else known
            if syllables:
                if self._syllables is not None:
                    add(map(_VALUE, self._syllables.iter(self._syllable_codes.encode(syllables))))
                if self._initials is not None:
                    add(map(_VALUE, self._initials.iter("".join(map(_FIRST, syllables)))))
        if self._emoji_rx is not None:
            add(map(self._emoji.__getitem__, self._emoji_rx.findall(text)))
        if self.config.lexicon:
            found = _lexicon_hits(text, hits)
            if found:
                add(itertools.chain.from_iterable(map(self._hit_columns.__getitem__, found)))

    def _columns_of_hit(self, hit: tuple[str, str]) -> tuple[int, ...]:
        """In-vocabulary columns of a lexicon hit's two ``l:`` tokens (see :func:`post_tokens`)."""
        category, via = hit
        tokens = (f"l:{category}", f"l:{category}:{via}")
        return tuple(self._lexicon[t] for t in tokens if t in self._lexicon)


_VALUE = operator.itemgetter(1)  # (end, column) pairs from an automaton's iter()
_FIRST = operator.itemgetter(0)  # a syllable's initial

#: Stands for a syllable no vocabulary n-gram holds: no key contains it, so nothing matches
#: across it.
_UNKNOWN_SYLLABLE = "\x00"


class _SyllableCodes(dict[str, str]):
    """One private-use character per syllable of the vocabulary's ``p:`` n-grams.

    A syllable n-gram is then a string of as many characters as it has syllables, and a post's
    syllable stream one character per syllable, so a key matches exactly where the post has
    that run of syllables (the syllables joined by spaces would be several times as long to
    scan). A syllable the vocabulary does not know reads as :data:`_UNKNOWN_SYLLABLE` and is
    not remembered, so unique posts cannot grow the table.
    """

    def encode(self, syllables: Iterable[str]) -> str:
        """The code string of a syllable sequence (building a key assigns new codes)."""
        return "".join(map(self.__getitem__, syllables))

    def assign(self, syllable: str) -> str:
        code = self.get(syllable)
        if code is None:  # the BMP's private-use area (6,400 codes), then plane 15's
            n = len(self)
            code = self[syllable] = chr(0xE000 + n if n < 6400 else 0xF0000 + n - 6400)
        return code

    def __missing__(self, syllable: str) -> str:
        return _UNKNOWN_SYLLABLE


def _column_automaton(keys: dict[str, int]) -> Any:
    """An Aho-Corasick automaton from n-gram to column, or None without keys."""
    if not keys:
        return None
    import ahocorasick

    automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)  # columns as C ints, no objects
    for key, column in keys.items():
        automaton.add_word(key, column)
    automaton.make_automaton()
    return automaton


# ------------------------------------------------------------------------------------------------
# Vectorising


@dataclass(frozen=True, eq=False)  # arrays have no single truth value: compare by identity
class FeatureSpace:
    """A fixed vocabulary with idf weights: token lists in, sparse rows out.

    A row holds idf times presence (``binary``) or sublinear term frequency, divided by the row's
    Euclidean length raised to ``length_power``. Power 1 is the usual unit-length tf-idf, where one
    slur in a long post is diluted by everything around it; power 0 lets long posts pile up
    weight. The default 0.5 sits between: a rude phrase counts about as much in a long post as in
    a short one, and a short greeting is not inflated into a strong signal.
    """

    vocabulary: tuple[str, ...]
    idf: np.ndarray
    binary: bool = True
    length_power: float = 0.5

    @functools.cached_property
    def index(self) -> dict[str, int]:
        """Token -> column."""
        return {token: i for i, token in enumerate(self.vocabulary)}

    @classmethod
    def fit(
        cls,
        documents: Sequence[Sequence[str]],
        *,
        min_df: int = 2,
        binary: bool = True,
        length_power: float = 0.5,
    ) -> FeatureSpace:
        """Learn the vocabulary (tokens in at least ``min_df`` documents, sorted) and smoothed idf.

        >>> space = FeatureSpace.fit([["a", "b"], ["a"]], min_df=2)
        >>> space.vocabulary
        ('a',)
        """
        df: Counter[str] = Counter()
        for tokens in documents:
            df.update(set(tokens))
        vocabulary = tuple(sorted(t for t, n in df.items() if n >= min_df))
        n_docs = len(documents)
        idf = np.array(
            [math.log((1 + n_docs) / (1 + df[t])) + 1.0 for t in vocabulary], dtype=np.float64
        )
        return cls(vocabulary=vocabulary, idf=idf, binary=binary, length_power=length_power)

    @classmethod
    def fit_encoded(
        cls,
        documents: EncodedDocuments,
        *,
        min_df: int = 2,
        binary: bool = True,
        length_power: float = 0.5,
    ) -> FeatureSpace:
        """:meth:`fit` on documents encoded once (:class:`EncodedDocuments`): the same space.

        Document frequencies are one ``bincount`` over the encoded rows instead of a set and a
        Counter update per document; the idf is computed exactly as :meth:`fit` computes it.

        >>> docs = [["a", "b"], ["a"], ["c", "a"]]
        >>> space = FeatureSpace.fit_encoded(EncodedDocuments.encode(docs), min_df=2)
        >>> space.vocabulary == FeatureSpace.fit(docs, min_df=2).vocabulary
        True
        """
        df = np.bincount(documents.ids, minlength=len(documents.tokens))
        kept = np.flatnonzero(df >= min_df)
        vocabulary = tuple(documents.tokens[int(i)] for i in kept)
        n_docs = len(documents)
        idf = np.array(
            [math.log((1 + n_docs) / (1 + int(df[i]))) + 1.0 for i in kept], dtype=np.float64
        )
        return cls(vocabulary=vocabulary, idf=idf, binary=binary, length_power=length_power)

    def transform(self, documents: Sequence[Sequence[str]]) -> sparse.csr_matrix:
        """One row per document; tokens outside the vocabulary are dropped."""
        from scipy import sparse

        index = self.index
        indptr = [0]
        indices: list[int] = []
        values: list[float] = []
        for tokens in documents:
            counts = Counter(index[t] for t in tokens if t in index)
            columns = sorted(counts)
            if self.binary:
                row = [float(self.idf[c]) for c in columns]
            else:
                row = [(1.0 + math.log(counts[c])) * float(self.idf[c]) for c in columns]
            norm = math.sqrt(sum(v * v for v in row)) or 1.0
            scale = norm**self.length_power
            indices.extend(columns)
            values.extend(v / scale for v in row)
            indptr.append(len(indices))
        return sparse.csr_matrix(
            (np.array(values, dtype=np.float64), np.array(indices, dtype=np.int64), indptr),
            shape=(len(documents), len(self.vocabulary)),
        )

    def transform_encoded(self, documents: EncodedDocuments) -> sparse.csr_matrix:
        """:meth:`transform` on documents encoded once: the same matrix, bit for bit.

        Training transforms the same posts once per fold and once for the final model; mapping
        every token string through the vocabulary each time was a quarter of its run. Here the
        token ids map to columns with one array lookup. The row norms are summed by Python's
        ``sum`` in column order, as :meth:`transform` sums them, so every value is the same float
        (NumPy's pairwise summation would round differently, and so would the model fitted on it).
        """
        from scipy import sparse

        index = self.index
        to_column = np.fromiter(
            (index.get(t, -1) for t in documents.tokens),
            dtype=np.int64,
            count=len(documents.tokens),
        )
        columns = to_column[documents.ids]
        kept = columns >= 0
        row_of = np.repeat(np.arange(len(documents)), np.diff(documents.indptr))[kept]
        columns, counts = columns[kept], documents.counts[kept]
        order = np.lexsort((columns, row_of))  # columns ascending within each row
        columns, counts, row_of = columns[order], counts[order], row_of[order]
        values = self.idf[columns]
        if not self.binary:  # math.log, as transform takes it, once per distinct count
            logs = np.array([1.0 + math.log(n) for n in range(1, int(counts.max(initial=1)) + 1)])
            values = logs[counts - 1] * values
        indptr = np.zeros(len(documents) + 1, dtype=np.int64)
        np.cumsum(np.bincount(row_of, minlength=len(documents)), out=indptr[1:])
        squares = (values * values).tolist()
        bounds = indptr.tolist()
        scales = [
            (math.sqrt(sum(squares[a:b])) or 1.0) ** self.length_power
            for a, b in itertools.pairwise(bounds)
        ]
        values = values / np.repeat(np.array(scales, dtype=np.float64), np.diff(indptr))
        return sparse.csr_matrix(
            (values, columns, indptr), shape=(len(documents), len(self.vocabulary))
        )


@dataclass(frozen=True, eq=False)  # arrays have no single truth value: compare by identity
class EncodedDocuments:
    """Token lists encoded once: each document's distinct tokens as ids into ``tokens``, counted.

    ``tokens`` is every distinct token, sorted (so ids follow the sorted vocabulary's order);
    row ``k`` is ``ids[indptr[k]:indptr[k + 1]]`` (ascending) and the matching ``counts``.
    Training fits and transforms the same posts once per fold and once for the final model; it
    encodes them once and hands out row subsets (:meth:`rows`).

    >>> docs = EncodedDocuments.encode([["b", "a", "b"], ["c"]])
    >>> docs.tokens, docs.ids.tolist(), docs.counts.tolist()
    (('a', 'b', 'c'), [0, 1, 2], [1, 2, 1])
    """

    tokens: tuple[str, ...]
    indptr: np.ndarray
    ids: np.ndarray
    counts: np.ndarray

    @classmethod
    def encode(cls, documents: Sequence[Sequence[str]]) -> EncodedDocuments:
        per_document = [Counter(tokens) for tokens in documents]
        tokens = tuple(sorted(set().union(*per_document)))
        index = {token: i for i, token in enumerate(tokens)}
        indptr = [0]
        ids: list[int] = []
        counts: list[int] = []
        for counter in per_document:
            row = sorted((index[t], n) for t, n in counter.items())
            ids.extend(i for i, _ in row)
            counts.extend(n for _, n in row)
            indptr.append(len(ids))
        return cls(
            tokens=tokens,
            indptr=np.array(indptr, dtype=np.int64),
            ids=np.array(ids, dtype=np.int64),
            counts=np.array(counts, dtype=np.int64),
        )

    def __len__(self) -> int:
        return len(self.indptr) - 1

    def rows(self, which: Sequence[int] | np.ndarray) -> EncodedDocuments:
        """The documents ``which`` (in that order), sharing ``tokens``."""
        which = np.asarray(which, dtype=np.int64)
        starts, ends = self.indptr[which], self.indptr[which + 1]
        lengths = ends - starts
        indptr = np.zeros(len(which) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        # every kept entry's position: its row's start plus 0 .. length - 1
        offsets = np.arange(int(indptr[-1])) - np.repeat(indptr[:-1], lengths)
        positions = np.repeat(starts, lengths) + offsets
        return EncodedDocuments(
            tokens=self.tokens,
            indptr=indptr,
            ids=self.ids[positions],
            counts=self.counts[positions],
        )
