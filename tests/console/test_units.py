"""Pure parts of the console: highlighting, form parsing, labels, the chart.

Their docstring examples run in tests/test_doctests.py with every other package's.
"""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.console.chart import activity_chart
from api.console.forms import FormInputError, decision_for, new_game_body, parse_players
from api.console.highlight import Span, highlight, merge_spans, spans_from_findings
from api.console.labels import labels, via_label


def strip_marks(html: str) -> str:
    return unescape(re.sub(r"</?mark[^>]*>", "", html))


def test_highlight_wraps_exact_offsets() -> None:
    text = "你好<i>曹尼玛</i>，我发誓"
    html = str(highlight(text, [Span(5, 8, "insult"), Span(13, 16, "oath")]))
    assert re.findall(r"<mark[^>]*>(.*?)</mark>", html) == ["曹尼玛", "我发誓"]
    assert html.startswith("你好&lt;i&gt;<mark")
    assert 'class="hl hl-oath"' in html


def test_overlapping_spans_merge() -> None:
    assert merge_spans([Span(2, 5), Span(0, 3), Span(5, 6)]) == [Span(0, 6)]
    html = str(highlight("abcdefg", [Span(0, 3, "x"), Span(2, 5, "y")]))
    assert re.findall(r"<mark[^>]*>(.*?)</mark>", html) == ["abcde"]


def test_findings_are_clipped_and_validated() -> None:
    findings: list[dict[str, Any]] = [
        {"start": -3, "end": 2, "category": "a"},
        {"start": 4, "end": 99, "category": "b"},
        {"start": 3, "end": 3},
        {"start": "1", "end": 2},
        {"end": 2},
    ]
    assert spans_from_findings(findings, 6) == [Span(0, 2, "a"), Span(4, 6, "b")]


def test_category_cannot_inject_attributes() -> None:
    html = str(highlight("abc", [Span(0, 1, 'x" onmouseover="alert(1)')]))
    assert "onmouseover" not in html.split(">")[0].replace("xonmouseoveralert1", "")
    assert '"' not in re.search(r'class="([^"]*)"', html).group(1)  # type: ignore[union-attr]


@given(
    st.text(alphabet=st.sampled_from(list("<>&\"'[]/=:ab傻逼 \n")), max_size=40),
    st.lists(st.tuples(st.integers(-5, 45), st.integers(-5, 45)), max_size=6),
)
def test_highlight_never_changes_or_unescapes_the_text(
    text: str, ranges: list[tuple[int, int]]
) -> None:
    spans = spans_from_findings(
        [{"start": a, "end": b, "category": "insult"} for a, b in ranges], len(text)
    )
    html = str(highlight(text, spans))
    assert strip_marks(html) == text
    without_marks = re.sub(r'<mark class="hl hl-insult" data-span="\d+">|</mark>', "", html)
    assert "<" not in without_marks and ">" not in without_marks
    assert html.count("<mark") == len(merge_spans(spans))


def test_parse_players_forms() -> None:
    assert parse_players("  甲  \n\n乙|阿乙\n丙 | | 小丙，丙丙") == [
        {"character": "甲"},
        {"character": "乙", "player": "阿乙"},
        {"character": "丙", "aliases": ["小丙", "丙丙"]},
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "请粘贴玩家名单"),
        ("甲\n 甲 ", "第2行：角色名“甲”重复"),
        ("| 阿甲", "第1行：缺少角色名"),
        ("甲|乙|丙|丁", "第1行：最多三栏"),
        ("甲" * 65, "第1行：角色名超过64个字符"),
    ],
)
def test_parse_players_errors(text: str, message: str) -> None:
    with pytest.raises(FormInputError, match=message):
        parse_players(text)


def test_new_game_body_and_decisions() -> None:
    body = new_game_body(" m08 ", "甲", " s1 ")
    assert body == {"ruleset": "m08", "players": [{"character": "甲"}], "seed": "s1"}
    assert decision_for("yellow", "yellow") == ("confirm", None)
    assert decision_for("yellow", "blue") == ("change", "blue")
    assert decision_for("red", "green") == ("dismiss", None)


def test_via_labels_cover_every_match_kind() -> None:
    expected = {
        "exact": "原文", "traditional": "繁体", "width": "全半角", "noise": "夹杂符号",
        "repeat": "重复字", "homophone": "音近", "initials": "拼音首字母", "shape": "形近",
        "split": "拆字", "pattern": "句式", "classifier": "分类模型",
    }  # fmt: skip
    assert {k: via_label(k) for k in expected} == expected
    assert set(labels()["colours"]) == {"green", "blue", "yellow", "red"}


def test_chart_rows_bars_cards_and_escaping() -> None:
    svg = str(
        activity_chart(
            ["甲", "<乙>"],
            [1, 2],
            {"甲": {1: 6, 2: 2}, "<乙>": {1: 0}},
            {"甲": {2: ["yellow", "red"]}},
            threshold=5,
            out={"<乙>": 1},
        )
    )
    assert svg.count('class="chart-name"') == 2
    assert "&lt;乙&gt;" in svg and "<乙>" not in svg
    assert svg.count('class="bar bar-low"') == 2  # 甲 day 2 and 乙 day 1
    assert svg.count('class="bar"') == 1
    assert svg.count('class="chart-out"') == 1  # 乙 after going out
    assert 'class="card card-yellow"' in svg and 'class="card card-red"' in svg
    assert svg.count('class="threshold"') == 3
    assert "<script" not in svg and "style=" not in svg


def test_screenshots_exit_2_without_chromium(monkeypatch: pytest.MonkeyPatch) -> None:
    from api.console import screenshots

    monkeypatch.setattr(screenshots.shutil, "which", lambda name: None)
    assert screenshots.main(["--out", "/nonexistent"]) == 2


def test_demo_data_is_a_valid_m72_game() -> None:
    from api.console.screenshots import demo_posts, load_demo
    from game_rules.params import load_params

    demo = load_demo()
    assert len(demo["players"]) == load_params(demo["ruleset"]).player_count
    names = {line.split("|")[0].strip() for line in demo["players"]}
    for day in demo["days"]:
        posts = demo_posts(demo, day, 1)
        assert posts and all(p["author"] in names for p in posts)
        assert len({p["forum_post_id"] for p in posts}) == len(posts)


def test_secret_key_from_env_then_file(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import stat

    from api.console.security import SECRET_ENV, secret_key

    path = tmp_path / "var" / "console-secret"
    monkeypatch.setenv(SECRET_ENV, "from-env")
    assert secret_key(path) == "from-env" and not path.exists()
    monkeypatch.delenv(SECRET_ENV)
    first = secret_key(path)
    assert len(first) == 64 and secret_key(path) == first  # every worker reads the same key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_testing_apps_write_no_secret_file(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, db_url: str
) -> None:
    from api import create_app

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BANSHA_SECRET_KEY", raising=False)
    app = create_app({"DATABASE_URL": db_url, "TESTING": True, "USE_CLASSIFIER": False})
    assert app.config["SECRET_KEY"] and not (tmp_path / "var" / "console-secret").exists()
    assert app.config["SESSION_COOKIE_SAMESITE"] == "Lax"
    assert app.config["SESSION_COOKIE_NAME"] == "bansha_console"
    app.extensions["bansha_db"].dispose()
