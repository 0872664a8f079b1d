"""``bansha import`` and ``bansha follow`` as a director or operator runs them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from bansha.cli import main
from tests.forum.conftest import FIXTURES, stored_posts


def test_import_prints_the_report_and_a_second_run_adds_nothing(
    client: FlaskClient, game: dict[str, Any], db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    page = str(FIXTURES / "tieba_vote_p1.html")
    args = ["import", page, "--game", game["id"], "--thread", "vote", "--url", db_url]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("新增 6 帖，已存在 0 帖")
    assert "4楼的楼中楼 淘宝 → 淘宝：0 项发现，投票：counted" in out
    assert "已删除的楼层：5楼" in out
    assert "未对应角色的账号：抖音小号233，1 帖未导入" in out
    assert main(args) == 0
    assert capsys.readouterr().out.startswith("新增 0 帖，已存在 6 帖")
    assert len(stored_posts(client, game)) == 6


def test_import_of_an_unknown_game(db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    page = str(FIXTURES / "tieba_vote_p1.html")
    assert main(["import", page, "--game", "nope", "--thread", "vote", "--url", db_url]) == 1
    assert "没有这场游戏" in capsys.readouterr().err


def test_follow_needs_a_token_and_a_thread_address(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("BANSHA_DIRECTOR_TOKEN", raising=False)
    url = "https://bbs.example.invalid/forum.php?mod=viewthread&tid=5140"
    assert main(["follow", url, "--game", "g", "--thread", "vote"]) == 2
    assert "需要导演令牌" in capsys.readouterr().err
    monkeypatch.setenv("BANSHA_DIRECTOR_TOKEN", "t")
    state = str(tmp_path / "s.json")
    bad = "https://bbs.example.invalid/forum.php?mod=forumdisplay&fid=2"
    assert main(["follow", bad, "--game", "g", "--thread", "vote", "--state", state]) == 2
    assert "不是 Discuz! 帖子的网址" in capsys.readouterr().err
