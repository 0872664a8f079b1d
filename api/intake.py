"""Forum intake wired to the service: saved pages, posts pasted by hand, the account map, the
roster the follower and the userscript read, and the userscript itself.

Posts go through the same functions ``POST /api/games/{id}/posts`` calls: each post is validated
by :data:`api.schemas.POST`, screened by :func:`api.screening.screen_posts` and stored, vote-parsed
and given card suggestions by :func:`api.ingest.ingest_posts`, so screening, votes and cards
behave exactly as for API posts. A page is imported in one write transaction under the game's
lock: every post of it, or (on any error) none.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from flask import current_app

from api import schemas
from api.auth import Caller
from api.database import db
from api.errors import ApiError, BadRequest, TooLarge
from api.ingest import ingest_posts
from api.locking import game_meta, locked_game, read_game
from api.schema import SchemaError
from api.screening import PostTooLargeError, screen_posts
from api.store import audit, lock_game
from forum.authors import Roster, account_key
from forum.model import ForumPost, ThreadPage

THREAD_CHOICES = {"discussion": "讨论帖", "vote": "投票帖", "process": "进程帖"}


class IntakeError(Exception):
    """A refusal shown to the director as is (Chinese)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class GameFacts:
    """What the intake needs to know about a game: who plays whom, and today."""

    id: str
    ruleset: str
    characters: tuple[str, ...]
    players: tuple[dict[str, Any], ...]
    day: int
    phase: str
    ended: bool

    @property
    def roster(self) -> Roster:
        return Roster.from_players(self.players)


def game_facts(game_id: str) -> GameFacts:
    """The game's roster and current day (404 as :class:`~api.errors.NotFound`)."""
    with read_game(game_id) as (_session, row, game):
        state = game.state
        return GameFacts(
            row.id,
            row.ruleset,
            tuple(p["character"] for p in row.players),
            tuple(dict(p) for p in row.players),
            state.day,
            state.phase,
            bool(state.ended),
        )


@dataclass
class ImportReport:
    """What an import did: posts added, posts already there, accounts nobody plays yet."""

    added: list[dict[str, Any]] = field(default_factory=list)
    already: list[dict[str, Any]] = field(default_factory=list)
    #: account -> number of its posts left out (map it to a character, then import again)
    unmapped: dict[str, int] = field(default_factory=dict)
    ambiguous: set[str] = field(default_factory=set)
    deleted_floors: tuple[int, ...] = ()
    title: str = ""
    site: str = ""


def submit_posts(
    game_id: str, posts: Sequence[dict[str, Any]], *, caller: Caller | None, actor: str
) -> list[dict[str, Any]]:
    """Validate, screen and ingest ``posts`` in one transaction; the endpoint's results.

    Raises :class:`IntakeError` (nothing stored) when any post is refused.
    """
    config = current_app.config
    valid: list[dict[str, Any]] = []
    meta = game_meta(game_id)
    known = set(meta.characters)
    for i, post in enumerate(posts):
        try:
            checked = schemas.POST.validate(post, f"$[{i}]")
        except SchemaError as exc:
            raise IntakeError(f"第{i + 1}条帖子有误：{exc.message}（{exc.path}）") from exc
        if len(checked["body"]) > config["MAX_POST_CHARS"]:
            raise IntakeError(
                f"第{i + 1}条帖子正文{len(checked['body'])}字，超过上限{config['MAX_POST_CHARS']}字"
            )
        if checked["author"] not in known:
            raise IntakeError(f"本场游戏没有名为「{checked['author']}」的角色")
        valid.append(checked)
    if not valid:
        return []
    try:
        screened = screen_posts(
            meta.ruleset, [p["body"] for p in valid], config.get("USE_CLASSIFIER", True)
        )
    except PostTooLargeError as exc:
        raise IntakeError(str(exc)) from exc
    try:
        with locked_game(game_id, caller) as (session, locked):
            results = ingest_posts(locked, valid, screened)
            fresh = [r["forum_post_id"] for r in results if not r["duplicate"]]
            if fresh:
                audit(
                    session,
                    game_id,
                    actor,
                    "forum_intake",
                    {"posts": fresh[:200], "count": len(fresh)},
                )
    except (BadRequest, TooLarge) as exc:
        raise IntakeError(exc.message) from exc
    except ApiError as exc:
        raise IntakeError(exc.message) from exc
    return results


def import_page(
    game_id: str,
    page: ThreadPage,
    thread: str,
    *,
    day: int | None = None,
    caller: Caller | None,
    actor: str,
) -> ImportReport:
    """Import every post of ``page`` whose account plays a character (all or nothing)."""
    if thread not in THREAD_CHOICES:
        raise IntakeError(f"不认识的帖子类型：{thread}（应为 discussion、vote 或 process）")
    facts = game_facts(game_id)
    if facts.ended:
        raise IntakeError("这局游戏已经结束，不再导入帖子")
    roster = facts.roster
    today = facts.day if day is None else day
    report = ImportReport(deleted_floors=page.deleted_floors, title=page.title, site=page.site)
    bodies: list[dict[str, Any]] = []
    floors: dict[str, ForumPost] = {}
    for post in page.posts:
        character = roster.character(post.author)
        if character is None:
            report.unmapped[post.author] = report.unmapped.get(post.author, 0) + 1
            if roster.ambiguous(post.author):
                report.ambiguous.add(post.author)
            continue
        bodies.append(post.api_body(character, thread, today))
        floors[post.forum_post_id] = post
    for result in submit_posts(game_id, bodies, caller=caller, actor=actor):
        source = floors[result["forum_post_id"]]
        row = {
            **result,
            "account": source.author,
            "floor": source.floor,
            "reply_floor": source.reply_floor,
            "posted_at": source.posted_at,
        }
        (report.already if result["duplicate"] else report.added).append(row)
    return report


def map_account(game_id: str, account: str, character: str, *, actor: str) -> None:
    """Make ``account`` an alias of ``character`` (the director's word; audited)."""
    account = account.strip()
    if not account or len(account) > 64:
        raise IntakeError("账号名不能为空，也不能超过64字")
    with db().write() as session:
        row = lock_game(session, game_id)
        players = [dict(p) for p in row.players]
        names = [p["character"] for p in players]
        if character not in names:
            raise IntakeError(f"本场游戏没有名为「{character}」的角色")
        taken = Roster.from_players(players).names.get(account_key(account), frozenset())
        if taken - {character}:
            raise IntakeError(f"账号「{account}」已经对应角色「{'、'.join(sorted(taken))}」")
        for p in players:
            if p["character"] == character:
                aliases = list(p.get("aliases", []))
                if account_key(account) not in {account_key(a) for a in aliases}:
                    aliases.append(account)
                p["aliases"] = aliases
        row.players = players  # a new list: the JSON column is written back
        audit(session, game_id, actor, "forum_account_mapped",
              {"account": account, "character": character})  # fmt: skip


def manual_post_id(author: str, thread: str, posted_at: datetime, text: str) -> str:
    """A pasted post's id: the same paste twice is the same post (idempotent).

    >>> from datetime import UTC
    >>> a = manual_post_id("微信", "vote", datetime(2026, 11, 29, tzinfo=UTC), "投票")
    >>> a == manual_post_id("微信", "vote", datetime(2026, 11, 29, tzinfo=UTC), "投票"), a[:7]
    (True, 'manual-')
    """
    seed = f"{author}\n{thread}\n{posted_at.isoformat()}\n{text}"
    return "manual-" + hashlib.sha256(seed.encode()).hexdigest()[:16]
