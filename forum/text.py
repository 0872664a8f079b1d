"""Post markup (a Discuz! ``postmessage`` cell, a Tieba ``d_post_content`` div, a mobile-API
``message``) turned into the text the screener and the vote parser read.

Quotes stay quotes as BBCode ``[quote]...[/quote]`` (the vote parser skips quoted text, the
screener knows a quoted oath is not the poster's), images become ``[img]``, emoticons
``[表情:名字]``, an edit note (Discuz! ``<i class="pstatus">``) stays as its own line and marks the
post as edited; scripts, hover menus, signatures and ads are left out.

>>> from bs4 import BeautifulSoup
>>> html = '<td>投票对象：微信<br/>理由：<b>划水</b><img src="a.jpg"/></td>'
>>> cell = BeautifulSoup(html, "lxml").td
>>> convert(cell).text
'投票对象：微信\\n理由：划水[img]'
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import parse_qs, urlsplit

import yaml
from bs4 import BeautifulSoup, Comment, NavigableString, Tag

EMOTICONS = Path(__file__).with_name("emoticons.yaml")

#: elements that never carry the poster's words
_SKIPPED_TAGS = frozenset({"script", "style", "noscript", "iframe", "object", "embed", "button"})
#: classes of elements left out: Discuz! attachment hover menus and tips, signatures, ad slots;
#: Tieba's 小尾巴 and ad floors (see docs/forum.md for where each comes from)
_SKIPPED_CLASSES = frozenset(
    {"tip", "tip_4", "aimg_tip", "attach_nopermission", "sign", "a_pr", "a_pt", "a_pb", "ad",
     "locked", "post_bubble_bottom", "save_face_bg", "j_ad_wrapper"}
)  # fmt: skip
_BLOCK_TAGS = frozenset(
    {"p", "div", "li", "tr", "table", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "hr"}
)
_SPACES = re.compile(r"[ \t\u3000]+\n")
_BLANK_LINES = re.compile(r"\n{3,}")
_SOURCE_BREAKS = re.compile(r"\s*[\r\n]+\s*")


@dataclass(frozen=True)
class Converted:
    """A post's text, whether it carries an edit note, and the post id its first quote cites."""

    text: str
    edited: bool = False
    quoted_post: str | None = None


def _classes(tag: Tag) -> set[str]:
    value = tag.get("class")
    if value is None:
        return set()
    return set(value.split() if isinstance(value, str) else value)


def _quoted_pid(quote: Tag) -> str | None:
    """The post id a Discuz! quote links to (``forum.php?mod=redirect&goto=findpost&pid=N``)."""
    for link in quote.find_all("a", href=True):
        href = str(link["href"])
        query = parse_qs(urlsplit(href).query)
        if query.get("goto") == ["findpost"] and query.get("pid"):
            return query["pid"][0]
    return None


def emoticon_name(img: Tag) -> str | None:
    """An emoticon's name, or None when ``img`` is an ordinary image.

    Discuz! smilies carry ``smilieid`` (their code is the ``alt``/``title`` when set, else the
    file name); Tieba's carry the class ``BDE_Smiley``.
    """
    classes = _classes(img)
    src = str(img.get("src") or "")
    if not (img.has_attr("smilieid") or "BDE_Smiley" in classes or "/smiley/" in src):
        return None
    for attribute in ("alt", "title"):
        value = str(img.get(attribute) or "").strip()
        if value:
            return value
    stem = PurePosixPath(urlsplit(src).path).stem
    return emoticon_names().get(stem, stem) or "表情"


@functools.cache
def emoticon_names() -> dict[str, str]:
    """Emoticon image file name -> its name (``forum/emoticons.yaml``, data kept as data).

    >>> emoticon_names()["image_emoticon25"]
    '滑稽'
    """
    data = yaml.safe_load(EMOTICONS.read_text(encoding="utf-8")) or {}
    return {str(k): str(v) for k, v in (data.get("tieba") or {}).items()}


class _Writer:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.edited = False
        self.quoted_post: str | None = None

    def newline(self) -> None:
        if self.parts and not self.parts[-1].endswith("\n"):
            self.parts.append("\n")

    def walk(self, node: Tag) -> None:
        for child in node.children:
            if isinstance(child, Comment):
                continue
            if isinstance(child, NavigableString):
                # Source line breaks are layout, not the poster's: only <br> and blocks break lines.
                text = _SOURCE_BREAKS.sub(" ", str(child))
                self.parts.append(text.replace("\xa0", " "))
            elif isinstance(child, Tag):
                self.element(child)

    def element(self, tag: Tag) -> None:
        name = tag.name
        classes = _classes(tag)
        if name in _SKIPPED_TAGS or classes & _SKIPPED_CLASSES:
            return
        if name == "br":
            self.parts.append("\n")
        elif name == "img":
            emoticon = emoticon_name(tag)
            self.parts.append(f"[表情:{emoticon}]" if emoticon else "[img]")
        elif name == "i" and "pstatus" in classes:
            self.edited = True
            self.newline()
            self.parts.append(" ".join(tag.get_text(" ").split()))
            self.parts.append("\n")
        elif name == "blockquote" or (name == "div" and "quote" in classes):
            inner = tag.find("blockquote") if name == "div" else tag
            if self.quoted_post is None:
                self.quoted_post = _quoted_pid(tag)
            nested = _Writer()
            nested.walk(inner if isinstance(inner, Tag) else tag)
            self.newline()
            self.parts.append(f"[quote]{nested.finish()}[/quote]\n")
        else:
            block = name in _BLOCK_TAGS
            if block:
                self.newline()
            self.walk(tag)
            if block:
                self.newline()

    def finish(self) -> str:
        text = "".join(self.parts)
        text = _SPACES.sub("\n", text)
        text = _BLANK_LINES.sub("\n\n", text)
        return "\n".join(line.strip() for line in text.strip().split("\n"))


def convert(node: Tag) -> Converted:
    """The screener's text for the post markup inside ``node``."""
    writer = _Writer()
    writer.walk(node)
    return Converted(writer.finish(), writer.edited, writer.quoted_post)


def convert_html(fragment: str) -> Converted:
    """:func:`convert` for an HTML fragment (the mobile API's ``message``).

    >>> quote = '<div class="quote"><blockquote>甲 发表于 2026-11-29 20:01<br/>投票对象：乙'
    >>> quote += '</blockquote></div>'
    >>> convert_html(quote + "改票对象：丙").text
    '[quote]甲 发表于 2026-11-29 20:01\\n投票对象：乙[/quote]\\n改票对象：丙'
    """
    soup = BeautifulSoup(f"<div>{fragment}</div>", "lxml")
    root = soup.find("div")
    assert isinstance(root, Tag)
    return convert(root)
