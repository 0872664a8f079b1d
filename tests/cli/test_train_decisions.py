"""``bansha train --include-decisions``: the CLI layer reads the director's decisions from the
database and hands them to the trainer as plain examples (the screener's package reads none)."""

from __future__ import annotations

import ast
import json
import sys
import types
from pathlib import Path
from typing import Any, cast

import pytest

from bansha.train import DecisionsError, load_decision_examples, train_main

ROOT = Path(__file__).resolve().parents[2]


def test_the_screener_package_imports_no_database_code() -> None:
    for path in sorted((ROOT / "moderation").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                assert not name.startswith(("models", "sqlalchemy", "api")), (path.name, name)


def test_include_decisions_without_the_module_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "models.labelled", None)  # makes the import fail
    args = ["--corpus", str(tmp_path), "--include-decisions", "--quiet"]
    assert train_main([*args, "--out", str(tmp_path / "m.skops")]) == 2
    assert "needs models.labelled.load_labelled_examples" in capsys.readouterr().err
    assert not (tmp_path / "m.skops").exists()


def _fake_labelled(monkeypatch: pytest.MonkeyPatch, rows: list[Any], seen: list[str]) -> None:
    def load_labelled_examples(url: str) -> list[Any]:
        seen.append(url)
        return rows

    fake = types.ModuleType("models.labelled")
    fake.load_labelled_examples = load_labelled_examples  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "models.labelled", fake)


def test_include_decisions_reads_the_database_url(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    example = types.SimpleNamespace
    rows = [
        example(text="导演你判错了", labels=("director", "font"), id="decision-9"),
        example(text="   ", labels=()),
    ]
    _fake_labelled(monkeypatch, rows, seen)
    posts = load_decision_examples("sqlite:///x.db")
    assert seen == ["sqlite:///x.db"]
    assert [(p.id, p.text, p.labels) for p in posts] == [
        ("decision-9", "导演你判错了", ("director",))
    ]


def test_decisions_join_the_training_split(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    lines = []
    for i in range(80):
        text, labels = (f"{i}号你是不是傻逼", ["insult"]) if i % 2 else (f"我站边{i}号", [])
        row = {"id": f"t-{i}", "text": text, "labels": labels, "evasion": "none"}
        lines.append(json.dumps(row, ensure_ascii=False))
    (corpus / "posts.jsonl").write_text("\n".join(lines), encoding="utf-8")
    seen: list[str] = []
    rows = [
        types.SimpleNamespace(text=f"导演你这判罚不公{i}", labels=["director"], id=f"decision-{i}")
        for i in range(3)
    ]
    _fake_labelled(monkeypatch, rows, seen)
    monkeypatch.setenv("DATABASE_URL", "sqlite:///decisions.db")
    args = ["--corpus", str(corpus), "--include-decisions", "--quiet", "--holdout", str(tmp_path)]
    args += ["--out", str(tmp_path / "m.skops"), "--report-dir", str(tmp_path / "r")]
    assert train_main(args) == 0
    assert seen == ["sqlite:///decisions.db"]
    data = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert data["counts"]["extra"]["director"] == 3
    assert data["counts"]["train"]["director"] == 3 and data["counts"]["dev"]["director"] == 0
    capsys.readouterr()


def test_unreadable_decisions_database_is_a_clear_error(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'empty.sqlite3'}"
    with pytest.raises(DecisionsError, match="cannot read director decisions"):
        load_decision_examples(url)


def test_include_decisions_reads_a_real_labelled_examples_table(tmp_path: Path) -> None:
    import sqlite3

    from sqlalchemy import Table, create_engine

    from models.labelled import LabelledExampleRow

    url = f"sqlite:///{tmp_path / 'decisions.sqlite3'}"
    cast(Table, LabelledExampleRow.__table__).create(create_engine(url))
    with sqlite3.connect(tmp_path / "decisions.sqlite3") as db:  # foreign keys off: no games needed
        db.executemany(
            "INSERT INTO labelled_examples"
            " (game_id, decision_id, ruleset, text, labels, created_at)"
            " VALUES (?, ?, ?, ?, ?, '2026-01-01 00:00:00')",
            [
                ("g1", 1, "m08", "导演你这判罚我不服", '["director"]'),
                ("g1", 2, "m08", "我站边5号", "[]"),
            ],
        )
    posts = load_decision_examples(url)
    assert [(p.text, p.labels, p.ruleset) for p in posts] == [
        ("导演你这判罚我不服", ("director",), "m08"),
        ("我站边5号", (), "m08"),
    ]
    assert len({p.id for p in posts}) == 2
