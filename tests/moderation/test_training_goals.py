"""The project's goals, measured on the real corpus' dev split.

``make test`` trains ``var/model.skops`` first; when that file was trained on exactly the current
training split and lexicon files it is evaluated as is, otherwise a model is trained here (about
10-30 s on two cores).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from moderation.classifier import ModelFileError, PostClassifier
from moderation.features import lexicon_digest
from moderation.training import (
    CORE_CATEGORIES,
    corpus_digest,
    evaluate,
    fit_classifier,
    load_corpus,
    split_corpus,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def real_model_and_dev() -> tuple[PostClassifier, list, list]:
    corpus = ROOT / "corpus"
    if not list(corpus.glob("*.jsonl")):
        pytest.skip("no corpus files")
    train, dev = split_corpus(load_corpus(corpus))
    model = None
    try:
        saved = PostClassifier.load(ROOT / "var" / "model.skops")
        current = (corpus_digest(train), lexicon_digest())
        if (saved.metadata.get("train_digest"), saved.metadata.get("lexicon_digest")) == current:
            model = saved
    except ModelFileError:
        pass
    return (model or fit_classifier(train)), train, dev


@pytest.mark.slow
@pytest.mark.xdist_group("real_corpus_model")
def test_dev_split_meets_the_goals(real_model_and_dev: tuple[PostClassifier, list, list]) -> None:
    model, train, dev = real_model_and_dev
    assert set(CORE_CATEGORIES) <= set(model.categories)
    evaluation = evaluate(model, dev, train)
    assert evaluation.clean_posts >= 50
    assert evaluation.macro_f1_core >= 0.90, {c: s.f1 for c, s in evaluation.scores.items()}
    assert evaluation.clean_fpr <= 0.02


@pytest.mark.slow
@pytest.mark.xdist_group("real_corpus_model")
def test_game_talk_is_not_flagged(real_model_and_dev: tuple[PostClassifier, list, list]) -> None:
    model, _, _ = real_model_and_dev
    # The seeds' own game vocabulary, which generic filters flag: none of it breaks a rule.
    game_talk = [
        "我要是狼我就先刀你",
        "昨晚女巫毒了5号，今天查杀7号",
        "警徽流先验3号再验9号，出局的是平民",
        "猎人开枪带走了悍跳狼",
        "我是预言家，昨晚验了4号是金水",
    ]
    flagged = {text: model.labels(text) for text in game_talk}
    assert sum(bool(labels) for labels in flagged.values()) <= 1, flagged
