"""Posts in: stored once per forum id, vote-parsed, 诈尸 detected and cards suggested."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import Connection, Table, bindparam, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from api import cardrules
from api.card_store import stored_card_facts
from api.errors import Conflict
from api.gameplay import Game
from api.locking import LockedGame
from api.payloads import PostRecord, post_result, stored_post_json
from api.screening import Screened
from api.voting import vote_from_post
from game_rules.penalties import CardLedger
from models.cards import Suggestion
from models.driver import Prepared
from models.posts import Post, Thread
from models.types import utcnow

THREADS: tuple[str, ...] = tuple(t.value for t in Thread)
#: threads in which a post by an eliminated character is 诈尸, per ruleset (the seeds' 6(1)/6(2))
ZOMBIE_THREADS = {
    "m08": frozenset({"discussion", "vote"}),
    "m72": frozenset({"discussion", "vote", "process"}),
    "wa004": frozenset({"discussion", "vote", "process", "rules"}),
}


def _new_record(
    post: dict[str, Any], screen: Screened, *, zombie: bool, vote: dict[str, Any] | None
) -> PostRecord:
    """A post about to be stored: water and 诈尸 posts do not count towards activity."""
    return PostRecord(
        id=0,
        forum_post_id=post["forum_post_id"],
        author=post["author"],
        thread=post["thread"],
        day=post["day"],
        body=post["body"],
        is_water=screen.water,
        zombie=zombie,
        counts_activity=not screen.water and not zombie,
        findings=screen.findings,
        vote=vote,
    )


#: what makes a post the same post: a retry repeats all of it
_IDENTITY = ("author", "thread", "body")


def refuse_changed_post(stored: Post | PostRecord, post: dict[str, Any], index: int) -> None:
    """409 ``post_id_reused`` when ``post`` reuses a stored forum post id with another author,
    thread or body: a retry is answered as a duplicate, but a different post under a known id
    is a forum bot's bug, and answering it as a duplicate would silently drop that post."""
    changed = [k for k in _IDENTITY if getattr(stored, k) != post[k]]
    if changed:
        names = {"author": "作者", "thread": "帖子", "body": "正文"}
        raise Conflict(
            f"帖子编号「{post['forum_post_id']}」已用于另一条帖子"
            f"（{'、'.join(names[k] for k in changed)}不同）；同一编号只能重发同一条帖子",
            rule="post_id_reused",
            index=index,
            differs=changed,
            stored=stored_post_json(stored),
        )


_STORED_POSTS = select(Post).where(
    Post.game_id == bindparam("game_id"), Post.forum_post_id.in_(bindparam("ids", expanding=True))
)


def ingest_posts(
    locked: LockedGame, posts: Sequence[dict[str, Any]], screened: Sequence[Screened]
) -> list[dict[str, Any]]:
    """Store, vote-parse and suggest cards for screened ``posts`` (idempotent by forum id).

    New posts are inserted in one multi-row statement; a post whose forum id is already stored
    (or repeated within the batch) is answered from the stored row and changes nothing.
    """
    session, row = locked.session, locked.row
    ids = list(dict.fromkeys(p["forum_post_id"] for p in posts))
    existing: dict[str, Post | PostRecord] = {
        p.forum_post_id: p for p in session.scalars(_STORED_POSTS, {"game_id": row.id, "ids": ids})
    }
    suggestions: dict[str, Suggestion] = {}
    if existing:
        stored_ids = {p.id: p.forum_post_id for p in existing.values()}
        for s in session.scalars(select(Suggestion).where(Suggestion.post_id.in_(stored_ids))):
            suggestions[stored_ids[s.post_id or 0]] = s
    zombie_threads = ZOMBIE_THREADS.get(row.ruleset.split("_")[0], frozenset(THREADS))
    fresh: list[tuple[dict[str, Any], Screened, PostRecord]] = []
    order: list[tuple[str, bool]] = []  # (forum id, duplicate) in request order
    now = utcnow()
    for index, (post, screen) in enumerate(zip(posts, screened, strict=True)):
        forum_id = post["forum_post_id"]
        if forum_id in existing:
            refuse_changed_post(existing[forum_id], post, index)
            order.append((forum_id, True))
            continue
        author = post["author"]
        zombie = not locked.game.state.is_alive(author) and post["thread"] in zombie_threads
        vote = vote_from_post(locked, post) if post["thread"] == "vote" and not zombie else None
        record = _new_record(post, screen, zombie=zombie, vote=vote)
        existing[forum_id] = record
        fresh.append((post, screen, record))
        order.append((forum_id, False))
    if fresh:
        table = cast(Table, Post.__table__)
        stmt = insert(table).returning(table.c.id, sort_by_parameter_order=True)
        rows = [
            {
                "game_id": row.id,
                "forum_post_id": r.forum_post_id,
                "author": r.author,
                "thread": r.thread,
                "day": r.day,
                "body": r.body,
                "posted_at": p["posted_at"],
                "is_water": r.is_water,
                "counts_activity": r.counts_activity,
                "zombie": r.zombie,
                "findings": r.findings,
                "vote": r.vote,
                "created_at": now,
            }
            for p, _, r in fresh
        ]
        new_ids = session.connection().execute(stmt, rows).scalars().all()
        ledgers: dict[str, tuple[list[cardrules.StoredCard], CardLedger]] = {}
        for (_, screen, record), new_id in zip(fresh, new_ids, strict=True):
            record.id = int(new_id)
            if screen.violations or record.zombie:
                suggestion = _suggest_for_post(
                    session.connection(), row.id, row.ruleset, record, screen, ledgers
                )
                session.add(suggestion)
                suggestions[record.forum_post_id] = suggestion
        session.flush()  # one flush gives every new suggestion its id
    return [
        post_result(existing[forum_id], suggestions.get(forum_id), duplicate)
        for forum_id, duplicate in order
    ]


