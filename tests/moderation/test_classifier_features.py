"""Feature extraction: evasions of one phrase share tokens, and vectors are deterministic."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from moderation.features import FeatureConfig, FeatureSpace, post_tokens, split_pinyin, text_views


@pytest.mark.parametrize(
    "spelling", ["傻逼", "煞笔", "沙比", "sha bi", "shabi", "ＳＨＡＢＩ", "傻 . 逼"]
)
def test_homophones_and_romanisations_share_the_pinyin_bigram(spelling: str) -> None:
    assert "p:sha bi" in post_tokens(f"你就是{spelling}")


@pytest.mark.parametrize("spelling", ["nmsl", "ＮＭＳＬ", "n m s l", "你妈死了"])
def test_initials_written_as_letters_match_the_characters(spelling: str) -> None:
    assert "i:nmsl" in post_tokens(spelling)


def test_traditional_characters_fold_to_the_simplified_tokens() -> None:
    simplified = {t for t in post_tokens("你这个脑残") if t.startswith("c:")}
    traditional = {t for t in post_tokens("你這個腦殘") if t.startswith("c:")}
    assert simplified == traditional


def test_emoji_survive_as_their_own_tokens() -> None:
    assert "e:🐴" in post_tokens("你🐴的")
    assert not any(t.startswith("e:") for t in post_tokens("你妈的"))


def test_ngram_ranges_follow_the_config() -> None:
    config = FeatureConfig(char_ngrams=(2, 2), pinyin_ngrams=(1, 1), initials_ngrams=(3, 3))
    tokens = post_tokens("查杀金水", config)
    chars = [t for t in tokens if t.startswith("c:")]
    assert chars == ["c:查杀", "c:杀金", "c:金水"]
    assert [t for t in tokens if t.startswith("i:")] == ["i:csj", "i:sjs"]
    assert FeatureConfig.from_dict(config.as_dict()) == config


@pytest.mark.parametrize(
    ("run", "expected"),
    [
        ("caonima", ("cao", "ni", "ma")),
        ("tmd", ("t", "m", "d")),
        ("sbnimade", ("s", "b", "ni", "ma", "de")),
        ("zhizhang", ("zhi", "zhang")),
    ],
)
def test_letter_runs_read_as_pinyin_where_they_can(run: str, expected: tuple[str, ...]) -> None:
    assert split_pinyin(run) == expected


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", max_size=60))
@settings(max_examples=200, deadline=None)
def test_pinyin_reading_keeps_every_letter(run: str) -> None:
    assert "".join(split_pinyin(run)) == run


@given(st.text(max_size=80))
@settings(max_examples=150, deadline=None)
def test_any_text_gives_tokens_without_crashing(text: str) -> None:
    views = text_views(text)
    assert len(views.syllables) == len(views.initials)
    assert all(isinstance(t, str) for t in post_tokens(text))


def test_feature_space_is_sorted_and_ignores_unknown_tokens() -> None:
    documents = [post_tokens(t) for t in ["你是不是傻逼", "我站边5号", "5号是金水", "傻逼5号"]]
    space = FeatureSpace.fit(documents, min_df=2)
    assert list(space.vocabulary) == sorted(space.vocabulary)
    assert all(sum(1 for d in documents if token in d) >= 2 for token in space.vocabulary)
    matrix = space.transform([*documents, ["never-seen"]])
    assert matrix.getrow(len(documents)).nnz == 0
    again = FeatureSpace.fit(list(reversed(documents)), min_df=2)
    assert again.vocabulary == space.vocabulary
    assert (again.transform(documents) != matrix[: len(documents)]).nnz == 0


@pytest.mark.parametrize("power", [0.0, 0.5, 1.0])
def test_rows_are_idf_over_a_power_of_their_length(power: float) -> None:
    documents = [["a", "b", "b"], ["a", "c"], ["b", "c", "d"], ["a"]]
    space = FeatureSpace.fit(documents, min_df=1, length_power=power)
    matrix = space.transform(documents).toarray()
    for document, row in zip(documents, matrix, strict=True):
        present = [space.index[t] for t in set(document)]
        raw = space.idf[present]  # binary: repeats count once
        length = math.sqrt(float((raw**2).sum()))
        assert row[present] == pytest.approx(raw / length**power)
        assert math.isclose(float(row.sum()), float(row[present].sum()))
    unit = FeatureSpace.fit(documents, min_df=1, binary=False, length_power=1.0)
    assert (unit.transform(documents).toarray() ** 2).sum(axis=1) == pytest.approx([1.0] * 4)


def test_a_phrase_weighs_about_the_same_in_a_long_post() -> None:
    short, long = post_tokens("你是傻逼"), post_tokens("你是傻逼，" + "昨晚女巫救了人今天归票" * 6)
    space = FeatureSpace.fit([short, long], min_df=1)
    column = space.index["c:傻逼"]
    rows = space.transform([short, long]).toarray()
    tfidf = FeatureSpace.fit([short, long], min_df=1, binary=False, length_power=1.0)
    unit_rows = tfidf.transform([short, long]).toarray()
    # the default keeps more of the phrase's weight in the long post than unit-length tf-idf does
    assert rows[1, column] / rows[0, column] > unit_rows[1, column] / unit_rows[0, column]
