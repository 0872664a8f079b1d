"""The fast prediction path gives the reference predictions.

Prediction skips token strings (``ColumnMapper``), re-normalising (the screener hands over its
``NormalizedText`` and lexicon hits), per-call pypinyin overhead (``han_pinyin``) and per-category
scoring (one stacked weight matrix). Each shortcut is checked here against the plain definition:
``pypinyin.lazy_pinyin`` for readings, ``post_tokens`` + ``FeatureSpace.transform`` for features
and scikit-learn's own ``LogisticRegression.predict_proba`` for probabilities.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pypinyin import lazy_pinyin
from pypinyin.constants import PHRASES_DICT

from moderation.classifier import PostClassifier
from moderation.features import ColumnMapper, han_pinyin, post_tokens, split_pinyin, text_views
from moderation.lexicon import category_hits
from moderation.normalize import is_han, normalize
from moderation.screen import Screener
from moderation.training import Post, TrainingOptions, fit_classifier, load_corpus

ROOT = Path(__file__).resolve().parents[2]
TOLERANCE = 1e-9

# Edge cases on top of the corpus sample: empty, no known token, emoji, letters, traditional,
# noise, heteronyms, long text, BBCode, characters pypinyin has no reading for.
EXTRA_TEXTS = [
    "",
    "😀😀",
    "zzzzqqqq",
    "你🐴的",
    "nmsl sb shabi",
    "你這個腦殘",
    "傻 逼！！！",
    "银行行长说重庆的长发",
    "[color=#FF0000]我是预言家[/color]",
    "昨晚被刀的是5号，今天查杀3号，金水是7号。" * 40,
    "𠀀𪛖〇行",
    "ＳＢ３号",
]


def _corpus_sample(step: int = 7) -> list[Post]:
    corpus = ROOT / "corpus"
    if not list(corpus.glob("*.jsonl")):
        return []
    return load_corpus(corpus)[::step]


def _synthetic_posts() -> list[Post]:
    rows: list[tuple[str, tuple[str, ...]]] = []
    targets = ["3号", "5号", "7号", "预言家", "女巫"]
    for target, word in itertools.product(targets, ["傻逼", "脑残", "智障", "sb"]):
        rows.append((f"{target}你是不是{word}", ("insult",)))
    for target, frame in itertools.product(targets, ["我发誓{}是狼", "拿人格担保{}是好人"]):
        rows.append((frame.format(target), ("oath",)))
    for target, frame in itertools.product(targets, ["{}昨晚被刀了", "我站边{}", "{}悍跳"]):
        rows.append((frame.format(target), ()))
    return [Post(f"s-{i:03d}", text, labels) for i, (text, labels) in enumerate(rows)]


@pytest.fixture(scope="module")
def sample() -> list[str]:
    posts = _corpus_sample() or _synthetic_posts()
    return [p.text for p in posts] + EXTRA_TEXTS


@pytest.fixture(scope="module")
def model() -> PostClassifier:
    """A model trained on part of the corpus (or a synthetic set without one): fast and real."""
    posts = _corpus_sample(step=3)
    if posts:
        return fit_classifier(posts, TrainingOptions(folds=2))
    return fit_classifier(_synthetic_posts(), TrainingOptions(folds=2, min_positives=8))


def _sklearn_probabilities(model: PostClassifier, texts: Sequence[str]) -> np.ndarray:
    """The reference: scikit-learn's predict_proba over the features of ``post_tokens``."""
    from sklearn.linear_model import LogisticRegression

    features = model.space.transform([post_tokens(t, model.config) for t in texts])
    out = np.zeros((len(texts), len(model.categories)))
    for j in range(len(model.categories)):
        reference = LogisticRegression()
        reference.classes_ = np.array([0, 1])
        reference.coef_ = model.coef[j : j + 1]
        reference.intercept_ = model.intercept[j : j + 1]
        out[:, j] = reference.predict_proba(features)[:, 1]
    return out


# --- readings -----------------------------------------------------------------------------------


def _reference_syllables(text: str) -> list[str]:
    """Syllables as first defined: lazy_pinyin over each run of Han characters."""
    folded = normalize(text).folded
    out: list[str] = []
    for is_run, group in itertools.groupby(folded, key=is_han):
        if is_run:
            out += lazy_pinyin("".join(group))
            continue
        for is_letter, chars in itertools.groupby(group, key=lambda c: "a" <= c <= "z"):
            if is_letter:
                out += split_pinyin("".join(chars))
            else:
                out += [c for c in chars if c.isalnum()]
    return out


def test_han_pinyin_is_lazy_pinyin_on_the_sample(sample: list[str]) -> None:
    for text in sample:
        assert list(text_views(text).syllables) == _reference_syllables(text), text


_PHRASES = sorted(PHRASES_DICT)[::50]
_piece = st.one_of(
    st.sampled_from(_PHRASES),
    st.sampled_from(_PHRASES).map(lambda p: p[: max(1, len(p) - 1)]),  # phrase prefixes
    st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),
    st.sampled_from(["行", "长", "重", "〇", "𠀀", "\U0002a6e5"]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_piece, min_size=1, max_size=8).map("".join))
