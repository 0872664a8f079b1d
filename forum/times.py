"""Forum times: the wall-clock strings both forums print, read in the forum's time zone.

Both print local time without a zone (Discuz! ``Y-n-j H:i``, e.g. ``2026-11-5 8:05``; Tieba
``2026-11-29 20:15``); the forum's zone is Asia/Shanghai unless the director configures another.

>>> parse_forum_time("发表于 2026-11-5 8:05").isoformat()
'2026-11-05T08:05:00+08:00'
>>> parse_forum_time("2026-11-29 20:15:31", "UTC").isoformat()
'2026-11-29T20:15:31+00:00'
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from forum.errors import ForumPageError

DEFAULT_ZONE = "Asia/Shanghai"
_STAMP = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?")


def zone(name: str = DEFAULT_ZONE) -> ZoneInfo:
    """The zone called ``name``, or a Chinese error naming it."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ForumPageError("bad_timezone", f"不认识的时区：{name}") from None


def parse_forum_time(text: str, zone_name: str = DEFAULT_ZONE) -> datetime:
    """The first ``YYYY-M-D H:MM[:SS]`` in ``text`` as an aware time in ``zone_name``."""
    found = _STAMP.search(text)
    if found is None:
        raise ForumPageError("bad_time", f"无法识别的发帖时间：{text.strip()[:40]!r}")
    year, month, day, hour, minute = (int(found.group(i)) for i in range(1, 6))
    second = int(found.group(6) or 0)
    try:
        return datetime(year, month, day, hour, minute, second, tzinfo=zone(zone_name))
    except ValueError:
        raise ForumPageError("bad_time", f"无法识别的发帖时间：{found.group(0)!r}") from None


def from_timestamp(seconds: int | str) -> datetime:
    """A Unix time (the mobile API's ``dbdateline``) as an aware UTC time."""
    try:
        return datetime.fromtimestamp(int(seconds), tz=UTC)
    except (TypeError, ValueError, OverflowError):
        raise ForumPageError("bad_time", f"无法识别的发帖时间戳：{seconds!r}") from None
