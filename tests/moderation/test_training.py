"""Corpus loading, the train/dev split, threshold choice and a small end-to-end ``bansha train``."""

from __future__ import annotations

import itertools
import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from moderation.classifier import PostClassifier
from moderation.training import (
    CorpusError,
    Post,
    TrainingOptions,
    choose_thresholds,
    evaluate,
    fit_classifier,
    load_corpus,
    load_jsonl,
    main,
    parse_post,
    split_corpus,
    split_of,
)

# A small corpus written for these tests: game talk and three kinds of violation, a few spellings.
_TARGETS = ["3号", "5号", "7号", "预言家", "女巫", "警长"]
_INSULTS = ["傻逼", "煞笔", "sb", "脑残", "智障", "猪脑子"]
_INSULT_FRAMES = ["{t}你是不是{x}", "{x}{t}，别装了", "{t}真是个{x}"]
_OATHS = ["我发誓{t}是狼", "如果我是狼我全家死光，{t}", "拿我的人格担保{t}是好人"]
_VESTS = ["{t}是不是上一场那个马甲", "我认出{t}的马甲了", "{t}换替补了吧", "{t}的场外助理在帮他盘"]
_CLEAN = [
    "{t}昨晚被刀了，今天归票",
    "我站边{t}，查杀可信",
    "{t}悍跳，我投他",
    "警徽流先验{t}",
    "{t}是金水，别踩",
    "今天先听{t}发言再决定",
    "女巫昨晚毒了{t}吗",
    "{t}的倒钩太明显了，抗推他",
]


def fixture_posts() -> list[dict[str, Any]]:
    """About 300 posts: clean game talk and insult/oath/vest violations."""
    rows: list[dict[str, Any]] = []

    def add(prefix: str, text: str, labels: list[str], evasion: str = "none") -> None:
        rows.append(
            {
                "id": f"{prefix}-{len(rows):04d}",
                "text": text,
                "labels": labels,
                "evasion": evasion,
                "ruleset": None,
            }
        )

    for frame, insult, target in itertools.product(_INSULT_FRAMES, _INSULTS, _TARGETS[:4]):
        evasion = {"煞笔": "homophone", "sb": "initials"}.get(insult, "none")
        add("ins", frame.format(t=target, x=insult), ["insult"], evasion)
    for frame, target in itertools.product(_OATHS, _TARGETS):
        add("oat", frame.format(t=target), ["oath"])
    for frame, target in itertools.product(_VESTS, _TARGETS):
        add("ves", frame.format(t=target), ["vest"])
    for frame, target in itertools.product(_CLEAN, _TARGETS):
        add("cln", frame.format(t=target), [])
    return rows


def write_corpus(directory: Path, rows: list[dict[str, Any]]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    by_file: dict[str, list[str]] = {}
    for row in rows:
        by_file.setdefault(row["id"].split("-")[0], []).append(json.dumps(row, ensure_ascii=False))
    for name, lines in by_file.items():
        (directory / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return directory


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("corpus"), fixture_posts())


@pytest.fixture(scope="module")
def fixture_train(corpus_dir: Path) -> list[Post]:
    train, _ = split_corpus(load_corpus(corpus_dir))
    return train


FAST = TrainingOptions(folds=3, min_positives=10)


# -- loading --------------------------------------------------------------------------------------

GOOD: dict[str, Any] = {
    "id": "t-1",
    "text": "金水",
    "labels": [],
    "evasion": "none",
    "ruleset": None,
}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        (json.dumps({**GOOD, "id": None}), "field 'id' must be a str"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "text"}), "missing field 'text'"),
        (json.dumps({**GOOD, "text": "  "}), "empty text"),
        (json.dumps({**GOOD, "labels": ["spam"]}), "unknown label 'spam'"),
        (json.dumps({**GOOD, "labels": ["oath", "oath"]}), "repeated label"),
        (json.dumps({**GOOD, "labels": ["oath"], "evasion": "morse"}), "unknown evasion 'morse'"),
        (json.dumps({**GOOD, "evasion": "homophone"}), "clean post"),
        (json.dumps({**GOOD, "split": "dev"}), "unknown field(s) 'split'"),
        (json.dumps({**GOOD, "ruleset": 8}), "'ruleset' must be a string"),
    ],
)
def test_bad_lines_are_rejected_naming_the_place(line: str, message: str) -> None:
    with pytest.raises(CorpusError) as caught:
        parse_post(line, "corpus/x.jsonl:7")
    assert str(caught.value).startswith("corpus/x.jsonl:7: ")
    assert message in str(caught.value)


