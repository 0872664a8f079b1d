"""The fast path screens exactly like the reference (jieba and pypinyin called directly).

Whatever the pipeline is, it runs twice over every post of the corpus and of the held-out set:
once on the reference path (``moderation.implementation.use_reference``), once on the fast path
(one post at a time and in batches), and every finding (category, article, span, match, term,
via, confidence, evidence) and the water flag must be the same. The trained model
(``var/model.skops``, which ``make test`` builds) takes part, so classifier findings and their
evidence are compared too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from moderation.classifier import PostClassifier
from moderation.implementation import reference, use_reference
from moderation.screen import Screener, ScreenResult

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "var" / "model.skops"


def _texts() -> list[str]:
    paths = [*sorted((ROOT / "corpus").glob("*.jsonl")), ROOT / "corpus/holdout/holdout.jsonl"]
    texts: list[str] = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                texts.append(json.loads(line)["text"])
    return list(dict.fromkeys(texts))


def _shape(results: list[ScreenResult]) -> list[tuple[object, ...]]:
    return [(tuple(r.findings), r.water) for r in results]


@pytest.fixture(scope="module")
def screener() -> Screener:
    if not MODEL.exists():
        pytest.skip("no trained model at var/model.skops (make model)")
    return Screener("m08", classifier=PostClassifier.load(MODEL))


def test_fast_path_gives_the_reference_findings_on_corpus_and_holdout(
    screener: Screener,
) -> None:
    texts = _texts()
    assert len(texts) > 6000
    with use_reference():
        assert reference()
        expected = _shape([screener.screen_post(t) for t in texts])
    assert not reference()
    single = _shape([screener.screen_post(t) for t in texts])
    batched = _shape(
        [r for i in range(0, len(texts), 256) for r in screener.screen_posts(texts[i : i + 256])]
    )
    assert sum(1 for findings, _ in expected if findings) > 1000  # the comparison has teeth
    for name, got in (("single", single), ("batch", batched)):
        differing = [t for t, a, b in zip(texts, expected, got, strict=True) if a != b]
        assert not differing, f"{name}: {len(differing)} posts differ, e.g. {differing[:3]}"
