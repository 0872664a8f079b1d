"""A saved thread page (「网页，全部」 or 「网页，仅HTML」) read into a :class:`ThreadPage`.

Everything that can be wrong with the file is refused before anything is imported, each with a
Chinese message: too large, not HTML, a wrong or undeclared encoding, a truncated file (no
``</html>``: the browser was still saving or the download broke off), a page of another site.
"""

from __future__ import annotations

import codecs
import re

from bs4 import BeautifulSoup
from bs4.dammit import EncodingDetector

from forum import discuz, tieba
from forum.errors import ForumPageError
from forum.model import ThreadPage
from forum.times import DEFAULT_ZONE, zone

_HAN = re.compile(r"[\u4e00-\u9fff]")
#: a saved thread page is a few hundred KB; far beyond this it is not one
MAX_PAGE_BYTES = 8 * 1024 * 1024


def decode_page(data: bytes) -> str:
    """The page's text in the encoding it declares (``<meta charset>``; UTF-8 if none).

    Discuz! boards often serve GBK; a page whose bytes do not match its declaration (saved
    in one encoding, declared in another) is refused rather than imported as mojibake.

    >>> decode_page('<meta charset="gbk"><p>投票</p>'.encode("gbk"))[-9:]
    '<p>投票</p>'
    """
    if data.startswith(codecs.BOM_UTF8):
        declared: str | None = "utf-8"
        data = data[len(codecs.BOM_UTF8) :]
    else:
        declared = EncodingDetector.find_declared_encoding(data[:8192], is_html=True)
    name = (declared or "utf-8").lower()
    if name in ("gb2312", "gbk", "x-gbk"):
        name = "gb18030"  # the superset browsers use for all three labels
    try:
        codecs.lookup(name)
    except LookupError:
        raise ForumPageError("bad_encoding", f"页面声明了不认识的编码：{declared}") from None
    if name == "gb18030" and not data.isascii():
        # GB18030 decodes almost any bytes, so a UTF-8 page declared GBK would come out as
        # mojibake. GBK bytes are at times valid UTF-8 too, but then they read as Latin or Greek
        # letters, practically never as Chinese: Chinese read as UTF-8 means UTF-8.
        try:
            as_utf8 = data.decode("utf-8")
        except UnicodeDecodeError:
            as_utf8 = ""
        if _HAN.search(as_utf8):
            raise ForumPageError(
                "bad_encoding",
                f"页面声明的编码是 {declared}，内容却是 UTF-8："
                "请用浏览器重新「另存为」网页后再导入",
            )
    try:
        return data.decode(name)
    except UnicodeDecodeError as exc:
        raise ForumPageError(
            "bad_encoding",
            f"页面内容与其声明的编码（{declared or '未声明，按 UTF-8'}）不符，"
            f"第 {exc.start} 字节处无法解码：请用浏览器重新「另存为」网页后再导入",
        ) from None


def read_page(
    data: bytes, zone_name: str = DEFAULT_ZONE, max_bytes: int = MAX_PAGE_BYTES
) -> ThreadPage:
    """Parse a saved Tieba or Discuz! X thread page; :class:`ForumPageError` when it is not one."""
    zone(zone_name)  # a bad zone is refused before anything else
    if len(data) > max_bytes:
        raise ForumPageError(
            "too_large",
            f"文件大小 {len(data) / 1024 / 1024:.1f} MB，超过上限 {max_bytes // 1024 // 1024} MB："
            "这不像是一页帖子（请只保存帖子的一页）",
        )
    if not data.strip():
        raise ForumPageError("empty", "文件是空的")
    text = decode_page(data)
    if "<html" not in text[:4096].lower() and "<!doctype html" not in text[:4096].lower():
        raise ForumPageError("not_html", "这不是网页文件（请在浏览器中用「另存为」保存帖子页面）")
    if "</html>" not in text[-4096:].lower():
        raise ForumPageError(
            "truncated", "网页文件不完整（缺少结尾的 </html>）：请等页面完全加载后重新保存"
        )
    soup = BeautifulSoup(text, "lxml")
    if discuz.looks_like_discuz(soup):
        return discuz.parse_page(soup, zone_name)
    if tieba.looks_like_tieba(soup):
        return tieba.parse_page(soup, zone_name)
    raise ForumPageError(
        "not_a_thread",
        "这不是贴吧或 Discuz! 的帖子页面：请打开帖子本身（贴吧 tieba.baidu.com/p/…，"
        "Discuz! forum.php?mod=viewthread…）再保存",
    )
