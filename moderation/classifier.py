"""The trained post classifier: one linear model per category over the features of
:mod:`moderation.features`, with a decision threshold per category.

The model file is a skops archive holding only plain data (dicts, lists, strings, numbers and
numeric or string numpy arrays). Loading audits every type named in the archive against
:data:`TRUSTED_TYPES` *before* anything is constructed, so a tampered file cannot make the loader
build arbitrary objects, and a file that is not a model at all fails with :class:`ModelFileError`.

>>> import tempfile, pathlib
>>> from moderation.features import FeatureSpace, post_tokens
>>> space = FeatureSpace.fit([post_tokens("傻逼"), post_tokens("金水")], min_df=1)
>>> weights = np.array([[1.0 if t.startswith("c:傻") else 0.0 for t in space.vocabulary]])
>>> model = PostClassifier(space=space, categories=("insult",), coef=weights,
...                        intercept=np.array([-0.5]), thresholds={"insult": 0.5})
>>> model.labels("傻逼"), model.labels("金水")
(['insult'], [])
>>> path = pathlib.Path(tempfile.mkdtemp()) / "model.skops"
>>> model.save(path)
>>> PostClassifier.load(path).labels("傻逼")
['insult']
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import math
import os
import tempfile
import unicodedata
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from moderation.features import (
    FEATURE_VERSION,
    ColumnMapper,
    FeatureConfig,
    FeatureSpace,
    HitSpan,
    lexicon_hit_spans,
    syllable_units,
    token_places,
)
from moderation.implementation import reference
from moderation.modelfile import read_state
from moderation.normalize import NormalizedText, normalize

MODEL_FORMAT = "bansha-post-classifier"
# 2: per-category calibration (Platt) stored beside the thresholds
# 3: the rule veto (RuleVeto): the score below which the model overrules an ambiguous word; a
# version 2 file still loads, with no veto
MODEL_FORMAT_VERSION = 3
_READABLE_FORMAT_VERSIONS = (2, 3)
DEFAULT_MODEL_PATH = Path("var/model.skops")

# Every type a model archive may name. Anything else (an estimator, a function, a pickled blob)
# means the file was not written by PostClassifier.save and is refused before it is constructed.
TRUSTED_TYPES: tuple[str, ...] = (
    "builtins.dict",
    "builtins.list",
    "builtins.tuple",
    "builtins.str",
    "builtins.int",
    "builtins.float",
    "builtins.bool",
    "builtins.NoneType",
    "numpy.ndarray",
)
_TRUSTED_LOADERS = frozenset(
    {"DictNode", "ListNode", "TupleNode", "JsonNode", "TypeNode", "NdArrayNode"}
)


class ModelFileError(ValueError):
    """The model file is missing, unreadable or not a post-classifier model."""


class UntrustedModelError(ModelFileError):
    """The model file names types outside :data:`TRUSTED_TYPES`; it is refused unopened."""


#: How many of the strongest features of a finding are shown as its evidence.
EVIDENCE_FEATURES = 5
#: At most this many places of one feature are shown (a common character may occur everywhere).
EVIDENCE_PLACES = 3


def visible(text: str) -> bool:
    r"""Whether ``text`` shows anything a director can read (not only spaces or invisible marks).

    >>> visible("傻逼"), visible(" \u200b\n"), visible("")
    (True, False, False)
    """
    return any(not ch.isspace() and unicodedata.category(ch)[0] not in "CZ" for ch in text)


@dataclass(frozen=True)
class Evidence:
    """A span of the original post that drove a classifier finding.

    ``text[start:end] == match``; ``features`` are the model's tokens found there (strongest
    first) and ``weight`` their summed contribution (coefficient times value) to the category's
    score.
    """

    start: int
    end: int
    match: str
    features: tuple[str, ...]
    weight: float

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form."""
        return {
            "start": self.start,
            "end": self.end,
            "match": self.match,
            "features": list(self.features),
            "weight": round(self.weight, 4),
        }


