"""Prediction keeps the column sets of its last call's posts only (for their evidence)."""

from __future__ import annotations

from pathlib import Path

import pytest

from moderation.classifier import PostClassifier
from moderation.lexicon import category_hits
from moderation.normalize import normalize
from moderation.screen import Screener

MODEL = Path(__file__).resolve().parents[2] / "var" / "model.skops"


def test_a_prediction_lets_the_previous_calls_posts_go() -> None:
    if not MODEL.exists():
        pytest.skip("no trained model at var/model.skops (make model)")
    model = PostClassifier.load(MODEL)
    screener = Screener("m08", classifier=model)
    posts = [f"{i}号你个沙比，操作失误也能悍跳预言家？" for i in range(40)]
    for post in posts:
        screener.screen(post)
    # every garbage collection walks what is kept: one post, not the forty screened
    assert len(model._scorer._recent) == 1
    screener.screen_many(posts[:7])
    assert len(model._scorer._recent) == 7
    flagged = screener.screen("你个沙比")
    assert any(f.via == "classifier" and f.evidence for f in flagged)  # still explained


def test_a_long_batch_is_screened_a_chunk_at_a_time_with_the_same_findings() -> None:
    if not MODEL.exists():
        pytest.skip("no trained model at var/model.skops (make model)")
    model = PostClassifier.load(MODEL)
    screener = Screener("m08", classifier=model)
    posts = [f"{i}号你个沙比，{'操作失误也能' * (i % 3)}悍跳预言家？" for i in range(80)]
    batch = screener.screen_many(posts)
    # the last chunk's posts only (32 + 48): a garbage collection never walks all 80 at once
    assert len(model._scorer._recent) == 48
    assert batch == [screener.screen(p) for p in posts]
    assert any(f.via == "classifier" and f.evidence for found in batch for f in found)


def test_evidence_from_the_remembered_columns_is_the_evidence_found_afresh() -> None:
    if not MODEL.exists():
        pytest.skip("no trained model at var/model.skops (make model)")
    model = PostClassifier.load(MODEL)
    posts = ["你个沙比，操作失误也能悍跳预言家？", "我发誓3号是狼，nmsl", "真是脑残，😀 气死我了"]
    normalized = [normalize(p) for p in posts]
    hits = [category_hits(p) for p in posts]
    model.predict_prepared(posts, normalized, hits)
    for post, nt, found in zip(posts, normalized, hits, strict=True):
        # the columns prediction found for this very post object are read back, not found again
        assert model._scorer.known_columns(post, nt, found) is not None
        spans = [(c, v, 0, 0) for c, v in found]  # places are not what is compared here
        remembered = model.explain_many(post, model.categories, normalized=nt, hit_spans=spans)
        fresh = normalize(post)  # another object: nothing remembered for it
        assert model._scorer.known_columns(post, fresh, found) is None
        afresh = model.explain_many(post, model.categories, normalized=fresh, hit_spans=spans)
        assert remembered == afresh
        assert any(remembered.values()), post
