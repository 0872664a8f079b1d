"""PostClassifier: predictions, thresholds, and a model file that cannot run code when loaded."""

from __future__ import annotations

import dataclasses
import io
import itertools
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

from moderation.classifier import (
    TRUSTED_TYPES,
    ModelFileError,
    PostClassifier,
    UntrustedModelError,
    default_model_path,
)
from moderation.training import Post, TrainingOptions, fit_classifier

_TARGETS = ["3号", "5号", "7号", "预言家", "女巫"]


def _posts() -> list[Post]:
    rows: list[tuple[str, tuple[str, ...]]] = []
    for target, word in itertools.product(_TARGETS, ["傻逼", "脑残", "智障", "sb"]):
        rows.append((f"{target}你是不是{word}", ("insult",)))
    for target, frame in itertools.product(_TARGETS, ["我发誓{}是狼", "拿人格担保{}是好人"]):
        rows.append((frame.format(target), ("oath",)))
        rows.append((f"{target}是不是上一场那个马甲" + frame[:1], ("vest",)))
    for target, frame in itertools.product(
        _TARGETS, ["{}昨晚被刀了", "我站边{}", "{}悍跳", "警徽流验{}", "{}是金水"]
    ):
        rows.append((frame.format(target), ()))
    return [Post(f"p-{i:03d}", text, labels) for i, (text, labels) in enumerate(rows)]


@pytest.fixture(scope="module")
def model() -> PostClassifier:
    return fit_classifier(_posts(), TrainingOptions(folds=3, min_positives=8))


