"""The value objects the parsers produce: one :class:`ForumPost` per floor or 楼中楼 reply."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any


class Site(StrEnum):
    """The forum software a page comes from."""

    DISCUZ = "discuz"
    TIEBA = "tieba"


@dataclass(frozen=True)
class ForumPost:
    """One post as the forum shows it.

    ``forum_post_id`` is the forum's own id (Discuz! ``pid``, Tieba ``post_id``/``spid``; a Discuz!
    点评 is ``cmt-<id>``), the same whichever way the post arrives (saved page, userscript,
    follower), so that the referee's idempotency key makes every re-import a no-op. ``floor`` is
    the floor number (``None`` for a 楼中楼 reply, which carries ``reply_floor`` and ``reply_to``:
    the floor it answers and that floor's post id). ``body`` is the text the screener reads.
    """

    forum_post_id: str
    author: str
    posted_at: datetime
    body: str
    floor: int | None = None
    reply_to: str | None = None
    reply_floor: int | None = None
    edited: bool = False

    def api_body(self, character: str, thread: str, day: int) -> dict[str, Any]:
        """The post as the referee's posts endpoint takes it (``posted_at`` in ISO 8601): the one
        form for a saved page (``api/intake.py``) and a followed thread (``forum/follower.py``).

        >>> from datetime import UTC
        >>> p = ForumPost("40001", "账号", datetime(2026, 12, 1, tzinfo=UTC), "投3号", 5)
        >>> p.api_body("穗乃果", "vote", 2)["posted_at"]
        '2026-12-01T00:00:00+00:00'
        """
        body: dict[str, Any] = {
            "forum_post_id": self.forum_post_id,
            "author": character,
            "thread": thread,
            "day": day,
            "body": self.body,
            "posted_at": self.posted_at.isoformat(),
        }
        if self.reply_to:
            body["reply_to"] = self.reply_to
        return body


@dataclass(frozen=True)
class ThreadPage:
    """One page of a thread: its posts in reading order (each 楼中楼 reply after its floor)."""

    site: Site
    thread_id: str
    title: str
    page: int
    posts: tuple[ForumPost, ...]
    #: floors shown as deleted (删除/屏蔽) on the page: nothing to import, listed for the director
    deleted_floors: tuple[int, ...] = field(default=())
    #: posts per page (the mobile API's ``ppp``; 0 when unknown)
    per_page: int = 0
