"""``bansha screen`` (moderation.cli.screen_main)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from moderation.cli import JSON_KEYS, screen_main


@pytest.fixture(autouse=True)
def _no_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BANSHA_MODEL", str(tmp_path / "no-model.skops"))


def test_readable_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert screen_main(["你这个ＳＢ", "--ruleset", "m08"]) == 0
    out = capsys.readouterr().out
    assert "侮辱性语言" in out
    assert "M08 判罚依据 1(1)" in out
    assert "禁止使用与性器官" in out
    assert "「ＳＢ」" in out and "拼音首字母" in out and "0.80" in out


def test_clean_post(capsys: pytest.CaptureFixture[str]) -> None:
    assert screen_main(["今天查杀3号", "--ruleset", "wa004"]) == 0
    assert "未发现违规" in capsys.readouterr().out


def test_json_single(capsys: pytest.CaptureFixture[str]) -> None:
    assert screen_main(["我发誓", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["findings"][0]["category"] == "oath"
    assert tuple(obj["findings"][0]) == JSON_KEYS


def test_file_json_lines_with_bad_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.jsonl"
    lines = [
        json.dumps({"id": "a", "text": "傻逼"}, ensure_ascii=False),
        json.dumps({"id": 2, "text": "金水5号"}, ensure_ascii=False),
        "{not json",
        json.dumps({"id": "x"}),
        json.dumps({"text": "big" * 30000}),
        json.dumps({"text": "\ud800 sb"}),
    ]
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status = screen_main(["--file", str(src), "--ruleset", "m72", "--json"])
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert status == 1
    assert [r["id"] for r in rows] == ["a", 2, None]
    assert rows[0]["findings"][0]["article"] == "2(2)"
    assert rows[0]["findings"][0]["match"] == "傻逼"
    assert rows[1]["findings"] == []
    assert rows[2]["findings"][0]["match"] == "sb"
    assert "第3行" in captured.err and "第4行" in captured.err and "第5行" in captured.err
    assert "screen" in captured.err  # the progress bar


def test_file_readable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "p1", "text": "揭秘帖见"}, ensure_ascii=False) + "\n", "utf-8")
    assert screen_main(["--file", str(src)]) == 0
    out = capsys.readouterr().out
    assert "== p1 ==" in out and "发誓与诅咒" in out


@pytest.mark.parametrize(
    "argv",
    [[], ["a", "--file", "b.jsonl"], ["x", "--ruleset", "m99"], ["--file", "/nonexistent.jsonl"]],
)
def test_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert screen_main(argv) == 2
    assert capsys.readouterr().err


def test_too_large_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert screen_main(["好" * 70000]) == 1
    assert "64 KiB" in capsys.readouterr().err


def test_undecodable_argv_bytes_print_without_crashing(capsys: pytest.CaptureFixture[str]) -> None:
    # argv bytes that are not UTF-8 arrive as lone surrogates (surrogateescape)
    assert screen_main(["\udcff你是sb\udcfe"]) == 0
    assert "拼音首字母" in capsys.readouterr().out
    assert screen_main(["\udcff你是sb", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["findings"][0]["match"] == "sb"


def test_the_readable_report_shows_a_classifier_findings_evidence() -> None:
    from moderation.classifier import Evidence
    from moderation.cli import format_findings
    from moderation.screen import Article, Finding

    text = "你这种打法建议回炉重造"
    start = text.index("回炉重造")
    finding = Finding(
        category="insult",
        article=Article("1(2)", "禁止侮辱性评论", ruleset="m08"),
        start=start,
        end=start + 4,
        match="回炉重造",
        term="insult",
        via="classifier",
        confidence=0.91,
        evidence=(Evidence(start, start + 4, "回炉重造", ("c:回炉",), 2.0),),
    )
    lines = format_findings([finding], "m08").splitlines()
    assert lines[-1] == f"    依据：{start}–{start + 4}「回炉重造」"
