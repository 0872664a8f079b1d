"""Discuz! X3.x threads: a saved ``forum.php?mod=viewthread`` page, and the mobile API's JSON.

The page structure is Discuz!'s own default template (``template/default/forum/viewthread.htm``,
``viewthread_node.htm``, ``viewthread_node_body.htm``): each floor is a ``div#post_PID`` holding
``table#pidPID``; the floor number is ``a#postnumPID`` (``<em>N</em>`` or the 楼主/沙发/板凳/地板
names), the author the ``div.authi`` link to their space, the time ``em#authorpostonPID``
(a ``span[title]`` holds the exact time when the page shows "前天 20:15"), the text
``td#postmessage_PID``; 点评 sit in ``div#comment_PID``; a deleted floor keeps only its number and
``div.pct``. The mobile API (``source/plugin/mobile/api/4/viewthread.php``) answers
``{"Variables": {"thread": ..., "postlist": [{"pid", "author", "dbdateline", "message",
"number", "position", ...}], "comments": {pid: [...]}, "ppp": ...}}``. See docs/forum.md.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

from bs4 import BeautifulSoup, Tag

from forum.errors import ForumPageError
from forum.model import ForumPost, Site, ThreadPage
from forum.text import convert, convert_html
from forum.times import DEFAULT_ZONE, from_timestamp, parse_forum_time

#: Discuz!'s default custom floor names ($_G['cache']['custominfo']['postno'])
FLOOR_NAMES = {"楼主": 1, "沙发": 2, "板凳": 3, "地板": 4}
_PID = re.compile(r"^post_(\d+)$")
_THREAD_HTML = re.compile(r"thread-(\d+)-(\d+)-\d+\.html")


def looks_like_discuz(soup: BeautifulSoup) -> bool:
    """Whether ``soup`` is a Discuz! thread page (a ``#postlist`` with ``div#post_PID`` floors)."""
    postlist = soup.find(id="postlist")
    return isinstance(postlist, Tag) and postlist.find(id=_PID) is not None


def comment_id(pid: str, author: str, text: str) -> str:
    """A 点评's id: the page does not print the comment id, so one is derived from what both the
    page and the mobile API show (its floor, author and text), the same whichever way it arrives.

    >>> comment_id("1001", "甲", "改票对象：乙") == comment_id("1001", "甲", "改票对象：乙")
    True
    """
    digest = hashlib.sha256(f"{pid}\n{author}\n{text}".encode()).hexdigest()[:12]
    return f"cmt-{pid}-{digest}"


def _floor(text: str) -> int | None:
    text = text.strip().rstrip("#").strip()
    if text.isdigit():
        return int(text)
    return FLOOR_NAMES.get(text)


def _author(post: Tag) -> str:
    for authi in post.select("div.authi"):
        for link in authi.find_all("a", href=True):
            href = str(link["href"])
            name = link.get_text(strip=True)
            if name and ("uid" in href or "space" in href):
                return name
    raise ForumPageError("no_author", "帖子页面中有楼层找不到作者（页面可能不完整）")


def _time(post: Tag, pid: str, zone_name: str) -> Any:
    stamp = post.find(id=f"authorposton{pid}")
    if not isinstance(stamp, Tag):
        raise ForumPageError("no_time", f"楼层 {pid} 没有发帖时间（页面可能不完整）")
    exact = stamp.find("span", title=True)
    text = str(exact["title"]) if isinstance(exact, Tag) else stamp.get_text(" ")
    return parse_forum_time(text, zone_name)


def _thread_and_page(soup: BeautifulSoup) -> tuple[str, int]:
    tid = ""
    for link in soup.find_all("a", href=True):
        href = str(link["href"])
        query = parse_qs(urlsplit(href).query)
        found = query.get("ptid") or query.get("tid")
        if found and found[0].isdigit():
            tid = found[0]
            break
        rewritten = _THREAD_HTML.search(href)
        if rewritten:
            tid = rewritten.group(1)
            break
    page = 1
    current = soup.select_one("div.pg strong")
    if current is not None and current.get_text(strip=True).isdigit():
        page = int(current.get_text(strip=True))
    return tid, page


def _comments(post: Tag, pid: str, floor: int | None, zone_name: str) -> Iterator[ForumPost]:
    box = post.find(id=f"comment_{pid}")
    if not isinstance(box, Tag):
        return
    for item in box.select("div.pstl"):
        who = item.select_one("div.psta a.xi2") or item.select_one("div.psta a.xw1")
        body = item.select_one("div.psti")
        if who is None or body is None:
            continue  # the "N 条点评" summary line has the same class
        when = body.select_one("span.xg1")
        if when is None:
            raise ForumPageError("no_time", f"楼层 {pid} 的点评没有时间（页面可能不完整）")
        posted_at = parse_forum_time(when.get_text(" "), zone_name)
        when.extract()
        for link in body.find_all("a"):
            link.extract()  # the 详情 / 回复 links after the comment
        text = convert(body).text
        author = who.get_text(strip=True)
        yield ForumPost(
            forum_post_id=comment_id(pid, author, text),
            author=author,
            posted_at=posted_at,
            body=text,
            reply_to=pid,
            reply_floor=floor,
        )


def parse_page(soup: BeautifulSoup, zone_name: str = DEFAULT_ZONE) -> ThreadPage:
    """Every floor (and its 点评) of a saved Discuz! X3.x thread page, in page order."""
    postlist = soup.find(id="postlist")
    if not isinstance(postlist, Tag):
        raise ForumPageError(
            "not_a_thread", "这不是 Discuz! 的帖子页面（找不到楼层列表 #postlist）"
        )
    subject = soup.find(id="thread_subject")
    title = subject.get_text(strip=True) if isinstance(subject, Tag) else ""
    tid, page = _thread_and_page(soup)
    posts: list[ForumPost] = []
    deleted: list[int] = []
    # Themes may wrap floors (comiis_viewbox...): every div#post_PID under #postlist is a floor.
    for node in postlist.find_all("div", id=_PID):
        pid = _PID.match(str(node["id"])).group(1)  # type: ignore[union-attr]
        number = node.find(id=f"postnum{pid}")
        if number is None:  # a deleted floor's number has no id: <strong><a><em>N</em>#</a>
            number = node.select_one("div.pi strong a")
        floor = _floor(number.get_text()) if isinstance(number, Tag) else None
        message = node.find(id=f"postmessage_{pid}")
        if not isinstance(message, Tag):
            if floor is not None:
                deleted.append(floor)  # 该帖已被删除 / 屏蔽: the number is all that is left
            continue
        converted = convert(message)
        posts.append(
            ForumPost(
                forum_post_id=pid,
                author=_author(node),
                posted_at=_time(node, pid, zone_name),
                body=converted.text,
                floor=floor,
                reply_to=converted.quoted_post,
                edited=converted.edited,
            )
        )
        posts.extend(_comments(node, pid, floor, zone_name))
    if not posts and not deleted:
        raise ForumPageError("no_posts", "Discuz! 帖子页面中没有找到任何楼层（页面可能不完整）")
    return ThreadPage(Site.DISCUZ, tid, title, page, tuple(posts), tuple(deleted))


def parse_mobile(answer: Mapping[str, Any]) -> ThreadPage:
    """The posts of one mobile-API ``viewthread`` answer (times are exact: ``dbdateline``).

    Raises :class:`ForumPageError` when the answer has no ``Variables.postlist`` (a login wall,
    an error message, a rate-limit notice: ``Message.messageval`` names it).
    """
    variables = answer.get("Variables")
    if not isinstance(variables, Mapping) or not isinstance(variables.get("postlist"), list):
        message = answer.get("Message")
        reason = (
            message.get("messagestr") or message.get("messageval")
            if isinstance(message, Mapping)
            else None
        )
        raise ForumPageError(
            "mobile_api_error", f"论坛接口没有返回帖子列表：{reason or '格式不符'}"
        )
    thread = variables.get("thread") or {}
    comments = variables.get("comments") or {}
    posts: list[ForumPost] = []
    for item in variables["postlist"]:
        try:
            pid = str(item["pid"])
            author = str(item["author"])
            posted_at = from_timestamp(item["dbdateline"])
            message = str(item.get("message") or "")
        except (KeyError, TypeError) as exc:
            raise ForumPageError("mobile_api_error", f"论坛接口的楼层缺少字段：{exc}") from None
        floor_raw = item.get("number") or item.get("position")
        floor = int(floor_raw) if str(floor_raw or "").isdigit() else None
        converted = convert_html(message)
        posts.append(
            ForumPost(
                forum_post_id=pid,
                author=author,
                posted_at=posted_at,
                body=converted.text,
                floor=floor,
                reply_to=converted.quoted_post,
                edited=converted.edited,
            )
        )
        for comment in comments.get(pid, []) if isinstance(comments, Mapping) else []:
            text = convert_html(str(comment.get("comment") or "")).text
            who = str(comment.get("author") or "")
            posts.append(
                ForumPost(
                    forum_post_id=comment_id(pid, who, text),
                    author=who,
                    posted_at=_comment_time(comment, posted_at),
                    body=text,
                    reply_to=pid,
                    reply_floor=floor,
                )
            )
    ppp = str(variables.get("ppp") or "")
    return ThreadPage(
        Site.DISCUZ,
        str(thread.get("tid") or ""),
        str(thread.get("subject") or ""),
        0,
        tuple(posts),
        per_page=int(ppp) if ppp.isdigit() else 0,
    )


def _comment_time(comment: Mapping[str, Any], fallback: Any) -> Any:
    """A 点评's time: the API formats it for people (``dgmdate(..., 'u')``); when that is not a
    date (``3 分钟前``), the floor's own time stands in."""
    try:
        return parse_forum_time(str(comment.get("dateline") or ""))
    except ForumPageError:
        return fallback
