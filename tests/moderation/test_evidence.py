"""Every classifier finding shows the spans that drove it, and its confidence is calibrated.

The model here learns insults from free wording no lexicon lists (回炉重造, 打人机), so its findings
on them are the classifier's alone: their evidence must point at those words in the post as typed.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from moderation.classifier import PostClassifier, visible
from moderation.features import FeatureSpace, post_tokens, token_places, token_spans
from moderation.lexicon import category_hits
from moderation.normalize import normalize
from moderation.screen import Screener
from moderation.training import (
    Post,
    TrainingOptions,
    fit_classifier,
    platt_calibration,
    reliability_table,
)

_TARGETS = ["3号", "5号", "7号", "预言家", "女巫", "警长", "9号", "守卫"]
_FREE_INSULTS = ["{t}建议回炉重造", "{t}这水平去打人机吧", "回炉重造吧{t}，别来祸害好人"]
_CLEAN = ["{t}昨晚被刀了", "我站边{t}", "{t}悍跳，我投他", "警徽流验{t}", "{t}是金水", "听{t}发言"]


def _posts() -> list[Post]:
    rows: list[tuple[str, tuple[str, ...]]] = []
    for frame, target in itertools.product(_FREE_INSULTS, _TARGETS):
        rows.append((frame.format(t=target), ("insult",)))
    for frame, target in itertools.product(_CLEAN, _TARGETS):
        rows.append((frame.format(t=target), ()))
    return [Post(f"e-{i:03d}", text, labels) for i, (text, labels) in enumerate(rows)]


@pytest.fixture(scope="module")
def model() -> PostClassifier:
    return fit_classifier(_posts(), TrainingOptions(folds=3, min_positives=8))


POSTS = ["10号你这种打法建议回炉重造", "今天 回-炉-重-造 的是谁呢，11号", "12号这水平去打人机吧"]


def _contributions(model: PostClassifier, text: str, category: str) -> dict[str, float]:
    """coefficient × value for every token of the post, through the plain training matrix."""
    row = model.space.transform([post_tokens(text, model.config)]).toarray()[0]
    coef = model.coef[model.categories.index(category)]
    return {t: float(coef[i] * row[i]) for i, t in enumerate(model.space.vocabulary) if row[i]}


@pytest.mark.parametrize("text", POSTS)
def test_a_classifier_only_finding_shows_spans_holding_its_top_features(
    model: PostClassifier, text: str
) -> None:
    assert category_hits(text) == []  # no lexicon or pattern knows these words
    findings = Screener("m72", classifier=model).screen(text)
    (finding,) = [f for f in findings if f.via == "classifier"]
    assert finding.category == "insult" and finding.evidence
    contributions = _contributions(model, text, "insult")
    top = max(contributions, key=lambda t: contributions[t])
    for piece in finding.evidence:
        assert 0 <= piece.start < piece.end <= len(text)
        assert text[piece.start : piece.end] == piece.match and visible(piece.match)
        for feature in piece.features:
            assert contributions[feature] > 0  # only features pushing towards the category
            if feature.startswith("c:"):  # the n-gram is in the span as folded
                assert feature[2:] in normalize(piece.match).folded
    # the strongest feature of the post is shown, and the finding's own span is the strongest piece
    assert any(top in piece.features for piece in finding.evidence)
    assert (finding.start, finding.end) == (finding.evidence[0].start, finding.evidence[0].end)
    assert finding.match == finding.evidence[0].match != text


def test_evidence_spans_cover_what_the_player_typed(model: PostClassifier) -> None:
    text = "今天 回-炉-重-造 的是谁呢，11号"
    matches = [e.match for e in model.explain(text, "insult")]
    assert any("回-炉" in m or "重-造" in m for m in matches), matches


def test_every_feature_token_maps_back_to_the_text() -> None:
    for text in ["你是 煞-笔😡", "[b]傻[/b]逼 nmsl sha bi", "如果我是狼我全家死光光光", "ＳＢ吧你"]:
        spans = token_spans(text)
        counts: dict[str, int] = {}
        for token in post_tokens(text):
            counts[token] = counts.get(token, 0) + 1
        assert {t: len(v) for t, v in spans.items()} == counts
        for places in spans.values():
            assert all(0 <= a < b <= len(text) for a, b in places)
        # the prediction path's targeted search finds the same places
        assert token_places(spans, text) == spans
    post = "你是 煞-笔"
    assert [post[a:b] for a, b in token_spans(post)["p:sha bi"]] == ["煞-笔"]
    assert token_places(["c:金水"], post) == {"c:金水": []}


def test_a_score_without_positive_features_has_no_evidence(model: PostClassifier) -> None:
    assert model.explain("", "insult") == ()
    assert model.explain("😶😶", "insult") == ()


def test_confidence_is_calibrated_and_keeps_the_decisions(model: PostClassifier) -> None:
    assert model.calibration is not None
    raw = np.linspace(0.01, 0.99, 50)
    calibrated = [model.confidence("insult", float(p)) for p in raw]
    assert calibrated == sorted(calibrated)  # monotone: the same posts reach the threshold
    finding = Screener("m72", classifier=model).screen(POSTS[0])[0]
    p = model.predict([POSTS[0]])[0]["insult"]
    assert finding.confidence == round(model.confidence("insult", p), 4)


def test_platt_calibration_turns_overconfident_scores_into_frequencies() -> None:
    rng = np.random.default_rng(3)
    # a model whose raw 0.9 is right only about half the time: positives and negatives overlap
    gold = (rng.random(4000) < 0.3).astype(int)
    raw = 1 / (1 + np.exp(-(3.0 * gold - 1.5 + rng.normal(0, 2.0, 4000)) * 2))
    (a, b) = platt_calibration(raw[:, None], gold[:, None], ["x"])["x"]
    logit = np.log(raw / (1 - raw))
    confidence = 1 / (1 + np.exp(-(a * logit + b)))
    rows = reliability_table(confidence.tolist(), gold.tolist())
    for row in rows:
        if row["count"] >= 100:
            assert abs(row["correct"] - row["mean_confidence"]) < 0.06, row
    raw_rows = reliability_table(raw.tolist(), gold.tolist())
    assert raw_rows[-1]["correct"] < raw_rows[-1]["mean_confidence"] - 0.1  # raw: overconfident


def test_reliability_table_bins_confidences() -> None:
    rows = reliability_table([0.05, 0.95, 0.91, 1.0, 0.5], [False, True, False, True, True])
    assert rows[0]["bin"] == "0.0-0.1" and len(rows) == 10
    by_bin = {r["bin"]: r for r in rows}
    assert by_bin["0.9-1.0"]["count"] == 3 and by_bin["0.9-1.0"]["correct"] == pytest.approx(2 / 3)
    assert by_bin["0.5-0.6"]["count"] == 1 and by_bin["0.2-0.3"]["count"] == 0


def test_confidence_applies_the_stored_calibration_and_survives_the_file(tmp_path: Path) -> None:
    space = FeatureSpace.fit([post_tokens("傻逼"), post_tokens("金水")], min_df=1)
    weights = np.array([[3.0 if t == "c:傻逼" else 0.0 for t in space.vocabulary]])
    model = PostClassifier(
        space=space,
        categories=("insult",),
        coef=weights,
        intercept=np.array([0.0]),
        thresholds={"insult": 0.5},
        calibration={"insult": (1.0, -2.0)},
    )
    assert model.confidence("insult", 0.5) == pytest.approx(1 / (1 + math.exp(2.0)))
    model.save(tmp_path / "m.skops")
    loaded = PostClassifier.load(tmp_path / "m.skops")
    assert loaded.calibration == {"insult": (1.0, -2.0)}
    assert loaded.fingerprint() == model.fingerprint()
    found = Screener("m72", classifier=loaded).screen("你 傻-逼")
    (finding,) = [f for f in found if f.via == "classifier"]
    p = loaded.predict(["你 傻-逼"])[0]["insult"]
    assert finding.via == "classifier" and finding.match == "傻-逼"
    assert finding.confidence == round(1 / (1 + math.exp(-(math.log(p / (1 - p)) - 2.0))), 4)
    assert finding.confidence < round(p, 4)
