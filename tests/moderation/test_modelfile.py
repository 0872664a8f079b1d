"""The model archive is read without skops and gives what ``skops.io.loads`` gives.

Screening processes load the model with :func:`moderation.modelfile.read_state` so that neither
skops nor scikit-learn (nor SciPy) is imported: about 120 MiB less resident memory in every
process. The value must be exactly skops's own, and anything outside plain data is refused.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import skops.io

from moderation.classifier import TRUSTED_TYPES, ModelFileError, PostClassifier, RuleVeto
from moderation.features import FeatureSpace, post_tokens
from moderation.implementation import use_reference
from moderation.modelfile import ArchiveError, read_state

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "var" / "model.skops"


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and bool(np.array_equal(a, b))
        )
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _small_model() -> PostClassifier:
    space = FeatureSpace.fit([post_tokens("傻逼"), post_tokens("金水")], min_df=1)
    weights = np.array([[1.0 if t.startswith("c:傻") else 0.0 for t in space.vocabulary]])
    return PostClassifier(
        space=space,
        categories=("insult",),
        coef=weights,
        intercept=np.array([-0.5]),
        thresholds={"insult": 0.5},
        calibration={"insult": (1.25, -0.5)},
        rule_veto=RuleVeto(below=0.15, firm={"insult": frozenset({"傻逼", "脑残"})}),
        metadata={"seed": 3, "note": "小模型", "none": None},
    )


def test_plain_reader_gives_skops_value_for_a_small_model_and_mixed_data() -> None:
    data = _small_model().to_bytes()
    assert _same(read_state(data), skops.io.loads(data, trusted=list(TRUSTED_TYPES)))
    mixed = {"a": [1, 2.5, None, "字", True], "b": (1, (2, "x")), "c": np.arange(6).reshape(2, 3)}
    mixed_data = skops.io.dumps(mixed)
    got = read_state(mixed_data)
    assert _same(got, skops.io.loads(mixed_data, trusted=list(TRUSTED_TYPES)))
    assert got["b"] == (1, (2, "x"))


def test_plain_reader_gives_skops_value_for_the_trained_model() -> None:
    if not MODEL.exists():
        pytest.skip("no trained model at var/model.skops (make model)")
    data = MODEL.read_bytes()
    assert _same(read_state(data), skops.io.loads(data, trusted=list(TRUSTED_TYPES)))
    fast = PostClassifier.load(MODEL)
    with use_reference():
        slow = PostClassifier.load(MODEL)
    assert fast.fingerprint() == slow.fingerprint()


def _rewrite_schema(data: bytes, change: Any) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(data))
    schema = json.loads(source.read("schema.json"))
    change(schema)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            body = json.dumps(schema).encode() if name == "schema.json" else source.read(name)
            target.writestr(name, body)
    return out.getvalue()


def test_plain_reader_refuses_what_is_not_plain_data() -> None:
    data = _small_model().to_bytes()

    def to_set(schema: dict[str, Any]) -> None:
        schema["content"]["categories"]["__loader__"] = "SetNode"

    def to_object_array(schema: dict[str, Any]) -> None:
        schema["content"]["idf"]["type"] = "object"

    for change in (to_set, to_object_array):
        with pytest.raises(ArchiveError):
            read_state(_rewrite_schema(data, change))
        with pytest.raises(ModelFileError):  # and the classifier's audit refuses it first
            PostClassifier.from_bytes(_rewrite_schema(data, change))
    with pytest.raises(ArchiveError, match="not a skops archive"):
        read_state(b"not a zip")


def test_loading_the_model_imports_neither_skops_nor_scikit_learn_nor_scipy(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.skops"
    _small_model().save(path)
    code = (
        "import sys\n"
        "from moderation.classifier import PostClassifier\n"
        f"m = PostClassifier.load({str(path)!r})\n"
        "assert m.labels('傻逼') == ['insult']\n"
        "print(sorted({n.split('.')[0] for n in sys.modules} & {'skops', 'sklearn', 'scipy'}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