def test_han_pinyin_cuts_phrases_like_pypinyin(run: str) -> None:
    assert han_pinyin(run) == lazy_pinyin(run)


# --- features -----------------------------------------------------------------------------------


def test_column_mapper_gives_the_columns_of_post_tokens(
    model: PostClassifier, sample: list[str]
) -> None:
    mapper = ColumnMapper(model.space.vocabulary, model.config)
    index = model.space.index
    for text in sample:
        expected = Counter(index[t] for t in post_tokens(text, model.config) if t in index)
        assert Counter(mapper.columns(text)) == expected, text
        assert mapper.column_set(text) == set(expected), text
        nt, hits = normalize(text), category_hits(text)
        assert Counter(mapper.columns(text, nt, hits)) == expected, text


def test_post_tokens_accepts_what_the_screener_computed(sample: list[str]) -> None:
    for text in sample[:200]:
        given_views = post_tokens(text, normalized=normalize(text), hits=category_hits(text))
        assert given_views == post_tokens(text)


# --- probabilities ------------------------------------------------------------------------------


def test_batch_prediction_matches_sklearn(model: PostClassifier, sample: list[str]) -> None:
    reference = _sklearn_probabilities(model, sample)
    fast = model.predict_matrix(sample)
    assert fast.shape == reference.shape
    assert np.abs(fast - reference).max() <= TOLERANCE


def test_single_prediction_matches_sklearn(model: PostClassifier, sample: list[str]) -> None:
    texts = sample[:: max(1, len(sample) // 300)] + EXTRA_TEXTS
    reference = _sklearn_probabilities(model, texts)
    for text, expected in zip(texts, reference, strict=True):
        (row,) = model.predict([text])
        assert list(row) == list(model.categories)
        assert np.abs(np.array(list(row.values())) - expected).max() <= TOLERANCE, text


def test_prepared_prediction_is_the_same(model: PostClassifier, sample: list[str]) -> None:
    texts = sample[:300]
    normalized = [normalize(t) for t in texts]
    hits = [category_hits(t) for t in texts]
    plain = model.predict(texts)
    prepared = model.predict_prepared(texts, normalized, hits)
    for a, b in zip(plain, prepared, strict=True):
        assert a.keys() == b.keys()
        assert max(abs(a[c] - b[c]) for c in a) <= TOLERANCE
    with pytest.raises(ValueError, match="one NormalizedText per text"):
        model.predict_prepared(texts, normalized[:-1], hits)
    with pytest.raises(ValueError, match="one list of hits per text"):
        model.predict_matrix(texts, hits=hits[:-1])


def test_term_frequency_space_matches_sklearn(model: PostClassifier, sample: list[str]) -> None:
    space = dataclasses.replace(model.space, binary=False, length_power=1.0)
    counted = dataclasses.replace(model, space=space)
    texts = sample[:200] + EXTRA_TEXTS
    reference = _sklearn_probabilities(counted, texts)
    assert np.abs(counted.predict_matrix(texts) - reference).max() <= TOLERANCE
    (row,) = counted.predict([texts[-3]])
    assert np.abs(np.array(list(row.values())) - reference[-3]).max() <= TOLERANCE


def test_a_post_without_known_tokens_scores_the_intercepts(model: PostClassifier) -> None:
    expected = 1.0 / (1.0 + np.exp(-model.intercept))
    for texts in (["。"], ["。", ""]):
        assert np.allclose(model.predict_matrix(texts), expected[None, :], atol=TOLERANCE)


def test_a_saved_and_loaded_model_predicts_the_same(
    model: PostClassifier, sample: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "model.skops"
    model.save(path)
    loaded = PostClassifier.load(path)
    texts = sample[:100]
    assert np.array_equal(loaded.predict_matrix(texts), model.predict_matrix(texts))


# --- the screener's fast path -------------------------------------------------------------------


class _PlainClassifier:
    """The same model without ``predict_prepared``: the slow path (evidence and calibrated
    confidence are the model's own, as they do not depend on the path, and so is its rule veto)."""

    def __init__(self, model: PostClassifier) -> None:
        self._model = model
        self.thresholds = model.thresholds
        self.rule_veto = model.rule_veto
        self.explain = model.explain
        self.confidence = model.confidence

    def predict(self, texts: Sequence[str]) -> list[dict[str, float]]:
        return self._model.predict(texts)


def _dicts(results: list[list]) -> str:
    return json.dumps([[f.to_dict() for f in r] for r in results], ensure_ascii=False)


def test_screener_fast_path_finds_what_the_plain_path_finds(
    model: PostClassifier, sample: list[str]
) -> None:
    texts = sample[:400]
    for ruleset in ("m08", "m72"):
        fast = Screener(ruleset, classifier=model)
        plain = Screener(ruleset, classifier=_PlainClassifier(model))
        assert _dicts(fast.screen_many(texts)) == _dicts(plain.screen_many(texts))
        assert _dicts([fast.screen(t) for t in texts[:100]]) == _dicts(
            [plain.screen(t) for t in texts[:100]]
        )