@dataclass(frozen=True)
class RuleVeto:
    """When the model, reading the whole post, overrules a rule finding of an ambiguous word.

    A lexicon word or sentence pattern that ordinary game talk also uses (替补 in a reminder
    that 规则写了不许聊替补, 爱信不信 after a claim, 赛后 in 有意见赛后再提) makes rule findings
    that the hand-written reading cues miss in wordings they were not written for. The model
    reads all of the post, its frame as much as the word, and where it scores the word's
    category below ``below`` (a raw probability, far below every category's threshold) it
    overrules the finding.
    ``firm`` holds, per category, the words and pattern ids training saw almost only in posts of
    that category (脑残, 傻逼): no score overrules those, so a long post that dilutes an insult
    keeps its finding. A word training never saw counts as ambiguous.

    >>> veto = RuleVeto(below=0.15, firm={"insult": frozenset({"脑残"})})
    >>> veto.overrules("insult", "脑残", 0.01), veto.overrules("vest", "替补", 0.01)
    (False, True)
    >>> veto.overrules("vest", "替补", 0.4)
    False
    """

    below: float
    firm: Mapping[str, frozenset[str]]

    def overrules(self, category: str, term: str, probability: float) -> bool:
        """Whether a rule finding of ``term`` goes, the model scoring ``category`` so."""
        return probability < self.below and term not in self.firm.get(category, ())

    def as_dict(self) -> dict[str, Any]:
        """Plain form for the model file (sorted, so the same veto gives the same bytes)."""
        return {
            "below": float(self.below),
            "firm": {c: sorted(self.firm[c]) for c in sorted(self.firm)},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleVeto:
        """The veto of :meth:`as_dict`'s form."""
        firm = {str(c): frozenset(str(t) for t in terms) for c, terms in data["firm"].items()}
        return cls(below=float(data["below"]), firm=firm)


def default_model_path() -> Path:
    """``$BANSHA_MODEL`` if set, else ``var/model.skops`` (relative to the working directory)."""
    env = os.environ.get("BANSHA_MODEL")
    return Path(env) if env else DEFAULT_MODEL_PATH


@dataclass(frozen=True, eq=False)  # arrays have no single truth value: compare by identity
class PostClassifier:
    """Per-category logistic models sharing one feature space.

    ``coef`` has one row per category (in ``categories`` order) and one column per vocabulary token;
    ``predict`` returns ``sigmoid(x @ coef.T + intercept)`` per category, and a category is a label
    of a post when its probability reaches ``thresholds[category]``.
    """

    space: FeatureSpace
    categories: tuple[str, ...]
    coef: np.ndarray
    intercept: np.ndarray
    thresholds: dict[str, float]
    config: FeatureConfig = field(default_factory=FeatureConfig)
    metadata: dict[str, Any] = field(default_factory=dict)
    calibration: dict[str, tuple[float, float]] | None = None
    """Per category ``(a, b)``: confidence ``sigmoid(a * logit(p) + b)`` (None: ``p`` itself)."""
    rule_veto: RuleVeto | None = None
    """When the model overrules a rule finding (None: never); see :class:`RuleVeto`."""

    def __post_init__(self) -> None:
        n_categories, n_features = len(self.categories), len(self.space.vocabulary)
        if self.coef.shape != (n_categories, n_features):
            raise ValueError(
                f"coef has shape {self.coef.shape}, expected ({n_categories}, {n_features})"
            )
        if self.intercept.shape != (n_categories,):
            raise ValueError(
                f"intercept has shape {self.intercept.shape}, expected ({n_categories},)"
            )
        if set(self.thresholds) != set(self.categories):
            raise ValueError("thresholds must name exactly the model's categories")
        if self.calibration is not None and set(self.calibration) != set(self.categories):
            raise ValueError("calibration must name exactly the model's categories")
        if self.rule_veto is not None and not set(self.rule_veto.firm) <= set(self.categories):
            raise ValueError("the rule veto's firm terms must be of the model's categories")

    # -- prediction -------------------------------------------------------------------------------

    @functools.cached_property
    def _scorer(self) -> _LinearScorer:
        return _LinearScorer(self)

    def predict_matrix(
        self,
        texts: Sequence[str],
        *,
        normalized: Sequence[NormalizedText] | None = None,
        hits: Sequence[Iterable[tuple[str, str]]] | None = None,
    ) -> np.ndarray:
        """Probabilities as an array of shape (len(texts), len(categories)).

        ``normalized`` and ``hits`` (one per text: its :func:`~moderation.normalize.normalize`
        result and its ``(category, via)`` lexicon hits) skip recomputing what the screener
        already has; the probabilities are the same either way.
        """
        if not texts:
            return np.zeros((0, len(self.categories)))
        _check_lengths(texts, normalized, hits)
        return np.asarray(self._scorer.probabilities(texts, normalized, hits), dtype=np.float64)

    def predict(self, texts: Sequence[str]) -> list[dict[str, float]]:
        """Category -> probability for each text."""
        return self.predict_prepared(texts, None, None)

    def predict_prepared(
        self,
        texts: Sequence[str],
        normalized: Sequence[NormalizedText] | None,
        hits: Sequence[Iterable[tuple[str, str]]] | None,
    ) -> list[dict[str, float]]:
        """:meth:`predict` for texts already normalised and matched (the screener's fast path).

        ``normalized`` and ``hits`` as in :meth:`predict_matrix` (None: computed here).
        """
        if not texts:
            return []
        _check_lengths(texts, normalized, hits)
        rows = self._scorer.probabilities(texts, normalized, hits)
        categories = self.categories
        if isinstance(rows, np.ndarray):
            rows = rows.tolist()
        return [dict(zip(categories, row, strict=True)) for row in rows]

    def labels(self, text: str) -> list[str]:
        """The categories whose probability reaches their threshold, in the model's order."""
        (probabilities,) = self.predict([text])
        return [c for c in self.categories if probabilities[c] >= self.thresholds[c]]

    def confidence(self, category: str, probability: float) -> float:
        """How often a post scored ``probability`` for ``category`` really is one (calibrated).

        The map is fitted on out-of-fold predictions (:func:`moderation.training.platt_calibration`)
        and is monotone, so it never changes which posts reach the threshold.
        """
        if self.calibration is None:
            return float(probability)
        a, b = self.calibration[category]
        p = min(max(float(probability), 1e-12), 1.0 - 1e-12)
        x = a * math.log(p / (1.0 - p)) + b
        return 1.0 / (1.0 + math.exp(-x)) if x > -700.0 else 0.0

    # Repeated on purpose: explain() below takes the same keywords.
    def contributions(
        self,
        text: str,
        category: str,
        *,
        normalized: NormalizedText | None = None,
        hit_spans: Iterable[HitSpan] | None = None,
    ) -> list[tuple[str, float]]:
        """Each in-vocabulary token of ``text`` with its contribution to ``category``'s score.

        A contribution is the token's coefficient times its value in the post's feature row (the
        score is their sum plus the intercept); strongest first.
        """
        return self._contributions(text, [category], normalized, hit_spans)[0][category]

    def _contributions(
        self,
        text: str,
        categories: Sequence[str],
        normalized: NormalizedText | None,
        hit_spans: Iterable[HitSpan] | None,
        limit: int | None = None,
    ) -> tuple[
        dict[str, list[tuple[str, float]]],
        NormalizedText,
        list[HitSpan] | None,
        list[tuple[str, int, int]] | None,
    ]:
        """Contributions for several categories from one reading of the post (its columns
        through the prediction path's automata; its syllables and lexicon hits found once).

        ``limit``: only the ``limit`` strongest positive contributions of each category, in the
        same order as the head of the full list (what evidence needs: naming every token of a
        long post as a string cost more than the rest of screening it)."""
        nt = normalized if normalized is not None else normalize(text)
        units: list[tuple[str, int, int]] | None = None  # read only when they are needed
        spans = None
        if self.config.lexicon:
            found = hit_spans if hit_spans is not None else lexicon_hit_spans(nt)
            spans = list(found) if found is not None else None
        hits = [(c, v) for c, v, _, _ in spans] if spans is not None else None
        out: dict[str, list[tuple[str, float]]] = {c: [] for c in categories}
        fast = self.space.binary and not reference()
        known = self._scorer.known_columns(text, nt, hits or ()) if fast else None
        if known is not None:  # the columns prediction just found for this very post and hits
            if not len(known):
                return out, nt, spans, units
            unique = np.sort(known)
            counts = None
            # each column's coefficients side by side: one gather of whole rows instead of one
            # scattered read per category (the same numbers, so the same products)
            rows = self._scorer.coef_rows.take(unique, axis=0)
        else:
            units = syllable_units(nt.folded)
            columns = self._scorer.mapper.columns(
                text, nt, hits if hits is not None else (), [u[0] for u in units]
            )
            if not columns:
                return out, nt, spans, units
            unique, counts = np.unique(np.array(columns, dtype=np.intp), return_counts=True)
            rows = None
        values = self.space.idf[unique]
        if counts is not None and not self.space.binary:
            values *= 1.0 + np.log(counts)
        values /= (math.sqrt(float(values @ values)) or 1.0) ** self.space.length_power
        vocabulary = self.space.vocabulary
        for category in categories:
            k = self.categories.index(category)
            weights = (self.coef[k, unique] if rows is None else rows[:, k]) * values
            if limit is None:
                order = np.argsort(-weights, kind="stable")
            else:  # the positive ones in column order, then the same stable sort: same head
                positive = np.flatnonzero(weights > 0.0)
                order = positive[np.argsort(-weights[positive], kind="stable")][:limit]
            names = map(vocabulary.__getitem__, unique[order].tolist())
            out[category] = list(zip(names, weights[order].tolist(), strict=True))
        return out, nt, spans, units

    # Repeated on purpose: explain() takes contributions()'s keywords and passes them on.
    def explain(
        self,
        text: str,
        category: str,
        *,
        normalized: NormalizedText | None = None,
        hit_spans: Iterable[HitSpan] | None = None,
        limit: int = EVIDENCE_FEATURES,
    ) -> tuple[Evidence, ...]:
        """The spans of ``text`` that drove ``category``'s score, strongest first.

        The ``limit`` tokens with the largest positive contribution (:meth:`contributions`) are
        mapped back to the original text (:func:`moderation.features.token_places`, up to
        :data:`EVIDENCE_PLACES` places each); overlapping or touching places merge into one span
        whose weight sums the contributions of the features in it. Spans with nothing visible in
        them are left out, so an empty result means the score has no evidence a director could
        check.

        >>> from moderation.features import FeatureSpace, post_tokens
        >>> space = FeatureSpace.fit([post_tokens("傻逼"), post_tokens("金水")], min_df=1)
        >>> weights = np.array([[1.0 if t == "c:傻逼" else 0.0 for t in space.vocabulary]])
        >>> model = PostClassifier(space=space, categories=("insult",), coef=weights,
        ...                        intercept=np.array([-0.5]), thresholds={"insult": 0.5})
        >>> [(e.match, e.features) for e in model.explain("今天 傻-逼 一个", "insult")]
        [('傻-逼', ('c:傻逼',))]
        """
        return self.explain_many(
            text, [category], normalized=normalized, hit_spans=hit_spans, limit=limit
        )[category]

    def explain_many(
        self,
        text: str,
        categories: Sequence[str],
        *,
        normalized: NormalizedText | None = None,
        hit_spans: Iterable[HitSpan] | None = None,
        limit: int = EVIDENCE_FEATURES,
    ) -> dict[str, tuple[Evidence, ...]]:
        """:meth:`explain` for several categories of one post, reading the post once."""
        ranked, nt, spans, units = self._contributions(
            text, categories, normalized, hit_spans, None if reference() else limit
        )
        top = {c: [(t, w) for t, w in ranked[c][:limit] if w > 0.0] for c in categories}
        places = token_places(
            {t for pairs in top.values() for t, _ in pairs},
            text,
            self.config,
            normalized=nt,
            hit_spans=spans if spans is not None else (),
            units=units,
        )
        return {c: _evidence(text, top[c], places) for c in categories}

    def top_features(self, category: str, n: int = 15) -> list[tuple[str, float]]:
        """The ``n`` tokens pushing hardest towards ``category`` (for the report)."""
        row = self.coef[self.categories.index(category)]
        order = np.argsort(-row, kind="stable")[:n]
        return [(self.space.vocabulary[i], float(row[i])) for i in order]

    def fingerprint(self) -> str:
        """SHA-256 over everything learnt: equal fingerprints mean equal predictions."""
        digest = hashlib.sha256()
        digest.update("\n".join(self.space.vocabulary).encode())
        for array in (self.space.idf, self.coef, self.intercept):
            digest.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
        settings = [
            self.categories,
            self.thresholds,
            self.space.binary,
            self.space.length_power,
            self.calibration,
            None if self.rule_veto is None else self.rule_veto.as_dict(),
        ]
        digest.update(json.dumps(settings, sort_keys=True).encode())
        digest.update(json.dumps(self.config.as_dict(), sort_keys=True).encode())
        return digest.hexdigest()

    # -- persistence ------------------------------------------------------------------------------

    def _state(self) -> dict[str, Any]:
        return {
            "format": MODEL_FORMAT,
            "format_version": MODEL_FORMAT_VERSION,
            "feature_version": FEATURE_VERSION,
            "config": self.config.as_dict(),
            "categories": list(self.categories),
            "vocabulary": np.array(self.space.vocabulary, dtype=np.str_),
            "idf": np.ascontiguousarray(self.space.idf, dtype=np.float64),
            "binary": self.space.binary,
            "length_power": float(self.space.length_power),
            "coef": np.ascontiguousarray(self.coef, dtype=np.float64),
            "intercept": np.ascontiguousarray(self.intercept, dtype=np.float64),
            "thresholds": {c: float(self.thresholds[c]) for c in self.categories},
            "calibration": None
            if self.calibration is None
            else {c: [float(v) for v in self.calibration[c]] for c in self.categories},
            "rule_veto": None if self.rule_veto is None else self.rule_veto.as_dict(),
            "metadata": json.dumps(self.metadata, sort_keys=True, ensure_ascii=False),
        }

    def to_bytes(self) -> bytes:
        """The model file's bytes; the same model always gives the same bytes."""
        import skops.io

        return _canonical_archive(skops.io.dumps(self._state()))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the model atomically (a reader never sees half a file)."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = self.to_bytes()
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def from_bytes(cls, data: bytes, *, source: str = "<bytes>") -> PostClassifier:
        """Load a model from archive bytes after auditing its types; see :meth:`load`.

        The audited archive is read by :func:`moderation.modelfile.read_state` (the same value
        without importing skops and scikit-learn, about 100 MiB less in every process); the
        reference path (:mod:`moderation.implementation`) reads it with ``skops.io.loads``.
        """
        _audit_archive(data, source)
        try:
            if reference():
                import skops.io

                state = skops.io.loads(data, trusted=list(TRUSTED_TYPES))
            else:
                state = read_state(data)
        except Exception as error:  # skops raises many kinds on corrupt archives
            raise ModelFileError(f"{source}: cannot read the model archive: {error}") from error
        return cls._from_state(state, source)

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None) -> PostClassifier:
        """Load a model written by :meth:`save` (default path: :func:`default_model_path`).

        Raises :class:`UntrustedModelError` if the archive names any type outside
        :data:`TRUSTED_TYPES`, and :class:`ModelFileError` if it is missing or malformed.
        """
        target = Path(path) if path is not None else default_model_path()
        try:
            data = target.read_bytes()
        except FileNotFoundError:
            raise ModelFileError(
                f"{target}: no model file; run 'bansha train --out {target}' first"
            ) from None
        except OSError as error:
            raise ModelFileError(f"{target}: cannot read the model file: {error}") from error
        model = cls.from_bytes(data, source=str(target))
        model._scorer  # noqa: B018 - build the prediction tables at load, not on the first post
        return model

    @classmethod
    def _from_state(cls, state: Any, source: str) -> PostClassifier:
        if not isinstance(state, dict) or state.get("format") != MODEL_FORMAT:
            raise ModelFileError(f"{source}: not a {MODEL_FORMAT} model")
        if state.get("format_version") not in _READABLE_FORMAT_VERSIONS:
            raise ModelFileError(
                f"{source}: model format version {state.get('format_version')!r}, this code reads "
                f"{' or '.join(map(str, _READABLE_FORMAT_VERSIONS))}; retrain with 'bansha train'"
            )
        if state.get("feature_version") != FEATURE_VERSION:
            raise ModelFileError(
                f"{source}: model built with feature version {state.get('feature_version')!r}, "
                f"this code computes version {FEATURE_VERSION}; retrain with 'bansha train'"
            )
        try:
            space = FeatureSpace(
                vocabulary=tuple(str(t) for t in state["vocabulary"]),
                idf=np.asarray(state["idf"], dtype=np.float64),
                binary=bool(state["binary"]),
                length_power=float(state["length_power"]),
            )
            categories = tuple(str(c) for c in state["categories"])
            stored = state["calibration"]
            calibration = (
                None
                if stored is None
                else {str(c): (float(v[0]), float(v[1])) for c, v in stored.items()}
            )
            veto = state.get("rule_veto")  # absent from a version 2 file
            return cls(
                space=space,
                categories=categories,
                # column-major: each vocabulary column's coefficients side by side, which is how
                # evidence reads them (_LinearScorer.coef_rows); the same values
                coef=np.asfortranarray(state["coef"], dtype=np.float64),
                intercept=np.asarray(state["intercept"], dtype=np.float64),
                thresholds={str(c): float(v) for c, v in state["thresholds"].items()},
                config=FeatureConfig.from_dict(state["config"]),
                metadata=json.loads(state["metadata"]),
                calibration=calibration,
                rule_veto=None if veto is None else RuleVeto.from_dict(veto),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ModelFileError(f"{source}: malformed model: {error}") from error


# ------------------------------------------------------------------------------------------------
# Fast scoring


# at most this many posts' column sets are kept for their evidence (a batch is at most 500 posts)
_RECENT_POSTS = 1024


class _LinearScorer:
    """Prediction without token strings or per-call matrix copies.

    Built once per model: the weights are stored as ``U = idf[:, None] * coef.T`` (one C-contiguous
    row of category weights per vocabulary column) with ``idf**2`` as one more column, so a binary
    row's scores are ``U[columns].sum(0) / scale + intercept``, where ``scale`` is the row's
    Euclidean length ``sqrt(sum(idf[columns]**2))`` to the power ``length_power``: the same sums as
    ``FeatureSpace.transform(...) @ coef.T``, only added in another order (the differences are
    rounding, far below 1e-9). A batch gathers all its rows' weight rows into one array and sums
    them per post (``np.add.reduceat``) in the same order as one post at a time: no SciPy.
    """

    def __init__(self, model: PostClassifier) -> None:
        space = model.space
        self.mapper = ColumnMapper(space.vocabulary, model.config)
        self.binary = space.binary
        self.power = space.length_power
        self.idf = np.ascontiguousarray(space.idf, dtype=np.float64)
        n_categories = len(model.categories)
        extended = np.empty((len(space.vocabulary), n_categories + 1), dtype=np.float64)
        extended[:, :n_categories] = self.idf[:, None] * model.coef.T
        extended[:, n_categories] = self.idf * self.idf
        self.extended = extended
        # per column its coefficient for each category, as evidence reads them: a loaded model
        # keeps its coefficients in this order already (see PostClassifier._from_state), so this
        # is a view of them, not a copy
        self.coef_rows = np.ascontiguousarray(model.coef.T)
        # the weights alone, for sublinear-tf rows only (a binary model never needs the copy)
        self.weights = None if self.binary else np.ascontiguousarray(extended[:, :n_categories])
        self.intercept = np.ascontiguousarray(model.intercept, dtype=np.float64)
        self.intercepts: list[float] = self.intercept.tolist()
        # the distinct columns of the posts of the last prediction call, for their evidence (see
        # known_columns); each call starts afresh, so no post outlives the call after its own
        self._recent: dict[
            int, tuple[NormalizedText, str, tuple[tuple[str, str], ...], np.ndarray]
        ] = {}

    def _columns(
        self, text: str, normalized: NormalizedText | None, hits: Iterable[tuple[str, str]] | None
    ) -> np.ndarray:
        """:meth:`ColumnMapper.column_set` as an array (in the set's order, which is the order
        the scores are summed in), remembered when the post came prepared: its evidence then
        reads the very array, not the set a second time."""
        if normalized is None or hits is None:
            return _array(self.mapper.column_set(text, normalized, hits))
        found = tuple(hits)
        unique = _array(self.mapper.column_set(text, normalized, found))
        if len(self._recent) >= _RECENT_POSTS:
            self._recent.clear()
        self._recent[id(normalized)] = (normalized, text, found, unique)
        return unique

    def known_columns(
        self, text: str, normalized: NormalizedText, hits: Iterable[tuple[str, str]]
    ) -> np.ndarray | None:
        """The distinct columns prediction found for this post object with these hits (in no
        particular order), or None.

        The screener explains a post right after predicting it: its columns need not be found
        twice. The entry holds the post object itself, so its ``id`` cannot have been reused.
        """
        entry = self._recent.get(id(normalized))
        if entry is None or entry[0] is not normalized or entry[1] != text:
            return None
        return entry[3] if entry[2] == tuple(hits) else None

    def _batch_row(self, columns: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Sorted unique columns and their values in the row (weights already hold the idf)."""
        if not columns:
            return np.zeros(0, dtype=np.intp), np.zeros(0)
        if self.binary:
            unique = np.array(sorted(set(columns)), dtype=np.intp)
            factors = np.ones(len(unique))
        else:
            unique, counts = np.unique(np.array(columns, dtype=np.intp), return_counts=True)
            factors = 1.0 + np.log(counts)
        squares = float(factors @ (factors * self.extended[unique, -1]))
        return unique, factors / (math.sqrt(squares) or 1.0) ** self.power

    def _single(self, unique: np.ndarray) -> list[float]:
        """Probabilities of one binary row (its distinct columns), in plain floats (no sparse
        matrix, few numpy calls)."""
        intercepts = self.intercepts
        if len(unique):
            sums = np.add.reduce(self.extended.take(unique, axis=0), axis=0).tolist()
            squares = sums.pop()
            scale = (math.sqrt(squares) or 1.0) ** self.power
            scores = [s / scale + b for s, b in zip(sums, intercepts, strict=True)]
        else:
            scores = list(intercepts)
        # math.exp overflows below -709; the probability there is 0 to double precision
        return [1.0 / (1.0 + math.exp(-x)) if x > -700.0 else 0.0 for x in scores]

    def probabilities(
        self,
        texts: Sequence[str],
        normalized: Sequence[NormalizedText] | None,
        hits: Sequence[Iterable[tuple[str, str]]] | None,
    ) -> np.ndarray | list[list[float]]:
        """One row of probabilities per text: plain lists for one binary row, else an array.

        The column sets remembered for the previous call's posts are let go first: the screener
        explains a post right after predicting it, and keeping hundreds of posts' views and sets
        alive made every garbage collection walk them (about a tenth of a post's screening time).
        """
        self._recent = {}
        if len(texts) == 1 and self.binary:
            return [
                self._single(
                    self._columns(
                        texts[0],
                        normalized[0] if normalized is not None else None,
                        hits[0] if hits is not None else None,
                    )
                )
            ]

        def prepared(i: int) -> tuple[NormalizedText | None, Iterable[tuple[str, str]] | None]:
            return (
                normalized[i] if normalized is not None else None,
                hits[i] if hits is not None else None,
            )

        if self.binary:
            scores = self._binary_scores(
                [self._columns(text, *prepared(i)) for i, text in enumerate(texts)]
            )
        else:
            scores = self._weighted_scores(
                [
                    self._batch_row(self.mapper.columns(text, *prepared(i)))
                    for i, text in enumerate(texts)
                ]
            )
        result: np.ndarray = 1.0 / (1.0 + np.exp(-scores))
        return result

    def _binary_scores(self, rows: list[np.ndarray]) -> np.ndarray:
        """Scores of binary rows for the whole batch in a few numpy calls (no sparse matrix).

        The rows' weight rows are gathered into one array and summed per post with
        ``np.add.reduceat``, in the order :meth:`_single` sums them, then scaled by each row's
        length: the same arithmetic as one post at a time.
        """
        n_categories = len(self.intercepts)
        lengths = np.fromiter(map(len, rows), dtype=np.intp, count=len(rows))
        starts = np.zeros(len(rows), dtype=np.intp)
        np.cumsum(lengths[:-1], out=starts[1:])
        sums = np.zeros((len(rows), n_categories + 1))
        filled = lengths > 0
        if filled.any():  # reduceat over the starts of non-empty rows: each runs to the next
            indices = np.concatenate(rows)
            sums[filled] = np.add.reduceat(self.extended.take(indices, axis=0), starts[filled])
        norms = np.sqrt(sums[:, n_categories])
        norms[norms == 0.0] = 1.0
        scores: np.ndarray = sums[:, :n_categories] / (norms**self.power)[:, None] + self.intercept
        return scores

    def _weighted_scores(self, rows: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        """Scores of sublinear-tf rows (``(columns, values)`` from :meth:`_batch_row`)."""
        lengths = np.array([len(r[0]) for r in rows], dtype=np.intp)
        starts = np.zeros(len(rows), dtype=np.intp)
        np.cumsum(lengths[:-1], out=starts[1:])
        assert self.weights is not None  # built for every model that is not binary
        sums = np.zeros((len(rows), self.weights.shape[1]))
        filled = lengths > 0
        if filled.any():
            indices = np.concatenate([r[0] for r in rows])
            values = np.concatenate([r[1] for r in rows])
            products = self.weights.take(indices, axis=0) * values[:, None]
            sums[filled] = np.add.reduceat(products, starts[filled])
        scores: np.ndarray = sums + self.intercept
        return scores


def _array(columns: set[int]) -> np.ndarray:
    """A set of columns as an index array, in the set's iteration order."""
    return np.fromiter(columns, dtype=np.intp, count=len(columns))


def _evidence(
    text: str, top: Sequence[tuple[str, float]], places: Mapping[str, Sequence[tuple[int, int]]]
) -> tuple[Evidence, ...]:
    """Merge the places of the strongest features into visible evidence spans, strongest first."""
    found = [(a, b, t, w) for t, w in top for a, b in places[t][:EVIDENCE_PLACES]]
    found.sort(key=lambda p: (p[0], -p[1]))
    groups: list[tuple[int, int, dict[str, float]]] = []
    for a, b, token, weight in found:
        if groups and a <= groups[-1][1]:  # overlapping or touching: one phrase (脑 + 子 = 脑子)
            start, end, tokens = groups[-1]
            tokens.setdefault(token, weight)
            groups[-1] = (start, max(end, b), tokens)
        else:
            groups.append((a, b, {token: weight}))
    evidence = [
        Evidence(
            start,
            end,
            text[start:end],
            tuple(sorted(tokens, key=lambda t: -tokens[t])),
            sum(tokens.values()),
        )
        for start, end, tokens in groups
        if visible(text[start:end])
    ]
    evidence.sort(key=lambda e: (-e.weight, e.start))
    return tuple(evidence)


def _check_lengths(
    texts: Sequence[str], normalized: Sequence[Any] | None, hits: Sequence[Any] | None
) -> None:
    if normalized is not None and len(normalized) != len(texts):
        raise ValueError("normalized must give one NormalizedText per text")
    if hits is not None and len(hits) != len(texts):
        raise ValueError("hits must give one list of hits per text")


# ------------------------------------------------------------------------------------------------
# Archive hygiene


def _schema(data: bytes, source: str) -> tuple[zipfile.ZipFile, Any]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        schema = json.loads(archive.read("schema.json"))
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as error:
        raise ModelFileError(f"{source}: not a skops model archive ({error})") from error
    return archive, schema


def _audit_archive(data: bytes, source: str) -> None:
    """Refuse archives that name a type or loader outside the allow-list."""
    _, schema = _schema(data, source)
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "__class__" in node or "__loader__" in node:
                name = f"{node.get('__module__')}.{node.get('__class__')}"
                loader = str(node.get("__loader__"))
                if name not in TRUSTED_TYPES or loader not in _TRUSTED_LOADERS:
                    found.add(f"{name} ({loader})")
                if loader == "NdArrayNode" and node.get("type") != "numpy":
                    found.add(f"{name} (object array)")
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    if found:
        raise UntrustedModelError(
            f"{source}: refusing to load a model naming untrusted types: {', '.join(sorted(found))}"
        )


def _canonical_archive(data: bytes) -> bytes:
    """Rewrite a skops archive so equal content gives equal bytes.

    skops names nodes and array files by ``id()`` and stamps zip entries with the current time; both
    are replaced by the order of first appearance and a fixed date.
    """
    archive, schema = _schema(data, "<new model>")
    renumber: dict[int, int] = {}

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            out: dict[str, Any] = {}
            for key, value in node.items():
                if key == "__id__" and isinstance(value, int):
                    out[key] = renumber.setdefault(value, len(renumber) + 1)
                else:
                    out[key] = walk(value)
            if isinstance(node.get("file"), str):
                stem, dot, ext = node["file"].partition(".")
                if stem.isdigit():
                    new = renumber.setdefault(int(stem), len(renumber) + 1)
                    out["file"] = f"{new}{dot}{ext}"
            return out
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    new_schema = walk(schema)
    files: dict[str, bytes] = {}
    for name in archive.namelist():
        if name == "schema.json":
            continue
        stem, dot, ext = name.partition(".")
        new_name = f"{renumber[int(stem)]}{dot}{ext}" if stem.isdigit() else name
        files[new_name] = archive.read(name)
    files["schema.json"] = json.dumps(new_schema, indent=2).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as target:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            target.writestr(info, files[name], compresslevel=6)
    return out.getvalue()
