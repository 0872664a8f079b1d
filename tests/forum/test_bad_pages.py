"""Bad input: a clear Chinese error, with its rule key, and nothing imported."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from forum.errors import ForumPageError
from forum.page import read_page
from tests.forum.conftest import fixture, stored_posts

OTHER_SITE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>小组讨论 - 豆瓣</title>
</head><body><div id="content"><h1>今晚谁来玩狼人杀</h1><div class="topic-content">
<p>投票对象：微信</p></div><ul id="comments"><li class="comment-item"><p>我来</p></li></ul>
</div></body></html>"""


def refused(data: bytes, rule: str) -> str:
    with pytest.raises(ForumPageError) as caught:
        read_page(data)
    assert caught.value.rule == rule
    return caught.value.message


def test_a_page_of_another_site() -> None:
    assert "不是贴吧或 Discuz! 的帖子页面" in refused(OTHER_SITE.encode(), "not_a_thread")


def test_a_truncated_file() -> None:
    whole = fixture("tieba_vote_p1.html")
    assert "不完整" in refused(whole[: len(whole) // 2], "truncated")


def test_a_wrong_encoding() -> None:
    gbk = fixture("discuz_gbk.html").replace(b"charset=gbk", b"charset=utf-8")
    assert "编码" in refused(gbk, "bad_encoding")
    utf8_called_gbk = fixture("discuz_discussion_p1.html").replace(b"charset=utf-8", b"charset=gbk")
    assert "UTF-8" in refused(utf8_called_gbk, "bad_encoding")


def test_a_20_mb_file() -> None:
    page = fixture("discuz_discussion_p1.html")
    huge = page.replace(b"</body>", b"<!--" + b"x" * (20 * 1024 * 1024) + b"--></body>")
    assert "超过上限" in refused(huge, "too_large")


def test_not_html_and_empty() -> None:
    refused(b"\x89PNG\r\n\x1a\n" + b"\0" * 100, "bad_encoding")
    refused(b"   ", "empty")
    refused("投票对象：微信".encode(), "not_html")


@pytest.mark.parametrize(
    "data",
    [
        OTHER_SITE.encode(),
        fixture("tieba_vote_p1.html")[:9000],
        fixture("discuz_gbk.html").replace(b"charset=gbk", b"charset=utf-8"),
    ],
    ids=["other-site", "truncated", "wrong-encoding"],
)
def test_the_cli_refuses_in_chinese_and_imports_nothing(
    data: bytes, client: FlaskClient, game: dict[str, Any], db_url: str, tmp_path: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    from bansha.cli import main

    path = tmp_path / "page.html"
    path.write_bytes(data)
    status = main(["import", str(path), "--game", game["id"], "--thread", "vote", "--url", db_url])
    assert status == 1
    err = capsys.readouterr().err
    assert "未导入任何帖子" in err
    assert stored_posts(client, game) == []
