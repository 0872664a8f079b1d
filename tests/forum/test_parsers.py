"""The parsers read the forums' own markup: floors, 楼中楼, quotes, images, emoticons, edits,
deleted floors, signatures and ads, times in the forum's zone, GBK pages and the mobile API."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest

from forum import discuz
from forum.page import read_page
from tests.forum.conftest import fixture

BEIJING = timezone(timedelta(hours=8))


def by_id(page: object) -> dict[str, object]:
    return {p.forum_post_id: p for p in page.posts}  # type: ignore[attr-defined]


def test_tieba_floors_come_from_data_field_and_the_tail() -> None:
    page = read_page(fixture("tieba_vote_p1.html"))
    assert (page.site, page.thread_id, page.page) == ("tieba", "9001234567", 1)
    assert page.title == "【M72】第一天投票帖"
    floors = [p.floor for p in page.posts if p.floor is not None]
    assert floors == [1, 2, 3, 4, 6, 7]  # the ad floor (no data-field JSON) is left out
    second = by_id(page)["140000002"]
    assert second.author == "微信"
    assert second.posted_at == datetime(2026, 11, 29, 20, 5, tzinfo=BEIJING)
    assert second.body == "投票对象：支付宝\n投票理由：发言一直在划水[表情:滑稽]\n[img]"


def test_tieba_deleted_floor_is_listed_not_invented() -> None:
    page = read_page(fixture("tieba_vote_p1.html"))
    assert page.deleted_floors == (5,)
    assert all(p.floor != 5 for p in page.posts)


def test_tieba_lzl_reply_answers_its_floor_and_keeps_the_reply_as_a_quote() -> None:
    posts = by_id(read_page(fixture("tieba_vote_p1.html")))
    change = posts["150000001"]
    assert change.floor is None and change.reply_floor == 4
    assert change.reply_to == "140000004"  # the floor's own post id: 改票 replies to the vote
    assert change.author == "淘宝"
    assert change.body == (
        "[quote]回复 淘宝：[/quote]改票对象：微信\n改票理由：听了二楼的分析改主意了"
    )
    assert change.posted_at == datetime(2026, 11, 29, 20, 40, tzinfo=BEIJING)
    order = [p.forum_post_id for p in read_page(fixture("tieba_vote_p1.html")).posts]
    assert order.index("150000001") == order.index("140000004") + 1


def test_tieba_author_is_the_account_not_the_display_name() -> None:
    posts = by_id(read_page(fixture("tieba_vote_p2.html")))
    assert posts["140000008"].author == "weibo_2026"  # shown as 微博小王


def test_discuz_floors_quotes_images_emoticons_and_edits() -> None:
    page = read_page(fixture("discuz_discussion_p1.html"))
    assert (page.site, page.thread_id, page.page, page.title) == (
        "discuz", "5120", 1, "【M72】第一天讨论帖"
    )  # fmt: skip
    posts = by_id(page)
    assert [posts[i].floor for i in ("30001", "30002", "30003", "30005")] == [1, 2, 3, 5]
    assert posts["30002"].body == "我是好人[表情:lol]\n昨晚的截图在这里：\n[img]"
    quote = posts["30003"]
    assert quote.body.startswith("[quote]微信 发表于 2026-11-29 19:40\n我是好人[/quote]")
    assert quote.reply_to == "30002"  # the quote's findpost link
    # the exact time from the span's title, not the "前天" shown
    assert quote.posted_at == datetime(2026, 11, 29, 19, 45, 31, tzinfo=BEIJING)
    edited = posts["30005"]
    assert edited.edited and edited.body.startswith("本帖最后由 抖音 于 2026-11-29 20:03 编辑\n")


def test_discuz_signatures_ads_and_attachment_menus_are_left_out() -> None:
    page = read_page(fixture("discuz_discussion_p1.html"))
    text = "\n".join(p.body for p in page.posts)
    for absent in ("签名", "我的签名档", "礼包", "下载附件", "截图.jpg", "只看该作者", "回复"):
        assert absent not in text


def test_discuz_deleted_floor_and_comment() -> None:
    page = read_page(fixture("discuz_discussion_p1.html"))
    assert page.deleted_floors == (4,)
    comment = next(p for p in page.posts if p.forum_post_id.startswith("cmt-"))
    assert (comment.author, comment.body, comment.reply_to, comment.reply_floor) == (
        "淘宝", "同意楼上", "30003", 3
    )  # fmt: skip


def test_discuz_gbk_page() -> None:
    raw = fixture("discuz_gbk.html")
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")  # really GBK on disk
    page = read_page(raw)
    assert [(p.floor, p.author, p.body) for p in page.posts] == [
        (1, "版杀导演", "【M72】第一天进程帖\n天亮了，昨晚是平安夜。"),
        (2, "百度", "收到，平安夜[表情:lol]"),
    ]


def test_times_follow_the_configured_zone() -> None:
    page = read_page(fixture("tieba_vote_p1.html"), "Europe/Berlin")
    first = page.posts[0]
    assert first.posted_at.utcoffset() == timedelta(hours=1)
    assert first.posted_at.astimezone(UTC).hour == 19


def test_mobile_api_answer() -> None:
    answer = json.loads(fixture("mobile_p2_full.json"))
    page = discuz.parse_mobile(answer)
    assert [p.forum_post_id for p in page.posts] == ["40004", "40005", "40006"]
    change = page.posts[1]
    assert change.reply_to == "40004"
    assert change.posted_at == datetime(2026, 11, 29, 20, 40, tzinfo=BEIJING)
    assert change.body.endswith("改票对象：微信\n改票理由：听了分析改主意了")


def test_mobile_api_rate_limit_message_is_an_error() -> None:
    with pytest.raises(ValueError, match="访问过于频繁"):
        discuz.parse_mobile(json.loads(fixture("mobile_flood.json")))


def test_the_same_post_gets_the_same_id_from_the_page_and_the_api() -> None:
    page = read_page(fixture("discuz_discussion_p1.html"))
    comment = next(p for p in page.posts if p.forum_post_id.startswith("cmt-"))
    assert comment.forum_post_id == discuz.comment_id("30003", "淘宝", "同意楼上")
