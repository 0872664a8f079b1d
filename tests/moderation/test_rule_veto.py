"""The rule veto: the trained model overrules an ambiguous word's rule finding it scores far below.

A rule hit of a word ordinary game talk also uses (替补, 爱信不信, 赛后) stands whenever the hand
reading cues miss its frame; the model reads the whole post. Where it scores the word's category
below :attr:`RuleVeto.below` and the word is not firm (seen in training almost only in posts of
its category), the finding goes. Each test fails when the layer, the firm set or the threshold
stops doing its part.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from moderation.classifier import ModelFileError, PostClassifier, RuleVeto
from moderation.layers import Layer
from moderation.screen import Screener
from moderation.training import Post, TrainingOptions, firm_terms, fit_classifier, tokens_and_terms

#: a real vest violation (looking for a substitute) whose word the veto may overrule
SUBSTITUTE = "我去找个替补来顶我，这两天没空"


class ScoreModel:
    """Scores every post ``score`` for ``category`` and vetoes with ``veto`` (a stand-in)."""

    def __init__(self, category: str, score: float, veto: RuleVeto | None) -> None:
        self.category, self.score, self.rule_veto = category, score, veto
        self.thresholds = {category: 0.5}

    def predict(self, texts: Sequence[str]) -> list[dict[str, float]]:
        return [{self.category: self.score} for _ in texts]


def _vest(score: float, veto: RuleVeto | None, layers: Layer = Layer.ALL) -> set[str]:
    screener = Screener("m08", classifier=ScoreModel("vest", score, veto), layers=layers)
    return {f.term for f in screener.screen(SUBSTITUTE) if f.category == "vest"}


AMBIGUOUS = RuleVeto(below=0.15, firm={})


def test_rules_alone_find_the_word() -> None:
    assert "替补" in {f.term for f in Screener("m08", classifier=None).screen(SUBSTITUTE)}


def test_a_score_far_below_the_threshold_overrules_an_ambiguous_word() -> None:
    assert _vest(0.02, AMBIGUOUS) == set()


def test_without_the_layer_the_rule_finding_stands() -> None:
    assert _vest(0.02, AMBIGUOUS, Layer.ALL & ~Layer.MODEL_VETO) == {"替补"}


def test_a_firm_word_is_never_overruled() -> None:
    assert _vest(0.0, RuleVeto(below=0.15, firm={"vest": frozenset({"替补"})})) == {"替补"}


def test_a_score_above_the_veto_keeps_the_finding() -> None:
    # 0.3: below the model's threshold (no finding of its own) but not far below it
    assert _vest(0.3, AMBIGUOUS) == {"替补"}


def test_a_model_without_a_veto_overrules_nothing() -> None:
    assert _vest(0.0, None) == {"替补"}


def test_a_category_the_model_does_not_score_is_left_alone() -> None:
    screener = Screener("m08", classifier=ScoreModel("insult", 0.0, AMBIGUOUS))
    assert {f.term for f in screener.screen(SUBSTITUTE)} == {"替补"}


def test_firm_terms_count_only_clean_posts_and_posts_of_the_category() -> None:
    posts = [
        *[Post(f"a{i}", "脑残", ("insult",)) for i in range(9)],
        *[Post(f"b{i}", "替补", ("vest",)) for i in range(9)],
        *[Post(f"c{i}", "规则写了不许聊替补", ()) for i in range(3)],
        *[Post(f"d{i}", "脑残也算发誓吗", ("oath",)) for i in range(20)],  # another category
    ]
    terms = [
        *[frozenset({("insult", "脑残")})] * 9,
        *[frozenset({("vest", "替补")})] * 12,
        *[frozenset({("insult", "脑残")})] * 20,
    ]
    firm = firm_terms(posts, terms, ["insult", "vest"], 0.1)
    # 脑残: 0 clean of 9 (1/11 smoothed); 替补: 3 clean of 12 (4/14): ambiguous
    assert firm == {"insult": frozenset({"脑残"})}


def test_tokens_and_terms_gives_the_tokens_of_post_tokens() -> None:
    from moderation.features import FeatureConfig, post_tokens

    config = FeatureConfig()
    tokens, terms = tokens_and_terms(SUBSTITUTE, config)
    assert tokens == post_tokens(SUBSTITUTE, config)
    assert ("vest", "替补") in terms


def _corpus() -> list[Post]:
    insults = ["你就是个脑残", "脑残别说话", "这脑残又乱投", "脑残玩意儿", "一群脑残"]
    vest = ["我去找替补了", "帮我找个替补", "替补来了没", "谁能当替补", "替补顶一下"]
    clean = ["规则写了不许聊替补", "替补的事别聊了", "金水是谁", "今天归票三号", "我跳预言家"]
    posts = [
        Post(f"i{k}{n}", f"{t}{'！' * n}", ("insult",))
        for k, t in enumerate(insults)
        for n in range(4)
    ]
    posts += [
        Post(f"v{k}{n}", f"{t}{'。' * n}", ("vest",)) for k, t in enumerate(vest) for n in range(4)
    ]
    posts += [Post(f"c{k}{n}", f"{t}{'？' * n}", ()) for k, t in enumerate(clean) for n in range(8)]
    return posts


@pytest.fixture(scope="module")
def model() -> PostClassifier:
    return fit_classifier(_corpus(), TrainingOptions(folds=2, min_positives=8))


def test_training_stores_the_veto_and_its_firm_words(model: PostClassifier) -> None:
    assert model.rule_veto is not None
    assert model.rule_veto.below == TrainingOptions().veto_below
    assert "脑残" in model.rule_veto.firm.get("insult", frozenset())
    assert "替补" not in model.rule_veto.firm.get("vest", frozenset())  # clean posts use it


def test_the_veto_survives_the_model_file(model: PostClassifier, tmp_path: Path) -> None:
    path = tmp_path / "model.skops"
    model.save(path)
    loaded = PostClassifier.load(path)
    assert loaded.rule_veto == model.rule_veto
    assert loaded.fingerprint() == model.fingerprint()


def test_a_firm_word_inside_a_merged_finding_keeps_it() -> None:
    # 不得好死 (firm) merges into the longer curse pattern, whose own term is not firm
    curse = "你不得好死"
    firm = RuleVeto(below=0.15, firm={"oath": frozenset({"不得好死"})})
    kept = Screener("m08", classifier=ScoreModel("oath", 0.0, firm)).screen(curse)
    assert [f.term for f in kept] == ["oath-curse-you-die"]
    assert Screener("m08", classifier=ScoreModel("oath", 0.0, AMBIGUOUS)).screen(curse) == []


def test_a_version_2_model_file_loads_without_a_veto(model: PostClassifier) -> None:
    import skops.io

    state = model._state()
    state["format_version"] = 2  # written before the veto: no rule_veto entry at all
    del state["rule_veto"]
    old = PostClassifier.from_bytes(skops.io.dumps(state))
    assert old.rule_veto is None
    assert old.predict(["你就是个脑残"]) == model.predict(["你就是个脑残"])
    state["format_version"] = 1
    with pytest.raises(ModelFileError, match="2 or 3"):
        PostClassifier.from_bytes(skops.io.dumps(state))