def _insert_new_posts(insert_for: Any) -> Any:
    table = cast(Table, Post.__table__)
    return (
        insert_for(table)
        .on_conflict_do_nothing(index_elements=["game_id", "forum_post_id"])
        .returning(table.c.id, table.c.forum_post_id)
    )


#: insert posts not stored yet; a forum id already stored is skipped and not returned
_INSERT_NEW_POSTS = {
    "postgresql": _insert_new_posts(postgresql.insert),
    "sqlite": _insert_new_posts(sqlite.insert),
}
#: the columns of a new post's row (every one, defaulted ones included: see models.driver)
_POST_COLUMNS = (
    "game_id",
    "forum_post_id",
    "author",
    "thread",
    "day",
    "body",
    "posted_at",
    "is_water",
    "counts_activity",
    "zombie",
    "findings",
    "vote",
    "created_at",
)
#: a single post (the commonest request) goes straight to the driver on SQLite; a batch takes
#: ``execute``'s multi-row insert
_INSERT_ONE_POST = Prepared(_INSERT_NEW_POSTS["sqlite"], keys=_POST_COLUMNS)


_SUGGESTION_COLUMNS = (
    "game_id",
    "post_id",
    "character",
    "kind",
    "category",
    "colour",
    "reasons",
    "day",
    "status",
    "created_at",
)
_SUGGESTIONS_TABLE = cast(Table, Suggestion.__table__)
_INSERT_SUGGESTIONS = insert(_SUGGESTIONS_TABLE).returning(
    _SUGGESTIONS_TABLE.c.id, sort_by_parameter_order=True
)


def ingest_unvoted_posts(
    connection: Connection,
    game_id: str,
    ruleset: str,
    game: Game,
    posts: Sequence[dict[str, Any]],
    screened: Sequence[Screened],
) -> list[dict[str, Any]]:
    """:func:`ingest_posts` for posts outside the vote thread, under a share lock (see
    :func:`shared_game`): no game event is written, so ``game`` is only read (诈尸).

    Idempotent by forum id without a look-up first: ``INSERT ... ON CONFLICT DO NOTHING
    RETURNING`` stores the new posts, and only forum ids it skipped (stored before, or by a
    concurrent retry that committed first) are read back and answered as duplicates. Rows are
    inserted in forum-id order so that two concurrent batches sharing ids take the unique-index
    locks in the same order and cannot deadlock.
    """
    if any(p["thread"] == "vote" for p in posts):
        raise ValueError("vote-thread posts change the game: use ingest_posts under the lock")
    zombie_threads = ZOMBIE_THREADS.get(ruleset.split("_")[0], frozenset(THREADS))
    state = game.state
    now = utcnow()
    first: dict[str, tuple[dict[str, Any], Screened]] = {}
    for post, screen in zip(posts, screened, strict=True):
        first.setdefault(post["forum_post_id"], (post, screen))
    records: dict[str, Post | PostRecord] = {}
    rows: list[dict[str, Any]] = []
    for forum_id in sorted(first):
        post, screen = first[forum_id]
        author = post["author"]
        zombie = post["thread"] in zombie_threads and not state.is_alive(author)
        records[forum_id] = _new_record(post, screen, zombie=zombie, vote=None)
        rows.append(
            {
                "game_id": game_id,
                "forum_post_id": forum_id,
                "author": author,
                "thread": post["thread"],
                "day": post["day"],
                "body": post["body"],
                "posted_at": post["posted_at"],
                "is_water": screen.water,
                "counts_activity": not screen.water and not zombie,
                "zombie": zombie,
                "findings": screen.findings,
                "vote": None,
                "created_at": now,
            }
        )
    if len(rows) == 1 and connection.dialect.name == "sqlite":
        result = _INSERT_ONE_POST.run(connection, rows[0])
    else:
        stmt = _INSERT_NEW_POSTS[connection.dialect.name]
        result = connection.execute(stmt, rows[0] if len(rows) == 1 else rows)
    inserted = {str(forum_id): int(post_id) for post_id, forum_id in result}
    suggestions: dict[str, Suggestion] = {}
    skipped = [forum_id for forum_id in first if forum_id not in inserted]
    if skipped:  # answered from the stored rows, through the ORM (it joins the transaction)
        with Session(bind=connection) as session:
            stored = list(session.scalars(_STORED_POSTS, {"game_id": game_id, "ids": skipped}))
            stored_ids = {p.id: p.forum_post_id for p in stored}
            records.update((p.forum_post_id, p) for p in stored)
            query = select(Suggestion).where(Suggestion.post_id.in_(stored_ids))
            for s in session.scalars(query):
                suggestions[stored_ids[s.post_id or 0]] = s
    ledgers: dict[str, tuple[list[cardrules.StoredCard], CardLedger]] = {}
    new: list[tuple[str, Suggestion]] = []
    for forum_id, post_id in inserted.items():
        record = records[forum_id]
        assert isinstance(record, PostRecord)
        record.id = post_id
        screen = first[forum_id][1]
        if screen.violations or record.zombie:
            suggestion = _suggest_for_post(connection, game_id, ruleset, record, screen, ledgers)
            new.append((forum_id, suggestion))
    if new:
        # One Core statement instead of an ORM flush; the objects stay transient (JSON only).
        values = [{k: getattr(s, k) for k in _SUGGESTION_COLUMNS} for _, s in new]
        found = connection.execute(_INSERT_SUGGESTIONS, values).scalars().all()
        for (forum_id, suggestion), suggestion_id in zip(new, found, strict=True):
            suggestion.id = int(suggestion_id)
            suggestions[forum_id] = suggestion
    seen: set[str] = set()
    out = []
    for index, post in enumerate(posts):
        forum_id = post["forum_post_id"]
        duplicate = forum_id in seen or forum_id not in inserted
        if duplicate:
            refuse_changed_post(records[forum_id], post, index)
        seen.add(forum_id)
        out.append(post_result(records[forum_id], suggestions.get(forum_id), duplicate))
    return out


