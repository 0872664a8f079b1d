"""The posts list (/posts): thread order by day, filters, escaping, votes, suggestions, paging."""

from __future__ import annotations

import re
from html import unescape
from typing import Any
from urllib.parse import unquote

from flask import Flask

HOSTILE = (
    "<script>alert('x')</script>[url=javascript:alert(1)]点我[/url]"
    '<img src=x onerror="alert(2)">[b]粗[/b]&amp;'
)


def bodies(html: str) -> list[str]:
    """Every post body on the page, as the director reads it (marks removed, unescaped)."""
    return [
        unescape(re.sub(r"</?mark[^>]*>", "", b))
        for b in re.findall(r'<div class="post" lang="zh" dir="auto">(.*?)</div>', html, re.S)
    ]


def article(html: str, text: str) -> str:
    """The markup of the one post article whose body contains ``text``."""
    for found in re.finditer(r'<article class="item[^"]*" id="p-\d+">.*?</article>', html, re.S):
        if text in unescape(found.group(0)):
            return found.group(0)
    raise AssertionError(f"no post with {text!r}")


def test_posts_in_thread_order_grouped_by_day(console: Any, game: dict[str, Any]) -> None:
    console.post(game, "知乎", "第二天的发言", day=2)
    console.post(game, "微信", "第一天第一帖")
    console.post(game, "百度", "第一天第二帖")
    console.login(game["director_token"])
    html = console.html("/posts")
    assert bodies(html) == ["第一天第一帖", "第一天第二帖", "第二天的发言"]
    headings = re.findall(r"<h2>(第\d+天) <span", html)
    assert headings == ["第1天", "第2天"]
    assert "符合条件 3 帖" in html
    post = article(html, "第一天第二帖")
    assert "百度" in post and "讨论帖" in post and "11-29 20:00" in post
    # The tab is in every game page's navigation.
    assert '<a href="/posts" class="on">全部帖子</a>' in html
    assert 'href="/posts"' in console.html("/queue")


def test_hostile_post_is_shown_as_typed(console: Any, game: dict[str, Any]) -> None:
    console.post(game, "抖音", HOSTILE)
    console.post(game, "支付宝", "曹尼玛" + HOSTILE)
    console.login(game["director_token"])
    html = console.html("/posts")
    assert "<script>alert" not in html and "<img src=x" not in html
    assert 'href="javascript' not in html
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    assert "[url=javascript:alert(1)]点我[/url]" in html and "[b]粗[/b]" in html
    assert bodies(html) == [HOSTILE, "曹尼玛" + HOSTILE]
    # The evidence is highlighted exactly as in the review queue.
    flagged = article(html, "曹尼玛")
    assert re.findall(r'<mark class="hl[^"]*" data-span="\d+">(.*?)</mark>', flagged) == ["曹尼玛"]
    assert "“曹尼玛” → 音近 操你妈" in unescape(re.sub(r"</?bdi>", "", flagged))


def test_filters_by_character_day_and_flagged(console: Any, game: dict[str, Any]) -> None:
    console.post(game, "微信", "微信第一天")
    bad = console.post(game, "支付宝", "曹尼玛")
    console.post(game, "支付宝", "支付宝第一天正常发言")
    console.post(game, "微信", "微信第二天", day=2)
    console.login(game["director_token"])
    assert bodies(console.html("/posts?character=微信")) == ["微信第一天", "微信第二天"]
    assert bodies(console.html("/posts?day=2")) == ["微信第二天"]
    assert bodies(console.html("/posts?character=支付宝&day=1")) == [
        "曹尼玛",
        "支付宝第一天正常发言",
    ]
    flagged = console.html("/posts?flagged=1")
    assert bodies(flagged) == ["曹尼玛"]
    assert "符合条件 1 帖" in flagged
    sid = bad["suggestion"]["id"]
    # the link filters the queue by the author, so the item is on the page it opens
    assert f'href="/queue?status=pending&amp;character=%E6%94%AF%E4%BB%98%E5%AE%9D#s-{sid}"' in (
        flagged
    )
    assert "建议 蓝牌" in flagged and "待审" in flagged
    # The chosen filters stay selected in the form.
    form = console.html("/posts?character=微信&flagged=1")
    assert '<option value="微信" selected>' in form
    assert 'name="flagged" value="1" checked' in form
    assert bodies(console.html("/posts?thread=vote")) == []
    assert "没有符合条件的帖子" in console.html("/posts?thread=vote")