def test_a_good_line_parses_with_labels_in_canonical_order() -> None:
    row = {**GOOD, "labels": ["vest", "insult"], "evasion": "mixed", "ruleset": "m08"}
    post = parse_post(json.dumps(row, ensure_ascii=False), "f:1")
    assert post.labels == ("insult", "vest")
    assert (post.evasion, post.ruleset, post.source, post.clean) == ("mixed", "m08", "f:1", False)


def test_errors_carry_file_and_line_number(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(GOOD) + "\n\n" + '{"id": "t-2"}\n', encoding="utf-8")
    with pytest.raises(CorpusError, match=r"bad\.jsonl:3: missing field 'text'"):
        load_jsonl(path)


def test_non_utf8_and_missing_files_are_clear_errors(tmp_path: Path) -> None:
    path = tmp_path / "latin.jsonl"
    path.write_bytes(b'{"id": "\xff"}\n')
    with pytest.raises(CorpusError, match="not UTF-8"):
        load_jsonl(path)
    with pytest.raises(CorpusError, match="no such file"):
        load_jsonl(tmp_path / "absent.jsonl")
    with pytest.raises(CorpusError, match="corpus directory not found"):
        load_corpus(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CorpusError, match=r"no \*\.jsonl"):
        load_corpus(tmp_path / "empty")


