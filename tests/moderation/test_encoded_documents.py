"""Training's encoded documents give the feature space and matrices of the token-list path.

``FeatureSpace.fit_encoded`` / ``transform_encoded`` over ``EncodedDocuments`` replace, in
training, ``fit`` / ``transform`` over token lists (issue 17: training fast without changing the
model it produces). The model is only the same file if every matrix value is the same float, so
the comparisons here are bit for bit, on real corpus posts, for the fold subsets training uses.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from moderation.features import EncodedDocuments, FeatureSpace, post_tokens

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def documents() -> list[list[str]]:
    texts: list[str] = []
    for path in sorted((ROOT / "corpus").glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        texts += [json.loads(line)["text"] for line in lines[::25] if line.strip()]
    if len(texts) < 200:
        pytest.skip("corpus too small")
    return [post_tokens(t) for t in texts]


def _same_matrix(a: object, b: object) -> bool:
    a.sort_indices()  # type: ignore[attr-defined]
    return (
        a.shape == b.shape  # type: ignore[attr-defined]
        and np.array_equal(a.indptr, b.indptr)  # type: ignore[attr-defined]
        and np.array_equal(a.indices, b.indices)  # type: ignore[attr-defined]
        and a.data.tobytes() == b.data.tobytes()  # type: ignore[attr-defined]
    )


@pytest.mark.parametrize("binary", [True, False])
def test_fold_spaces_and_matrices_are_bit_for_bit_the_token_list_ones(
    documents: list[list[str]], binary: bool
) -> None:
    encoded = EncodedDocuments.encode(documents)
    fold = np.arange(len(documents)) % 4
    for k in range(4):
        kept, held = np.flatnonzero(fold != k), np.flatnonzero(fold == k)
        reference = FeatureSpace.fit([documents[i] for i in kept], min_df=3, binary=binary)
        space = FeatureSpace.fit_encoded(encoded.rows(kept), min_df=3, binary=binary)
        assert space.vocabulary == reference.vocabulary
        assert space.idf.tobytes() == reference.idf.tobytes()
        for rows in (kept, held):
            expected = reference.transform([documents[i] for i in rows])
            assert _same_matrix(expected, space.transform_encoded(encoded.rows(rows)))


def test_rows_keep_the_order_asked_for_and_empty_documents() -> None:
    encoded = EncodedDocuments.encode([["b", "a", "b"], [], ["c", "a"]])
    picked = encoded.rows([2, 1, 0])
    assert picked.indptr.tolist() == [0, 2, 2, 4]
    assert [picked.tokens[i] for i in picked.ids] == ["a", "c", "a", "b"]
    assert picked.counts.tolist() == [1, 1, 1, 2]
    space = FeatureSpace.fit([["a", "b"], ["a"]], min_df=1)
    matrix = space.transform_encoded(picked)
    assert _same_matrix(space.transform([["c", "a"], [], ["b", "a", "b"]]), matrix)
