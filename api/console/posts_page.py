"""The posts page (全部帖子) and the filters it shares with the review queue.

Filters: character, day, thread, category (posts with a suggestion of that category), a text
search over the post bodies, and 只看被标记的帖子; paging keeps them all.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flask import current_app, has_app_context
from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import QueryableAttribute, Session

from api import cardrules
from api.console.findings import finding_view
from api.console.highlight import highlight, spans_from_findings
from api.console.labels import colour_label, day_title, label, thread_label
from api.console.players_page import votes_by_day
from api.console.service import local_time
from api.gameplay import Game
from api.ingest import THREADS
from models.cards import Decision, Suggestion
from models.game import Game as GameRow
from models.posts import Post

#: the longest text search accepted (longer ones are cut, with a notice)
MAX_SEARCH = 100

#: posts per page of the posts list (app config ``CONSOLE_POSTS_PER_PAGE``)
DEFAULT_POSTS_PER_PAGE = 50


def posts_per_page() -> int:
    """Posts per page of the posts list."""
    value = DEFAULT_POSTS_PER_PAGE
    if has_app_context():
        value = int(current_app.config.get("CONSOLE_POSTS_PER_PAGE", DEFAULT_POSTS_PER_PAGE))
    return max(1, value)


@dataclass(frozen=True)
class PostFilters:
    """The filters of the posts list and the review queue (None / False: not filtered)."""

    character: str | None = None
    day: int | None = None
    thread: str | None = None
    category: str | None = None
    text: str | None = None
    flagged: bool = False

    def query_args(self) -> dict[str, str]:
        """The filters as query-string arguments, for paging links.

        >>> PostFilters(character="甲", text="发誓", flagged=True).query_args()
        {'character': '甲', 'q': '发誓', 'flagged': '1'}
        """
        args: dict[str, str] = {}
        if self.character is not None:
            args["character"] = self.character
        if self.day is not None:
            args["day"] = str(self.day)
        if self.thread is not None:
            args["thread"] = self.thread
        if self.category is not None:
            args["category"] = self.category
        if self.text is not None:
            args["q"] = self.text
        if self.flagged:
            args["flagged"] = "1"
        return args

    def post_conditions(self) -> list[ColumnElement[bool]]:
        """SQL conditions on :class:`Post` for the character, day, thread and text filters."""
        return self.conditions(Post.author, Post.day)

    def conditions(
        self, character: QueryableAttribute[str], day: QueryableAttribute[int]
    ) -> list[ColumnElement[bool]]:
        """SQL conditions for the character and day filters on the columns given (a post's
        author and day, or a suggestion's character and day), the thread and text filters on
        :class:`Post` (the caller joins it)."""
        where: list[ColumnElement[bool]] = []
        if self.character is not None:
            where.append(character == self.character)
        if self.day is not None:
            where.append(day == self.day)
        if self.thread is not None:
            where.append(Post.thread == self.thread)
        if self.text is not None:
            # autoescape: a % or _ typed by the director is searched for as itself
            where.append(Post.body.contains(self.text, autoescape=True))
        return where


def post_filters(
    args: Mapping[str, str], characters: Sequence[str]
) -> tuple[PostFilters, list[str]]:
    """The filters from a query string; a value that names nothing is dropped with a notice.

    >>> post_filters({"character": "乙", "day": "2", "flagged": "1"}, ["甲", "乙"])[0]
    PostFilters(character='乙', day=2, thread=None, category=None, text=None, flagged=True)
    >>> post_filters({"q": "  我发誓 ", "category": "oath"}, ["甲"])[0].query_args()
    {'category': 'oath', 'q': '我发誓'}
    >>> for notice in post_filters({"character": "丙", "day": "x", "thread": "chat",
    ...                             "category": "spam"}, ["甲"])[1]:
    ...     print(notice)
    没有名为「丙」的角色，已显示所有角色的帖子
    天数“x”无效，已显示所有天
    没有“chat”这种帖子，已显示所有帖子
    没有“spam”这种违规类别，已显示所有类别
    """
    notices: list[str] = []
    character: str | None = args.get("character") or None
    if character is not None and character not in characters:
        notices.append(f"没有名为「{character}」的角色，已显示所有角色的帖子")
        character = None
    raw_day = args.get("day") or ""
    day: int | None = None
    if raw_day:
        if raw_day.isdigit() and len(raw_day) <= 4:
            day = int(raw_day)
        else:
            notices.append(f"天数“{raw_day}”无效，已显示所有天")
    thread: str | None = args.get("thread") or None
    if thread is not None and thread not in THREADS:
        notices.append(f"没有“{thread}”这种帖子，已显示所有帖子")
        thread = None
    category: str | None = args.get("category") or None
    if category is not None and not cardrules.known_category(category):
        notices.append(f"没有“{category}”这种违规类别，已显示所有类别")
        category = None
    text: str | None = (args.get("q") or "").strip() or None
    if text is not None and len(text) > MAX_SEARCH:
        notices.append(f"搜索词超过{MAX_SEARCH}字，只按前{MAX_SEARCH}字搜索")
        text = text[:MAX_SEARCH]
    flagged = args.get("flagged") == "1"
    return PostFilters(character, day, thread, category, text, flagged), notices


def category_choices() -> dict[str, str]:
    """Every category a suggestion may have, in the seeds' words (the filters' options)."""
    return {key: cardrules.category_name(key) for key in cardrules.category_keys()}


def page_number(raw: str | None) -> int:
    """A page number from the query string (1 when missing or not a number).

    >>> page_number("3"), page_number("0"), page_number("-1"), page_number(None)
    (3, 1, 1, 1)
    """
    if raw is None or not raw.isdigit() or len(raw) > 6:
        return 1
    return max(1, int(raw))


def page_links(page: int, pages: int, around: int = 2) -> list[int | None]:
    """Page numbers to link: the first, the last and ``around`` either side; None is a gap.

    >>> page_links(6, 12)
    [1, None, 4, 5, 6, 7, 8, None, 12]
    >>> page_links(1, 3)
    [1, 2, 3]
    """
    shown = sorted({1, pages, *range(max(1, page - around), min(pages, page + around) + 1)})
    out: list[int | None] = []
    for number in shown:
        if out and out[-1] is not None and number - out[-1] > 1:
            out.append(None)
        out.append(number)
    return out


def _vote_view(
    post: Post, final: Mapping[int, Mapping[str, Mapping[str, Any]]]
) -> dict[str, str] | None:
    """How a vote-thread post counted: 有效 (and whether a later ballot replaced it) or not."""
    if post.thread != "vote":
        return None
    if post.zombie:
        rejected = label("vote_status", "rejected")
        return {"status": "rejected", "status_name": rejected, "detail": "诈尸：出局角色的投票不计"}
    vote = post.vote if isinstance(post.vote, Mapping) else None
    if vote is None:
        return None
    status = str(vote.get("status", ""))
    out = {"status": status, "status_name": label("vote_status", status), "detail": "", "later": ""}
    if status == "counted":
        target = vote.get("target")
        out["detail"] = (f"投给{target}" if target else "弃权") + (
            "（改票）" if vote.get("is_change") else ""
        )
        last = final.get(post.day, {}).get(post.author)
        if last is not None and last["post_id"] != post.forum_post_id:
            now = f"投给{last['target']}" if last["target"] else "弃权"
            how = "导演代投" if last["proxy"] else "改票"
            out["later"] = f"已被之后的{how}取代（{now}）"
    else:
        out["detail"] = str(vote.get("message", ""))
    return out


def _post_suggestion_view(s: Suggestion, decision: Decision | None) -> dict[str, Any]:
    return {
        "id": s.id,
        "kind_name": label("suggestion_kinds", s.kind),
        "category_name": cardrules.category_name(s.category),
        "colour": s.colour,
        "colour_name": colour_label(s.colour),
        "status": s.status,
        "decided_colour": decision.colour if decision else None,
        "decided_name": colour_label(decision.colour) if decision else "",
    }


def posts_page(
    session: Session, row: GameRow, game: Game, filters: PostFilters, page: int
) -> dict[str, Any]:
    """One page of the game's posts in thread order (day, then posting time), grouped by day,
    each with its findings highlighted, how its vote counted and its suggestion's status."""
    flagged = (
        select(Suggestion.id)
        .where(Suggestion.game_id == row.id, Suggestion.post_id == Post.id)
        .exists()
    )
    where = [Post.game_id == row.id, *filters.post_conditions()]
    if filters.flagged:
        where.append(flagged)
    if filters.category is not None:
        where.append(
            select(Suggestion.id)
            .where(
                Suggestion.game_id == row.id,
                Suggestion.post_id == Post.id,
                Suggestion.category == filters.category,
            )
            .exists()
        )
    total = int(session.scalar(select(func.count()).select_from(Post).where(*where)) or 0)
    per_page = posts_per_page()
    pages = max(1, -(-total // per_page))
    page = min(page, pages)
    posts = session.scalars(
        select(Post)
        .where(*where)
        .order_by(Post.day, Post.posted_at, Post.id)
        .offset((page - 1) * per_page)
        .limit(per_page)
    ).all()
    suggestions: dict[int, list[tuple[Suggestion, Decision | None]]] = defaultdict(list)
    if posts:
        for s, decision in session.execute(
            select(Suggestion, Decision)
            .outerjoin(Decision, Decision.suggestion_id == Suggestion.id)
            .where(Suggestion.game_id == row.id, Suggestion.post_id.in_([p.id for p in posts]))
            .order_by(Suggestion.id)
        ):
            suggestions[s.post_id or 0].append((s, decision))
    final = votes_by_day(game)
    groups: list[dict[str, Any]] = []
    for post in posts:
        if not groups or groups[-1]["day"] != post.day:
            groups.append({"day": post.day, "title": day_title(post.day), "posts": []})
        findings = [f for f in post.findings if f.get("category") != "water"]
        linked = [_post_suggestion_view(s, d) for s, d in suggestions.get(post.id, [])]
        groups[-1]["posts"].append(
            {
                "id": post.id,
                "forum_post_id": post.forum_post_id,
                "author": post.author,
                "thread": post.thread,
                "thread_name": thread_label(post.thread),
                "posted_at": local_time(post.posted_at),
                "html": highlight(post.body, spans_from_findings(findings, len(post.body))),
                "water": post.is_water,
                "zombie": post.zombie,
                "findings": [finding_view(f) for f in findings],
                "vote": _vote_view(post, final),
                "suggestions": linked,
                "colour": linked[0]["colour"] if linked else "",
            }
        )
    post_days = session.scalars(select(Post.day).where(Post.game_id == row.id).distinct()).all()
    return {
        "groups": groups,
        "total": total,
        "page": page,
        "pages": pages,
        "page_links": page_links(page, pages),
        "filters": filters,
        "query": filters.query_args(),
        "characters": list(game.characters),
        "days": [
            {"day": d, "title": day_title(d)}
            for d in sorted({*post_days, *range(1, max(game.state.day, 1) + 1)})
        ],
        "threads": {t: thread_label(t) for t in THREADS},
        "categories": category_choices(),
    }


__all__ = [
    "PostFilters",
    "category_choices",
    "page_links",
    "page_number",
    "post_filters",
    "posts_page",
    "posts_per_page",
]