def test_duplicate_ids_across_files_name_both_places(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(json.dumps(GOOD) + "\n", encoding="utf-8")
    (tmp_path / "b.jsonl").write_text("\n" + json.dumps(GOOD) + "\n", encoding="utf-8")
    with pytest.raises(CorpusError) as caught:
        load_corpus(tmp_path)
    assert "b.jsonl:2" in str(caught.value) and "a.jsonl:1" in str(caught.value)


# -- split ----------------------------------------------------------------------------------------


def test_split_is_about_one_fifth_dev_and_depends_on_the_id_only() -> None:
    ids = [f"p-{i:05d}" for i in range(4000)]
    dev = [i for i in ids if split_of(i) == "dev"]
    assert 0.17 < len(dev) / len(ids) < 0.23
    assert [split_of(i) for i in ids] == [split_of(i) for i in reversed(ids)][::-1]


def test_adding_posts_does_not_move_existing_ones() -> None:
    posts = [Post(f"p-{i}", f"text {i}", ()) for i in range(500)]
    train, dev = split_corpus(posts[:300])
    more_train, more_dev = split_corpus(posts)
    assert {p.id for p in train} <= {p.id for p in more_train}
    assert {p.id for p in dev} <= {p.id for p in more_dev}
    assert {p.id for p in more_dev} & {p.id for p in train} == set()


def test_real_corpus_dev_split_covers_every_label_and_evasion_kind() -> None:
    corpus = Path(__file__).resolve().parents[2] / "corpus"
    if not list(corpus.glob("*.jsonl")):
        pytest.skip("no corpus files")
    posts = load_corpus(corpus)
    train, dev = split_corpus(posts)
    assert 0.15 < len(dev) / len(posts) < 0.25
    for attribute in ("labels", "evasion"):
        values = {v for p in posts for v in (p.labels if attribute == "labels" else [p.evasion])}
        in_dev = {v for p in dev for v in (p.labels if attribute == "labels" else [p.evasion])}
        assert values == in_dev, f"{attribute} missing from dev: {values - in_dev}"
    assert {p.id for p in train}.isdisjoint(p.id for p in dev)


# -- thresholds -----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_thresholds_keep_each_category_within_its_own_clean_budget(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, k = 400, 3
    targets = (rng.random((n, k)) < 0.2).astype(int)
    clean = targets.sum(axis=1) == 0
    # informative but noisy scores: positives high, some clean posts high too
    probabilities = np.clip(0.35 * targets + rng.random((n, k)) * 0.7, 0, 1)
    budgets = {"a": 0.03, "b": 0.01, "c": 0.0}
    thresholds = choose_thresholds(probabilities, targets, clean, ["a", "b", "c"], budgets)
    flagged = np.zeros(n, dtype=bool)
    for j, name in enumerate(["a", "b", "c"]):
        mine = (probabilities[:, j] >= thresholds[name]) & clean
        assert mine.sum() <= budgets[name] * clean.sum()
        flagged |= mine
    assert flagged.sum() / clean.sum() <= sum(budgets.values())
    # and the thresholds still find most positives where the scores separate them
    recall = ((probabilities >= np.array(list(thresholds.values()))) & (targets == 1)).sum()
    assert recall / targets.sum() > 0.3


def _scored(rows: list[tuple[float, float, int, int]]) -> tuple[np.ndarray, ...]:
    """(insult score, meta score, insult gold, meta gold) rows as threshold-choice inputs."""
    table = np.array(rows, dtype=float)
    targets = table[:, 2:].astype(int)
    return table[:, :2], targets, targets.sum(axis=1) == 0


def test_posts_added_to_one_category_leave_the_others_thresholds_alone() -> None:
    # 100 clean posts, two of them scored high (one per category); ten positives per category
    clean_rows = [(0.1, 0.1, 0, 0)] * 97 + [(0.95, 0.1, 0, 0), (0.1, 0.95, 0, 0), (0.7, 0.1, 0, 0)]
    base = clean_rows + [(0.9, 0.1, 1, 0)] * 10 + [(0.1, 0.9, 0, 1)] * 10
    before = choose_thresholds(*_scored(base), ["insult", "meta"], 0.02)
    # 20 more insult posts in free wording, scored 0.6: insult's best threshold drops below the
    # clean post at 0.7 (its second clean hit, within its own 2%); three clean posts are now
    # flagged in all, which a budget shared by both categories would have paid for with meta
    added = choose_thresholds(*_scored(base + [(0.6, 0.1, 1, 0)] * 20), ["insult", "meta"], 0.02)
    assert added["insult"] < 0.7 < before["insult"]
    assert added["meta"] == before["meta"] < 0.95


def test_thresholds_pick_the_best_f1_when_there_is_no_conflict() -> None:
    probabilities = np.array([[0.9], [0.7], [0.6], [0.2], [0.1]])
    targets = np.array([[1], [1], [0], [0], [0]])
    clean = np.array([False, False, True, True, True])
    assert choose_thresholds(probabilities, targets, clean, ["x"], 0.5) == {
        "x": pytest.approx(0.65)
    }


# -- fitting --------------------------------------------------------------------------------------


def test_training_twice_gives_the_same_model_bytes(fixture_train: list[Post]) -> None:
    first = fit_classifier(fixture_train, FAST)
    second = fit_classifier(list(fixture_train), FAST)
    assert first.fingerprint() == second.fingerprint()
    assert first.to_bytes() == second.to_bytes()
    texts = ["5号你是不是傻逼", "我站边7号", "我发誓女巫是狼"]
    assert first.predict(texts) == second.predict(texts)


def test_the_training_pool_gives_the_model_one_worker_gives(
    fixture_train: list[Post], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Training runs its fits side by side (the speed of ``bansha train``); the model file must
    be the one a single worker fitting them in order writes, whatever finishes first."""
    import moderation.training as training

    monkeypatch.setattr(training, "_workers", lambda: 1)
    alone = fit_classifier(fixture_train, FAST)
    monkeypatch.setattr(training, "_workers", lambda: 4)
    pooled = fit_classifier(list(fixture_train), FAST)
    assert pooled.to_bytes() == alone.to_bytes()
    texts = ["5号你是不是傻逼", "我站边7号", "我发誓女巫是狼"]
    assert pooled.predict(texts) == alone.predict(texts)


def test_fixture_model_learns_the_categories(fixture_train: list[Post], corpus_dir: Path) -> None:
    model = fit_classifier(fixture_train, FAST)
    assert model.categories == ("insult", "oath", "vest")
    _, dev = split_corpus(load_corpus(corpus_dir))
    evaluation = evaluate(model, dev)
    assert evaluation.macro_f1_core > 0.8
    assert model.labels("预言家你是不是傻逼") == ["insult"]
    assert model.labels("警徽流先验5号，今天归票") == []


def test_categories_without_enough_posts_are_skipped_and_recorded(
    fixture_train: list[Post],
) -> None:
    few = [Post(f"dir-{i}", f"导演你判错了{i}", ("director",)) for i in range(3)]
    model = fit_classifier([*fixture_train, *few], FAST)
    assert "director" not in model.categories
    assert model.metadata["skipped_categories"]["director"] == 3


def test_too_small_a_corpus_is_a_clear_error() -> None:
    with pytest.raises(CorpusError, match="too small"):
        fit_classifier([Post("a", "傻逼", ("insult",)), Post("b", "金水", ())], FAST)


# -- command line ---------------------------------------------------------------------------------


@pytest.mark.filterwarnings("error")
def test_bansha_train_writes_model_and_report(
    corpus_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, report = tmp_path / "model.skops", tmp_path / "report"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code = main(["--corpus", str(corpus_dir), "--out", str(out), "--report-dir", str(report)])
    assert code == 0
    captured = capsys.readouterr()
    assert "training" in captured.err and "100%" in captured.err  # the tqdm bar, on stderr
    assert "macro-F1" in captured.out
    model = PostClassifier.load(out)
    data = json.loads((report / "report.json").read_text(encoding="utf-8"))
    assert data["model"]["fingerprint"] == model.fingerprint()
    dev = data["dev"]
    assert set(dev["per_category"]) == set(model.categories)
    for row in dev["per_category"].values():
        m = row["confusion"]
        assert (
            m["tp"] + m["fp"] + m["fn"] + m["tn"]
            == dev["posts"] - dev["duplicates_of_train_excluded"]
        )
    assert {"homophone", "initials", "none"} <= set(dev["recall_by_evasion"])
    assert "clean" in dev["cooccurrence"]
    markdown = (report / "report.md").read_text(encoding="utf-8")
    assert "Macro-F1 over insult/oath/vest" in markdown and "pr_curves.png" in markdown
    assert (report / "pr_curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bansha_train_reports_corpus_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bad.jsonl").write_text('{"id": "x"}\n', encoding="utf-8")
    assert main(["--corpus", str(tmp_path), "--out", str(tmp_path / "m.skops"), "--quiet"]) == 2
    assert "bad.jsonl:1: missing field" in capsys.readouterr().err
    assert not (tmp_path / "m.skops").exists()


def test_extra_examples_join_training_only(
    corpus_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = tmp_path / "extra.jsonl"
    rows = [
        {
            "id": f"extra-{i}",
            "text": f"导演你这判罚不公{i}",
            "labels": ["director"],
            "evasion": "none",
        }
        for i in range(12)
    ]
    extra.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    args = ["--corpus", str(corpus_dir), "--extra", str(extra), "--quiet"]
    args += ["--out", str(tmp_path / "m.skops"), "--report-dir", str(tmp_path / "r")]
    assert main(args) == 0
    data = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert data["counts"]["extra"]["director"] == 12
    assert data["counts"]["train"]["director"] == 12
    assert data["counts"]["dev"]["director"] == 0
    capsys.readouterr()


def test_holdout_posts_are_scored_but_never_trained_on(
    corpus_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    holdout = tmp_path / "holdout"
    holdout.mkdir()
    rows = [
        {"id": "hol-1", "text": "你这个煞笔别乱跳", "labels": ["insult"], "evasion": "homophone"},
        {"id": "hol-2", "text": "我发誓我是好人，骗人全家不得好死", "labels": ["oath"]},
        {"id": "hol-3", "text": "你这马甲我认出来了，上一场也是你", "labels": ["vest"]},
        {"id": "hol-4", "text": "今晚女巫毒谁，我建议毒3号", "labels": []},
    ]
    (holdout / "h.jsonl").write_text(
        "\n".join(json.dumps({"evasion": "none", **r}, ensure_ascii=False) for r in rows),
        encoding="utf-8",
    )
    args = ["--corpus", str(corpus_dir), "--holdout", str(holdout), "--quiet"]
    args += ["--out", str(tmp_path / "m.skops"), "--report-dir", str(tmp_path / "r")]
    assert main(args) == 0
    data = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    train_total = sum(data["counts"]["train"].values())
    assert data["holdout"]["posts"] == 4
    pipeline = data["holdout"]["pipeline"]
    assert pipeline["clean_posts"] == 1 and pipeline["rulesets"] == ["m08", "m72"]
    # the screener's lexicons alone know these words, so the pipeline finds all three
    assert [pipeline["per_category"][c]["recall"] for c in ("insult", "oath", "vest")] == [1, 1, 1]
    assert pipeline["clean_flagged"] == 0
    assert "Held-out set (4 posts" in (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "held-out (4 posts)" in capsys.readouterr().out
    # the same corpus without a holdout trains on exactly as many posts
    args = ["--corpus", str(corpus_dir), "--holdout", str(tmp_path / "none"), "--quiet"]
    args += ["--out", str(tmp_path / "m2.skops"), "--report-dir", str(tmp_path / "r2")]
    assert main(args) == 0
    again = json.loads((tmp_path / "r2" / "report.json").read_text(encoding="utf-8"))
    assert sum(again["counts"]["train"].values()) == train_total and "holdout" not in again


def test_eval_sets_are_scored_with_the_full_screener(
    corpus_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {"id": "b-1", "text": "你这个煞笔别乱跳", "labels": ["insult"], "evasion": "homophone"},
        {"id": "b-2", "text": "我发誓我是好人，骗人全家不得好死", "labels": ["oath"]},
        {"id": "b-3", "text": "你这马甲我认出来了，上一场也是你", "labels": ["vest"]},
        {"id": "b-4", "text": "今晚女巫毒谁，我建议毒3号", "labels": []},
        {"id": "b-5", "text": "3号你就是个🐷脑子", "labels": ["insult"], "evasion": "emoji"},
        {"id": "b-6", "text": "我站边5号，昨晚的刀口很说明问题", "labels": []},
    ]
    first, second = tmp_path / "blind.jsonl", tmp_path / "other.jsonl"
    first.write_text(
        "\n".join(json.dumps({"evasion": "none", **r}, ensure_ascii=False) for r in rows),
        encoding="utf-8",
    )
    second.write_text(json.dumps({**rows[0], "id": "o-1"}, ensure_ascii=False), encoding="utf-8")
    args = ["--corpus", str(corpus_dir), "--holdout", str(tmp_path / "none"), "--quiet"]
    args += ["--out", str(tmp_path / "m.skops"), "--report-dir", str(tmp_path / "r")]
    args += ["--eval", str(first), "--eval-name", "blind", "--eval", str(second)]
    assert main(args) == 0
    data = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert list(data["evaluations"]) == ["blind", "other"]  # the second is named by its stem
    blind = data["evaluations"]["blind"]
    assert blind["posts"] == 6 and blind["clean_posts"] == 2 and blind["classifier"] is True
    assert set(blind["per_category"]) >= {"insult", "oath", "vest", "meta", "real_life"}
    core = [blind["per_category"][c]["f1"] for c in ("insult", "oath", "vest")]
    assert blind["macro_f1_insult_oath_vest"] == pytest.approx(sum(core) / 3)
    assert blind["clean_false_positive_rate"] == blind["clean_flagged"] / 2
    assert blind["recall_by_evasion"]["homophone"] == {"found": 1, "labels": 1, "recall": 1.0}
    assert blind["recall_by_evasion"]["emoji"]["labels"] == 1
    assert sum(r["count"] for r in blind["reliability"]) == sum(
        row["confusion"]["tp"] + row["confusion"]["fp"] for row in blind["per_category"].values()
    )
    assert data["dev"]["reliability"] and data["evaluations"]["other"]["posts"] == 1
    markdown = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "## Evaluation set `blind` (6 posts" in markdown and "| emoji |" in markdown
    assert "eval blind (6 posts)" in capsys.readouterr().out
    # more names than sets, or one name twice, is a usage error; nothing is written
    bad = [*args[:-6], "--eval", str(first), "--eval-name", "a", "--eval-name", "b"]
    bad[bad.index("--out") + 1] = str(tmp_path / "bad.skops")
    assert main(bad) == 2
    twice = [*args[:-6], "--eval", str(first), "--eval", str(first)]
    twice[twice.index("--out") + 1] = str(tmp_path / "bad.skops")
    assert main(twice) == 2
    assert "given twice" in capsys.readouterr().err
    assert not (tmp_path / "bad.skops").exists()


def test_new_evasion_kinds_load() -> None:
    for kind in ("confusable", "emoji", "english", "dialect"):
        line = json.dumps({**GOOD, "labels": ["insult"], "evasion": kind})
        assert parse_post(line, "x:1").evasion == kind