def _finding_text(f: dict[str, Any]) -> str:
    text = f"{cardrules.category_name(f['category'])}：“{f['match']}”"
    if f["via"] == "classifier":  # its "term" is the category key; its evidence are the words
        shown = "、".join(f"“{e['match']}”" for e in f.get("evidence", ())[:3])
        text += f"（{cardrules.via_name('classifier')}判断，依据{shown}）"
    elif f["via"] not in ("", "exact") and f["term"]:
        text += f"（{cardrules.via_name(f['via'])} {f['term']}）"
    return text


def _evidence(violations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One line per piece of evidence: the classifier's agreement on a span a lexicon or pattern
    already explains adds nothing for the director to read (it stays in the post's findings)."""
    explained = {
        (f["category"], f["start"], f["end"]) for f in violations if f["via"] != "classifier"
    }
    return [
        f
        for f in violations
        if f["via"] != "classifier" or (f["category"], f["start"], f["end"]) not in explained
    ]


def _suggest_for_post(
    connection: Connection,
    game_id: str,
    ruleset: str,
    post: PostRecord,
    screen: Screened,
    ledgers: dict[str, tuple[list[cardrules.StoredCard], CardLedger]],
) -> Suggestion:
    """The suggested card for a post with violations or 诈尸; the caller stores it."""
    violations = screen.violations
    if post.author not in ledgers:  # cards do not change while posts are ingested
        cards = stored_card_facts(connection, game_id, post.author)
        ledgers[post.author] = (cards, cardrules.ledger_of(ruleset, post.author, cards))
    cards, ledger = ledgers[post.author]
    article: str | None = None
    if post.zombie:
        category, severity = "zombie", ""
        evidence: list[dict[str, Any]] = [
            {
                "article": cardrules.category_article(ruleset, "zombie"),
                "text": f"{post.author}已出局，仍在{_thread_name(post.thread)}发言（诈尸）",
            }
        ]
    else:
        primary = max(violations, key=lambda f: f["confidence"])
        category = primary["category"]
        # the clause the finding cites (M72 2(8), not the category's first clause 2(5))
        article = primary["article"]["code"] or None
        # The seed's hint names the colours it allows; only a single named colour is a floor.
        hinted = primary["severity"]["cards"]
        severity = hinted[0] if len(hinted) == 1 else ""
        evidence = [
            {"article": f["article"], "text": _finding_text(f), "finding": f}
            for f in _evidence(violations)
        ]
    suggested = cardrules.suggest(ruleset, category, severity, ledger, article=article)
    reasons = [
        *evidence,
        {
            "article": suggested.article,
            "text": "；".join(r.rstrip("。") for r in suggested.reasons) + "。",
            "lines": list(suggested.reasons),
            "allowed": list(suggested.allowed),
            "fixed": suggested.fixed,
            "history": {
                "summary": ledger.describe(),
                "cards": [
                    {"colour": c.colour, "category": c.category, "day": c.day, "source": c.source}
                    for c in cards
                ],
            },
        },
    ]
    suggestion = Suggestion(
        game_id=game_id,
        post_id=post.id,
        character=post.author,
        kind="zombie" if post.zombie else "post",
        category=category,
        colour=suggested.colour,
        reasons=reasons,
        day=post.day,
        status="pending",
        created_at=utcnow(),
    )
    return suggestion


def _thread_name(thread: str) -> str:
    return {"discussion": "讨论帖", "vote": "投票帖", "process": "进程帖", "rules": "规则帖"}.get(
        thread, thread
    )