def test_unknown_filter_values_are_dropped_with_a_notice(
    console: Any, game: dict[str, Any]
) -> None:
    console.post(game, "微信", "一帖")
    console.login(game["director_token"])
    html = unescape(console.html("/posts?character=<b>nobody</b>&day=abc&page=zz"))
    assert "没有名为「<b>nobody</b>」的角色，已显示所有角色的帖子" in html
    assert "天数“abc”无效，已显示所有天" in html
    assert bodies(console.html("/posts?character=nobody")) == ["一帖"]
    assert "&lt;b&gt;nobody&lt;/b&gt;" in console.html("/posts?character=<b>nobody</b>")


def test_suggestion_status_follows_the_ruling(console: Any, game: dict[str, Any]) -> None:
    sid = console.post(game, "支付宝", "曹尼玛")["suggestion"]["id"]
    console.login(game["director_token"])
    console.form(f"/queue/{sid}", {"colour": "yellow"})
    post = article(console.html("/posts"), "曹尼玛")
    assert f'href="/queue?status=decided&amp;character=%E6%94%AF%E4%BB%98%E5%AE%9D#s-{sid}"' in post
    assert "已判" in post and "chip-yellow" in post and "黄牌" in post
    assert "待审" not in post


def test_vote_posts_show_how_they_counted(console: Any, game: dict[str, Any]) -> None:
    console.post(game, "微信", "投票对象：支付宝\n投票理由：发言差", thread="vote")
    console.post(game, "微信", "改票对象：淘宝\n改票理由：再想想", thread="vote")
    console.post(game, "知乎", "我投支付宝", thread="vote")
    console.post(game, "百度", "投票对象：弃权\n投票理由：听不清", thread="vote")
    console.login(game["director_token"])
    html = unescape(console.html("/posts?thread=vote"))
    first = article(html, "投票理由：发言差")
    assert "投票：有效 · 投给支付宝" in first
    assert "已被之后的改票取代（投给淘宝）" in first
    change = article(html, "改票理由：再想想")
    assert "投票：有效 · 投给淘宝（改票）" in change and "取代" not in change
    invalid = article(html, "我投支付宝")
    assert "投票：废票" in invalid and "vote-invalid" in invalid
    assert "投票：有效 · 弃权" in article(html, "听不清")
    # A 代投 entered later replaces the player's own ballot.
    console.form("/proxy", {"voter": "百度", "target": "微信"}, page="/day")
    abstained = article(unescape(console.html("/posts?thread=vote")), "听不清")
    assert "已被之后的导演代投取代（投给微信）" in abstained


def test_posts_are_paged_and_pages_keep_the_filters(
    app: Flask, console: Any, game: dict[str, Any]
) -> None:
    app.config["CONSOLE_POSTS_PER_PAGE"] = 3
    for i in range(1, 8):
        console.post(game, "微信", f"微信{i}")
    console.post(game, "知乎", "知乎1")
    console.login(game["director_token"])
    first = console.html("/posts")
    assert bodies(first) == ["微信1", "微信2", "微信3"]
    assert "第1/3页" in first and 'rel="next"' in first and 'rel="prev"' not in first
    assert bodies(console.html("/posts?page=2")) == ["微信4", "微信5", "微信6"]
    last = console.html("/posts?page=3")
    assert bodies(last) == ["微信7", "知乎1"] and 'rel="next"' not in last
    # Past the end: the last page.
    assert bodies(console.html("/posts?page=99")) == ["微信7", "知乎1"]
    filtered = console.html("/posts?character=微信&page=3")
    assert bodies(filtered) == ["微信7"]
    links = {
        unquote(unescape(h)) for h in re.findall(r'href="(/posts\?[^"]*page=[^"]*)"', filtered)
    }
    assert "/posts?page=2&character=微信" in links
    assert all("character=微信" in h for h in links)


def test_posts_page_reads_only_its_own_game(console: Any) -> None:
    first = console.make_game(seed="a")
    second = console.make_game(seed="b")
    console.post(first, "微信", "第一局的帖")
    console.post(second, "微信", "第二局的帖")
    console.login(first["director_token"])
    assert bodies(console.html("/posts")) == ["第一局的帖"]