@pytest.fixture(scope="module")
def model_file(model: PostClassifier, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("model") / "model.skops"
    model.save(path)
    return path


def test_predict_gives_a_probability_per_category(model: PostClassifier) -> None:
    predictions = model.predict(["女巫你是不是傻逼", "我站边7号", ""])
    assert len(predictions) == 3
    for row in predictions:
        assert list(row) == list(model.categories)
        assert all(0.0 <= p <= 1.0 for p in row.values())
    assert predictions[0]["insult"] > predictions[1]["insult"]
    assert model.predict([]) == []


def test_labels_are_exactly_the_categories_at_or_above_threshold(model: PostClassifier) -> None:
    texts = ["5号你是不是脑残", "我发誓3号是狼", "3号是金水", "预言家是不是上一场那个马甲"]
    for text, probabilities in zip(texts, model.predict(texts), strict=True):
        expected = [c for c in model.categories if probabilities[c] >= model.thresholds[c]]
        assert model.labels(text) == expected
    everything = dataclasses.replace(model, thresholds=dict.fromkeys(model.categories, 0.0))
    nothing = dataclasses.replace(model, thresholds=dict.fromkeys(model.categories, 1.01))
    assert everything.labels("3号是金水") == list(model.categories)
    assert nothing.labels("5号你是不是脑残") == []


def test_thresholds_must_match_categories(model: PostClassifier) -> None:
    with pytest.raises(ValueError, match="thresholds"):
        dataclasses.replace(model, thresholds={"insult": 0.5})
    with pytest.raises(ValueError, match="coef"):
        dataclasses.replace(model, coef=model.coef[:, :-1])


def test_save_and_load_round_trip(model: PostClassifier, model_file: Path) -> None:
    loaded = PostClassifier.load(model_file)
    assert loaded.fingerprint() == model.fingerprint()
    assert loaded.thresholds == model.thresholds
    texts = ["女巫你是不是傻逼", "我站边7号"]
    assert loaded.predict(texts) == model.predict(texts)
    assert loaded.to_bytes() == model_file.read_bytes()


def test_default_model_path_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BANSHA_MODEL", raising=False)
    assert default_model_path() == Path("var/model.skops")
    monkeypatch.setenv("BANSHA_MODEL", "/srv/m.skops")
    assert default_model_path() == Path("/srv/m.skops")


def test_load_uses_the_default_path(
    model: PostClassifier, model_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BANSHA_MODEL", str(model_file))
    assert PostClassifier.load().fingerprint() == model.fingerprint()


# -- a model file cannot run code -----------------------------------------------------------------


def _rewrite(path: Path, target: Path, edit: object) -> None:
    """Copy a model archive, passing its schema through ``edit`` (a function of the schema)."""
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(target, "w") as out:
        for name in source.namelist():
            data = source.read(name)
            if name == "schema.json":
                schema = json.loads(data)
                edit(schema)  # type: ignore[operator]
                data = json.dumps(schema).encode()
            out.writestr(name, data)


def test_a_tampered_archive_naming_a_function_is_refused(model_file: Path, tmp_path: Path) -> None:
    def inject(schema: dict[str, object]) -> None:
        content = schema["content"]
        assert isinstance(content, dict)
        content["metadata"] = {
            "__class__": "system",
            "__module__": "os",
            "__loader__": "FunctionNode",
            "content": {"module_path": "os", "function": "system"},
            "__id__": 99999,
        }

    bad = tmp_path / "tampered.skops"
    _rewrite(model_file, bad, inject)
    with pytest.raises(UntrustedModelError, match=r"os\.system"):
        PostClassifier.load(bad)


def test_a_valid_skops_file_of_another_object_is_refused(tmp_path: Path) -> None:
    import skops.io
    from sklearn.linear_model import LogisticRegression

    estimator = LogisticRegression().fit(np.array([[0.0], [1.0]]), [0, 1])
    path = tmp_path / "estimator.skops"
    skops.io.dump(estimator, path)
    with pytest.raises(UntrustedModelError, match="LogisticRegression"):
        PostClassifier.load(path)


def test_a_pickle_is_not_a_model(tmp_path: Path) -> None:
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps({"format": "bansha-post-classifier"}))
    with pytest.raises(ModelFileError, match="not a skops model archive"):
        PostClassifier.load(path)


def test_truncated_and_missing_files_are_clear_errors(model_file: Path, tmp_path: Path) -> None:
    path = tmp_path / "half.skops"
    path.write_bytes(model_file.read_bytes()[:2000])
    with pytest.raises(ModelFileError):
        PostClassifier.load(path)
    with pytest.raises(ModelFileError, match="bansha train"):
        PostClassifier.load(tmp_path / "absent.skops")


def test_a_model_from_other_feature_code_is_refused(model_file: Path, tmp_path: Path) -> None:
    def bump(schema: dict[str, object]) -> None:
        content = schema["content"]
        assert isinstance(content, dict)
        # a fresh __id__ too: skops shares nodes by id, and 1 is also the format version
        content["feature_version"].update(content="999", __id__=123456)

    stale = tmp_path / "stale.skops"
    _rewrite(model_file, stale, bump)
    with pytest.raises(ModelFileError, match="feature version"):
        PostClassifier.load(stale)


def test_the_archive_names_only_trusted_types(model_file: Path) -> None:
    schema = json.loads(zipfile.ZipFile(model_file).read("schema.json"))
    names: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "__class__" in node:
                names.add(f"{node['__module__']}.{node['__class__']}")
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    assert names <= set(TRUSTED_TYPES)
    assert "numpy.ndarray" in names


def test_model_bytes_do_not_depend_on_object_ids(model: PostClassifier) -> None:
    copy = dataclasses.replace(model, thresholds=dict(model.thresholds))
    assert copy.to_bytes() == model.to_bytes()
    archive = zipfile.ZipFile(io.BytesIO(model.to_bytes()))
    assert all(info.date_time == (1980, 1, 1, 0, 0, 0) for info in archive.infolist())


def test_top_features_point_at_the_category(model: PostClassifier) -> None:
    tokens = [token for token, _ in model.top_features("oath", 10)]
    assert any("誓" in t or "担保" in t or "fa shi" in t for t in tokens)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\ud800傻逼",
        "\x00\x01\x1f",
        "🙂" * 50,
        "[color=#FF0000][size=7][/size][/color]",
        "傻" * 20000,
    ],
)
def test_awkward_posts_get_probabilities_not_crashes(model: PostClassifier, text: str) -> None:
    (row,) = model.predict([text])
    assert all(0.0 <= p <= 1.0 for p in row.values())
    assert model.labels(text) == [c for c in model.categories if row[c] >= model.thresholds[c]]
