"""Tieba thread pages (``tieba.baidu.com/p/TID``), as saved from the browser.

Each floor is a ``div.l_post.j_l_post`` inside ``#j_p_postlist`` whose ``data-field`` attribute
holds JSON: ``author.user_name`` (the account; ``a.p_author_name`` shows the display name),
``content.post_id``, ``content.post_no`` (the floor) and, on older pages, ``content.date``. The
text is ``div#post_content_PID.d_post_content``; the tail ``div.post-tail-wrap span.tail-info``
prints ``N楼`` and the time. 楼中楼 replies are ``li.lzl_single_post.j_lzl_s_p`` whose
``data-field`` holds ``spid`` and ``user_name``, with ``span.lzl_content_main`` (starting
``回复 <a>X</a> :`` when it answers someone) and ``span.lzl_time``. A floor without a readable
``data-field`` is an ad. Deleted floors vanish from the page: a gap in the floor numbers lists
them. See docs/forum.md for the scrapers these selectors were checked against.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from bs4 import BeautifulSoup, Tag

from forum.errors import ForumPageError
from forum.model import ForumPost, Site, ThreadPage
from forum.text import convert
from forum.times import DEFAULT_ZONE, parse_forum_time

_FLOOR = re.compile(r"^(\d+)楼$")
_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}\s+\d{1,2}:\d{2}")
#: the reply marker a 楼中楼 starts with (the name is a link, the colon half or full width)
_REPLY = re.compile(r"^回复\s*(?P<name>[^:：\s][^:：]*?)\s*[:：]\s*")
_TID = re.compile(r"/p/(\d+)")


def looks_like_tieba(soup: BeautifulSoup) -> bool:
    """Whether ``soup`` is a Tieba thread page (``#j_p_postlist`` with ``j_l_post`` floors)."""
    postlist = soup.find(id="j_p_postlist")
    return isinstance(postlist, Tag) and postlist.select_one("div.j_l_post") is not None


def _data_field(tag: Tag) -> Mapping[str, Any] | None:
    raw = tag.get("data-field")
    if not isinstance(raw, str) or not raw.strip():
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None  # ad floors carry template placeholders such as {?=blockNum?}
    return value if isinstance(value, Mapping) else None


def reply_marker(text: str) -> str:
    """A 楼中楼 text with its leading 「回复 X：」 kept as a quote, so that the vote parser reads
    only the poster's own words and the screener knows whom it answers.

    >>> reply_marker("回复 淘宝 :改票对象：微信")
    '[quote]回复 淘宝：[/quote]改票对象：微信'
    >>> reply_marker("同意楼上")
    '同意楼上'
    """
    found = _REPLY.match(text)
    if not found:
        return text
    return f"[quote]回复 {found.group('name')}：[/quote]{text[found.end() :]}"


def _tail(post: Tag) -> tuple[int | None, str | None]:
    floor: int | None = None
    when: str | None = None
    for span in post.select("div.post-tail-wrap span.tail-info, div.post-tail-wrap span"):
        text = span.get_text(strip=True)
        matched = _FLOOR.match(text)
        if matched:
            floor = int(matched.group(1))
        elif _DATE.search(text):
            when = text
    return floor, when


def _replies(post: Tag, pid: str, floor: int | None, zone_name: str) -> Iterator[ForumPost]:
    for item in post.select("li.lzl_single_post.j_lzl_s_p"):
        field = _data_field(item)
        if field is None or "spid" not in field:
            continue
        content = item.select_one("span.lzl_content_main")
        when = item.select_one("span.lzl_time")
        if content is None or when is None:
            raise ForumPageError("truncated", f"楼层 {floor} 的楼中楼回复不完整（页面可能不完整）")
        author = str(field.get("user_name") or field.get("showname") or "")
        if not author:
            link = item.select_one("a.j_user_card[username]")
            author = str(link["username"]) if link is not None else ""
        yield ForumPost(
            forum_post_id=str(field["spid"]),
            author=author,
            posted_at=parse_forum_time(when.get_text(" "), zone_name),
            body=reply_marker(convert(content).text),
            reply_to=pid,
            reply_floor=floor,
        )


def parse_page(soup: BeautifulSoup, zone_name: str = DEFAULT_ZONE) -> ThreadPage:
    """Every floor and 楼中楼 reply shown on a saved Tieba thread page, in page order."""
    postlist = soup.find(id="j_p_postlist")
    if not isinstance(postlist, Tag):
        raise ForumPageError("not_a_thread", "这不是贴吧的帖子页面（找不到楼层列表 #j_p_postlist）")
    heading = soup.select_one("h3.core_title_txt") or soup.select_one("h1.core_title_txt")
    title = str(heading.get("title") or heading.get_text(strip=True)) if heading else ""
    tid = ""
    canonical = soup.find("link", rel="canonical")
    if isinstance(canonical, Tag) and _TID.search(str(canonical.get("href") or "")):
        tid = _TID.search(str(canonical["href"])).group(1)  # type: ignore[union-attr]
    page = 1
    current = soup.select_one("li.l_pager span.tP") or soup.select_one(".l_pager span.tP")
    if current is not None and current.get_text(strip=True).isdigit():
        page = int(current.get_text(strip=True))
    posts: list[ForumPost] = []
    floors: list[int] = []
    for node in postlist.select("div.l_post.j_l_post"):
        field = _data_field(node)
        if field is None or not isinstance(field.get("content"), Mapping):
            continue  # an ad floor
        content_info = field["content"]
        author_raw = field.get("author")
        author_info: Mapping[str, Any] = author_raw if isinstance(author_raw, Mapping) else {}
        pid = str(content_info.get("post_id") or "")
        if not pid:
            continue
        tail_floor, tail_time = _tail(node)
        floor_raw = content_info.get("post_no")
        floor = int(floor_raw) if str(floor_raw or "").isdigit() else tail_floor
        when = tail_time or (str(content_info["date"]) if content_info.get("date") else None)
        if when is None:
            raise ForumPageError("no_time", f"贴吧楼层 {floor} 没有发帖时间（页面可能不完整）")
        body = node.find(id=f"post_content_{pid}") or node.select_one("div.d_post_content")
        if not isinstance(body, Tag):
            raise ForumPageError("truncated", f"贴吧楼层 {floor} 没有正文（页面可能不完整）")
        author = str(author_info.get("user_name") or "")
        if not author:
            shown = node.select_one("a.p_author_name")
            author = shown.get_text(strip=True) if shown is not None else ""
        if not author:
            raise ForumPageError("no_author", f"贴吧楼层 {floor} 找不到作者（页面可能不完整）")
        if not tid and content_info.get("thread_id"):
            tid = str(content_info["thread_id"])
        posts.append(
            ForumPost(
                forum_post_id=pid,
                author=author,
                posted_at=parse_forum_time(when, zone_name),
                body=convert(body).text,
                floor=floor,
            )
        )
        if floor is not None:
            floors.append(floor)
        posts.extend(_replies(node, pid, floor, zone_name))
    if not posts:
        raise ForumPageError("no_posts", "贴吧帖子页面中没有找到任何楼层（页面可能不完整）")
    missing = _gaps(floors)
    return ThreadPage(Site.TIEBA, tid, title, page, tuple(posts), missing)


def _gaps(floors: list[int]) -> tuple[int, ...]:
    """Floor numbers missing between the first and last floor shown (deleted floors).

    >>> _gaps([1, 2, 5, 6])
    (3, 4)
    """
    if not floors:
        return ()
    shown = set(floors)
    return tuple(n for n in range(min(floors), max(floors) + 1) if n not in shown)
