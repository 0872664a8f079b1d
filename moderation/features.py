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
import math
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse

from moderation.normalize import is_han, normalize

# Bump whenever the token stream changes: a model trained on other tokens would silently mis-score.
FEATURE_VERSION = 1

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
    from pypinyin.constants import PINYIN_DICT
    from pypinyin.contrib.tone_convert import to_normal

    return frozenset(
        to_normal(reading) for readings in PINYIN_DICT.values() for reading in readings.split(",")
    )


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


def text_views(text: str) -> TextViews:
    """Compute the folded text and its parallel syllable and initials streams.

    Chinese characters read as their most likely pinyin (pypinyin with phrase context); letter
    runs read as pinyin where they can (``shabi`` -> ``sha bi``); any other letter or digit stands
    for itself, so ``nmsl`` gives the initials stream ``nmsl``.

    >>> views = text_views("煞笔 shabi")
    >>> views.syllables
    ('sha', 'bi', 'sha', 'bi')
    >>> views.initials
    'sbsb'
    """
    from pypinyin import lazy_pinyin

    folded = normalize(text).folded
    syllables: list[str] = []
    index = 0
    while index < len(folded):
        char = folded[index]
        if is_han(char):
            end = index
            while end < len(folded) and is_han(folded[end]):
                end += 1
            syllables.extend(lazy_pinyin(folded[index:end]))
        elif "a" <= char <= "z":
            end = index
            while end < len(folded) and "a" <= folded[end] <= "z":
                end += 1
            run = folded[index:end]
            syllables.extend(split_pinyin(run))
        elif char.isalnum():
            end = index + 1
            syllables.append(char)
        else:
            end = index + 1
        index = end
    initials = "".join(s[0] for s in syllables)
    return TextViews(folded=folded, syllables=tuple(syllables), initials=initials)


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


def post_tokens(text: str, config: FeatureConfig | None = None) -> list[str]:
    """All feature tokens of one post (with repeats: term frequency matters).

    >>> sorted(t for t in post_tokens("沙比") if t.startswith("p:"))
    ['p:bi', 'p:sha', 'p:sha bi']
    """
    config = config or FeatureConfig()
    views = text_views(text)
    tokens = ["c:" + g for g in _ngrams(list(views.folded), *config.char_ngrams, joiner="")]
    tokens += ["p:" + g for g in _ngrams(list(views.syllables), *config.pinyin_ngrams, joiner=" ")]
    tokens += ["i:" + g for g in _ngrams(list(views.initials), *config.initials_ngrams, joiner="")]
    tokens += ["e:" + c for c in text if unicodedata.category(c) == "So"]
    if config.lexicon:
        hits = lexicon_hits_function()
        if hits is not None:
            for category, via in hits(text):
                tokens += [f"l:{category}", f"l:{category}:{via}"]
    return tokens


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

    def transform(self, documents: Sequence[Sequence[str]]) -> sparse.csr_matrix:
        """One row per document; tokens outside the vocabulary are dropped."""
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
