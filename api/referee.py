"""The referee's work inside one locked game: posts in, suggestions, decisions, cards, ejections.

Every function here runs inside a write transaction in which the game row is locked (see
:mod:`api.store`) and takes a :class:`LockedGame` — except :func:`ingest_unvoted_posts`, which
only adds rows and reads the game, and so runs under the share lock of :func:`shared_game`. They
raise :class:`~api.errors.ApiError` subclasses to reject a request; the caller's transaction then
rolls back, so nothing is half-done.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from flask import current_app
from sqlalchemy import Connection, Table, bindparam, func, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from api import cardrules
from api.auth import Caller, refuse_if_revoked, refuse_revoked
from api.database import db
from api.errors import BadRequest, Conflict, NotFound
from api.gameplay import Game, GameCache, GameRuleError, events_to_dicts, rebuild_game
from api.ratelimit import consume, consume_reading_game, settle
from api.screening import Screened
from api.store import (
    append_events,
    audit,
    game_version_shared,
    get_game,
    load_events,
    lock_game,
)
from game_rules import actions as act
from game_rules.events import Announced, Eliminated, Event, FlagSet
from game_rules.penalties import CardLedger
from game_rules.votes import InvalidVoteError, parse_vote
from models.cards import Card, Decision, Suggestion
from models.game import Game as GameRow
from models.labelled import LabelledExampleRow
from models.posts import Post
from models.types import utcnow

THREADS = ("discussion", "vote", "process", "rules")
#: threads in which a post by an eliminated character is 诈尸, per ruleset (the seeds' 6(1)/6(2))
ZOMBIE_THREADS = {
    "m08": frozenset({"discussion", "vote"}),
    "m72": frozenset({"discussion", "vote", "process"}),
    "wa004": frozenset({"discussion", "vote", "process", "rules"}),
}
#: categories the classifier learns; decisions on other kinds are not training examples
TEXT_CATEGORIES = frozenset(
    {"insult", "oath", "vest", "director", "evidence", "real_life", "meta", "emotional"}
)


# ---------------------------------------------------------------------------------------------
# Loading games


def cache() -> GameCache:
    """This process's cache of rebuilt games."""
    found: GameCache = current_app.extensions["bansha_games"]
    return found


@dataclass(frozen=True)
class GameMeta:
    """What never changes about a game: its ruleset and characters."""

    id: str
    ruleset: str
    characters: tuple[str, ...]


def game_meta(game_id: str) -> GameMeta:
    """The game's immutable facts through this process's cache (a read on a miss; 404)."""
    metas: dict[str, GameMeta] = current_app.extensions.setdefault("bansha_meta", {})
    found = metas.get(game_id)
    if found is None:
        with db().read() as session:
            row = get_game(session, game_id)
            found = GameMeta(row.id, row.ruleset, tuple(characters_of(row)))
        if len(metas) > 10_000:
            metas.clear()
        metas[game_id] = found
    return found


def characters_of(row: GameRow) -> list[str]:
    """The game's characters in seating order."""
    return [p["character"] for p in row.players]


def aliases_of(row: GameRow) -> dict[str, list[str]]:
    """Character -> aliases, as given at creation."""
    return {p["character"]: list(p.get("aliases", [])) for p in row.players}


def load_game(session: Session, row: GameRow) -> Game:
    """The game at ``row.version`` (from the cache when it holds exactly that version)."""
    game = cache().take(row.id, row.version)
    if game is None:
        events = load_events(session, row.id)[: row.version]
        game = rebuild_game(row.ruleset, row.seed, characters_of(row), events)
    return game


@dataclass
class LockedGame:
    """A locked game row and its rebuilt game; new events are collected and stored by flush."""

    session: Session
    row: GameRow
    game: Game
    pending: list[Event] = field(default_factory=list)

    @property
    def ruleset(self) -> str:
        """The ruleset id."""
        return self.row.ruleset

    def apply(self, action: act.Action) -> tuple[Event, ...]:
        """Apply ``action``; a rule violation becomes a 409 naming the rule."""
        try:
            events = self.game.apply(action)
        except GameRuleError as exc:
            raise Conflict(exc.message, rule=exc.rule) from exc
        self.pending.extend(events)
        return events

    def flush(self) -> None:
        """Store the collected events in the log."""
        if self.pending:
            append_events(self.session, self.row, events_to_dicts(self.pending))
            self.pending = []
            if self.game.state.ended and not self.row.finished:
                self.row.finished = True


@contextmanager
def locked_game(game_id: str, caller: Caller | None = None) -> Iterator[tuple[Session, LockedGame]]:
    """A write transaction with ``game_id`` locked; the rebuilt game is cached after commit.

    With ``caller`` (identified through the token cache), its token is confirmed live under the
    lock: 401 ``token_revoked`` once it has been revoked.
    """
    with db().write() as session:
        row = lock_game(session, game_id)
        if caller is not None:
            refuse_revoked(session, caller)
        locked = LockedGame(session, row, load_game(session, row))
        yield session, locked
        locked.flush()
    cache().put(row.id, row.version, locked.game)


@contextmanager
def read_game(game_id: str) -> Iterator[tuple[Session, GameRow, Game]]:
    """A read transaction with the game rebuilt at its committed version."""
    with db().read() as session:
        row = get_game(session, game_id)
        game = load_game(session, row)
        yield session, row, game
    cache().put(row.id, row.version, game)


@contextmanager
def shared_game(
    game_id: str, caller: Caller, cost: int, limit: tuple[int, int]
) -> Iterator[tuple[Connection, Game]]:
    """A write transaction in which ``game_id`` is share-locked: its game may be read, not changed.

    For work that adds rows but no game events (posts outside the vote thread): every writer that
    changes the game needs the exclusive lock, so the state read here stays current until commit,
    while concurrent share-lockers (other posts) do not queue behind each other on PostgreSQL.
    The game comes from this process's cache without being taken out of it (it is only read); a
    rebuilt one is offered to the cache after commit. Yields a Core connection (no ORM session:
    on the hottest path its bookkeeping costs more than the SQL).

    ``caller`` was identified through the token cache: the statement that share-locks the game
    also confirms its token is live (401 ``token_revoked`` once it has been revoked), and its
    posting rate limit is charged ``cost`` posts in the same transaction
    (:func:`api.ratelimit.consume`: 429 past ``limit``, after any 404 or 401). On SQLite, whose
    write transaction is exclusive anyway, one statement counts the posts and reads the version
    and the revocation; on PostgreSQL the count comes last, after the body, so that the window's
    row lock is held only for the commit.
    """
    token_hash = caller.token_hash
    assert token_hash is not None
    with db().write_connection() as connection:
        on_sqlite = connection.dialect.name == "sqlite"
        if on_sqlite:
            count, found, revoked, now = consume_reading_game(
                connection, token_hash, cost, limit, game_id
            )
            if found is None:
                raise NotFound(f"没有这场游戏：{game_id!r}")
            refuse_if_revoked(caller, revoked)
            settle(connection, token_hash, cost, limit, count, now)
            version = found
        else:
            version, revoked = game_version_shared(connection, game_id, token_hash)
            refuse_if_revoked(caller, revoked)
        game = cache().peek(game_id, version)
        rebuilt = game is None
        if game is None:
            with Session(bind=connection) as session:  # joins the transaction, never ends it
                row = get_game(session, game_id)
                events = load_events(session, game_id)[:version]
            game = rebuild_game(row.ruleset, row.seed, characters_of(row), events)
        yield connection, game
        if not on_sqlite:
            consume(connection, token_hash, cost, limit)
    if rebuilt:
        cache().put(game_id, version, game)


# ---------------------------------------------------------------------------------------------
# Posts


def suggestion_json(
    s: Suggestion, post: Post | None = None, decision: Decision | None = None
) -> dict[str, Any]:
    """A suggestion as JSON (with its post and decision when given)."""
    out: dict[str, Any] = {
        "id": s.id,
        "game_id": s.game_id,
        "character": s.character,
        "kind": s.kind,
        "category": s.category,
        "colour": s.colour,
        "colour_name": cardrules.colour_name(s.colour),
        "day": s.day,
        "status": s.status,
        "reasons": s.reasons,
        "created_at": s.created_at.isoformat(),
        "post": None,
        "decision": None,
    }
    if post is not None:
        out["post"] = {
            "id": post.id,
            "forum_post_id": post.forum_post_id,
            "thread": post.thread,
            "day": post.day,
            "posted_at": post.posted_at.isoformat(),
            "body": post.body,
            "findings": post.findings,
        }
    if decision is not None:
        out["decision"] = decision_json(decision)
    return out


def decision_json(d: Decision) -> dict[str, Any]:
    """A decision as JSON."""
    return {
        "id": d.id,
        "suggestion_id": d.suggestion_id,
        "action": d.action,
        "colour": d.colour,
        "colour_name": cardrules.colour_name(d.colour),
        "note": d.note,
        "faction_lost": d.faction_lost,
        "decided_by": d.decided_by,
        "decided_at": d.decided_at.isoformat(),
    }


def card_json(c: Card) -> dict[str, Any]:
    """A card as JSON."""
    return {
        "id": c.id,
        "character": c.character,
        "colour": c.colour,
        "colour_name": cardrules.colour_name(c.colour),
        "source": c.source,
        "category": c.category,
        "reason": c.reason,
        "escalated_from": list(c.escalated_from),
        "decision_id": c.decision_id,
        "issued_by": c.issued_by,
        "day": c.day,
        "created_at": c.created_at.isoformat(),
    }


@dataclass
class PostRecord:
    """A post as stored (what the response and the suggestion logic read)."""

    id: int
    forum_post_id: str
    author: str
    thread: str
    day: int
    body: str
    is_water: bool
    zombie: bool
    counts_activity: bool
    findings: list[dict[str, Any]]
    vote: dict[str, Any] | None


def post_result(
    post: Post | PostRecord, suggestion: Suggestion | None, duplicate: bool
) -> dict[str, Any]:
    """The response for one ingested post."""
    return {
        "post_id": post.id,
        "forum_post_id": post.forum_post_id,
        "duplicate": duplicate,
        "author": post.author,
        "thread": post.thread,
        "day": post.day,
        "water": post.is_water,
        "zombie": post.zombie,
        "counts_activity": post.counts_activity,
        "findings": post.findings,
        "vote": post.vote,
        "suggestion": None if suggestion is None else suggestion_json(suggestion),
    }


def _vote_from_post(locked: LockedGame, post: dict[str, Any]) -> dict[str, Any]:
    """Parse a vote post and cast it; the outcome (counted / invalid / rejected) as JSON."""
    state = locked.game.state
    voter = post["author"]
    if state.phase != "day" or post["day"] != state.day:
        return {
            "status": "rejected",
            "rule": "not_voting_day",
            "message": f"第{post['day']}天的投票不在当前投票期"
            f"（当前：第{state.day}天{phase_name(state.phase)}）",
        }
    living = state.living()
    aliases = aliases_of(locked.row)
    candidates = {name: aliases.get(name, []) for name in living}
    try:
        parsed = parse_vote(post["body"], candidates)
    except InvalidVoteError as exc:
        return {"status": "invalid", "rule": exc.rule, "message": exc.message}
    # Post times are compared with the day's 关门 time only once the director has scheduled it
    # (action schedule_day); before that, ballots are ordered by arrival.
    scheduled = bool(state.flags.get("closes_at"))
    ballot = act.CastVote(
        voter=voter,
        target=parsed.target,
        at=post["posted_at"] if scheduled else None,
        is_change=parsed.is_change,
        post_id=post["forum_post_id"],
        reason=parsed.reason,
        replies_to=post.get("reply_to"),
    )
    try:
        locked.pending.extend(locked.game.apply(ballot))
    except GameRuleError as exc:
        return {
            "status": "rejected",
            "rule": exc.rule,
            "message": exc.message,
            "target": parsed.target,
            "is_change": parsed.is_change,
        }
    return {
        "status": "counted",
        "target": parsed.target,
        "abstain": parsed.target is None,
        "is_change": parsed.is_change,
        "reason": parsed.reason,
    }


def phase_name(phase: str) -> str:
    """The Chinese name of a phase (白天 / 夜晚).

    >>> phase_name("night")
    '夜晚'
    """
    return {"day": "白天", "night": "夜晚"}.get(phase, phase)


def stored_cards(session: Session, game_id: str, character: str) -> list[Card]:
    """A character's card rows in issue order."""
    return list(
        session.scalars(
            select(Card)
            .where(Card.game_id == game_id, Card.character == character)
            .order_by(Card.id)
        )
    )


_CARD_FACTS = (
    select(Card.id, Card.colour, Card.source, Card.category, Card.reason, Card.day)
    .where(Card.game_id == bindparam("game_id"), Card.character == bindparam("character"))
    .order_by(Card.id)
)


def stored_card_facts(
    connection: Connection, game_id: str, character: str
) -> list[cardrules.StoredCard]:
    """A character's cards in issue order, as the ledger needs them (one Core query, no ORM)."""
    rows = connection.execute(_CARD_FACTS, {"game_id": game_id, "character": character})
    return [cardrules.StoredCard(*row) for row in rows]


def ledger_for(ruleset: str, character: str, cards: Sequence[Card]) -> CardLedger:
    """The penalties module's ledger for stored cards."""
    return cardrules.ledger_of(
        ruleset,
        character,
        [
            cardrules.StoredCard(c.id, c.colour, c.source, c.category, c.reason, c.day)
            for c in cards
        ],
    )


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
    for post, screen in zip(posts, screened, strict=True):
        forum_id = post["forum_post_id"]
        if forum_id in existing:
            order.append((forum_id, True))
            continue
        author = post["author"]
        zombie = not locked.game.state.is_alive(author) and post["thread"] in zombie_threads
        vote = _vote_from_post(locked, post) if post["thread"] == "vote" and not zombie else None
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
    for post in posts:
        forum_id = post["forum_post_id"]
        duplicate = forum_id in seen or forum_id not in inserted
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


# ---------------------------------------------------------------------------------------------
# Cards, escalation, ejection


@dataclass
class CardOutcome:
    """What issuing one card did: the cards stored (incl. escalations) and any ejection."""

    cards: list[Card] = field(default_factory=list)
    ejected: dict[str, Any] | None = None


def issue_card(
    locked: LockedGame,
    *,
    character: str,
    colour: str,
    category: str | None,
    reason: str,
    source: str,
    issued_by: str,
    day: int,
    decision_id: int | None = None,
    faction_lost: bool = False,
) -> CardOutcome:
    """Add a card to ``character``'s ledger, store its escalations, eject on red."""
    session, row = locked.session, locked.row
    try:
        cardrules.check_cardable(
            row.ruleset, colour, eliminated=not locked.game.state.is_alive(character)
        )
    except GameRuleError as exc:
        raise Conflict(exc.message, rule=exc.rule) from exc
    previous = stored_cards(session, row.id, character)
    ledger = ledger_for(row.ruleset, character, previous)
    _, steps = cardrules.add_card(
        row.ruleset, ledger, colour, reason, source=source, category=category, day=day
    )
    now = utcnow()
    card = Card(
        game_id=row.id,
        character=character,
        colour=colour,
        source=source,
        category=category,
        decision_id=decision_id,
        escalated_from=[],
        reason=reason,
        issued_by=issued_by,
        day=day,
        created_at=now,
    )
    session.add(card)
    session.flush()
    outcome = CardOutcome(cards=[card])
    audit(
        session,
        row.id,
        issued_by,
        "card",
        {"card_id": card.id, "character": character, "colour": colour, "reason": reason,
         "source": source, "category": category},
    )  # fmt: skip
    # Ledger positions -> row ids: the rows in id order are the ledger's cards in order.
    row_ids = [c.id for c in previous] + [card.id]
    for step in steps:
        merged = [row_ids[i] for i in step.merged_positions]
        esc = Card(
            game_id=row.id,
            character=character,
            colour=step.colour,
            source="escalation",
            category=None,
            decision_id=decision_id,
            escalated_from=merged,
            reason=step.reason,
            issued_by="system",
            day=day,
            created_at=now,
        )
        session.add(esc)
        session.flush()
        row_ids.append(esc.id)
        assert len(row_ids) == step.position + 1, "ledger and stored cards out of step"
        outcome.cards.append(esc)
        audit(
            session,
            row.id,
            "system",
            "escalation",
            {"card_id": esc.id, "character": character, "colour": step.colour, "merged": merged,
             "reason": step.reason},
        )  # fmt: skip
    red = next((c for c in outcome.cards if c.colour == cardrules.RED), None)
    if red is not None:
        outcome.ejected = _eject(
            locked, character, public_cause(row.ruleset, red), issued_by, faction_lost
        )
    return outcome


def public_cause(ruleset: str, card: Card) -> str:
    """The cause recorded in the public game log: the article or the escalation, never the
    director's note or private evidence."""
    if card.source == "escalation":
        return card.reason
    article = cardrules.category_article(ruleset, card.category or "other")
    if article is not None:
        return article["cite"]
    return cardrules.category_name(card.category or "other")


def _eject(
    locked: LockedGame, character: str, reason: str, actor: str, faction_lost: bool
) -> dict[str, Any]:
    """红牌罚下 through the game core; the announcement is public at once."""
    game = locked.game
    if game.state.ended:
        detail = {"character": character, "applied": False, "message": "游戏已经结束，红牌仅记录"}
        audit(locked.session, locked.row.id, actor, "ejection", detail)
        return detail
    was_alive = game.state.is_alive(character)
    events = locked.apply(act.Eject(character, reason, faction_lost))
    announcements = [e.text for e in events if isinstance(e, Announced)]
    detail = {
        "character": character,
        "applied": True,
        "was_alive": was_alive,
        # False when the ruleset times the exit after the day's vote (M72)
        "eliminated_now": any(isinstance(e, Eliminated) for e in events),
        "faction_lost": faction_lost,
        "announcements": announcements,
        "game_ended": game.state.ended,
    }
    audit(locked.session, locked.row.id, actor, "ejection", detail)
    return detail


def give_card(
    locked: LockedGame,
    *,
    character: str,
    category: str,
    colour: str,
    reason: str,
    day: int | None,
    faction_lost: bool,
    actor: str,
) -> dict[str, Any]:
    """A card given directly (串号/作弊 → red ...): recorded as a manual suggestion and decided at
    once, so it has the same audit trail, ledger arithmetic and ejection as any other ruling."""
    suggestion = Suggestion(
        game_id=locked.row.id,
        post_id=None,
        character=character,
        kind="manual",
        category=category,
        colour=colour,
        reasons=[{"article": cardrules.category_article(locked.ruleset, category), "text": reason}],
        day=locked.game.state.day if day is None else day,
        status="pending",
        created_at=utcnow(),
    )
    locked.session.add(suggestion)
    locked.session.flush()
    return decide(
        locked,
        suggestion,
        action="confirm",
        colour=None,
        note=reason,
        faction_lost=faction_lost,
        actor=actor,
    )


def decide(
    locked: LockedGame,
    suggestion: Suggestion,
    *,
    action: str,
    colour: str | None,
    note: str,
    faction_lost: bool,
    actor: str,
) -> dict[str, Any]:
    """The director's ruling on a suggestion: store it, issue the card, learn from it."""
    session, row = locked.session, locked.row
    if suggestion.status != "pending":
        raise Conflict(f"建议 {suggestion.id} 已经裁决过了", rule="already_decided")
    if action == "confirm":
        if colour is not None and colour != suggestion.colour:
            raise BadRequest(
                "confirm 保持建议的牌色；要换牌色请用 change",
                path="$.colour",
            )
        final = suggestion.colour
    elif action == "dismiss":
        if colour not in (None, cardrules.GREEN):
            raise BadRequest("dismiss 即绿牌（不违规），不能另给牌色", path="$.colour")
        final = cardrules.GREEN
    else:
        if colour is None:
            raise BadRequest("change 需要给出牌色", path="$.colour")
        final = colour
    if faction_lost and final != cardrules.RED:
        raise BadRequest("只有红牌可以附带判负（faction_lost）", path="$.faction_lost")
    if faction_lost and not cardrules.may_declare_faction_lost(row.ruleset):
        raise Conflict("本场规则不允许随红牌判负阵营", rule="red_faction_lost_not_allowed")
    decision = Decision(
        game_id=row.id,
        suggestion_id=suggestion.id,
        action=action,
        colour=final,
        note=note,
        faction_lost=faction_lost,
        decided_by=actor,
        decided_at=utcnow(),
    )
    session.add(decision)
    session.flush()
    suggestion.status = "decided"
    audit(
        session,
        row.id,
        actor,
        "decision",
        {
            "decision_id": decision.id,
            "suggestion_id": suggestion.id,
            "character": suggestion.character,
            "action": action,
            "suggested": suggestion.colour,
            "colour": final,
            "note": note,
            "faction_lost": faction_lost,
        },
    )
    outcome = CardOutcome()
    if final != cardrules.GREEN:
        reason = card_reason(suggestion, note, row.ruleset)
        outcome = issue_card(
            locked,
            character=suggestion.character,
            colour=final,
            category=suggestion.category,
            reason=reason,
            source="decision",
            issued_by=actor,
            day=suggestion.day,
            decision_id=decision.id,
            faction_lost=faction_lost,
        )
    post = session.get(Post, suggestion.post_id) if suggestion.post_id is not None else None
    if post is not None and suggestion.kind == "post":
        labels = (
            []
            if final == cardrules.GREEN
            else sorted({f["category"] for f in post.findings if f["category"] in TEXT_CATEGORIES})
        )
        session.add(
            LabelledExampleRow(
                game_id=row.id,
                decision_id=decision.id,
                ruleset=row.ruleset,
                text=post.body,
                labels=labels,
                created_at=utcnow(),
            )
        )
    return {
        "decision": decision_json(decision),
        "cards": [card_json(c) for c in outcome.cards],
        "ejected": outcome.ejected,
        "outcome": locked.game.outcome().to_dict(),
    }


def card_reason(suggestion: Suggestion, note: str, suggestion_ruleset: str) -> str:
    """The Chinese reason written on a card: the article cited, the evidence, the note."""
    parts: list[str] = []
    cited = next(
        (r["article"]["cite"] for r in suggestion.reasons
         if isinstance(r.get("article"), dict) and r["article"].get("cite")),
        None,
    )  # fmt: skip
    parts.append(cited or cardrules.category_name(suggestion.category))
    evidence = [r["text"] for r in suggestion.reasons if "finding" in r]
    if evidence:
        parts.append("、".join(evidence))
    elif suggestion.kind in ("zombie", "activity"):
        parts.append(str(suggestion.reasons[0].get("text", "")))
    if note:
        parts.append(f"{cardrules.rules(suggestion_ruleset).director}备注：{note}")
    return "；".join(p for p in parts if p)


def find_suggestion(session: Session, suggestion_id: int) -> Suggestion:
    """The suggestion, or 404."""
    found = session.get(Suggestion, suggestion_id)
    if found is None:
        raise NotFound(f"没有这条建议：{suggestion_id}")
    return found


# ---------------------------------------------------------------------------------------------
# Closing a day: the fixed activity penalties


def activity_counts(
    session: Session, game_id: str
) -> tuple[dict[int, dict[str, int]], dict[int, dict[str, int]]]:
    """Non-water and water posts (诈尸 excluded) per day and character."""
    rows = session.execute(
        select(Post.day, Post.author, Post.is_water, func.count())
        .where(Post.game_id == game_id, Post.zombie.is_(False))
        .group_by(Post.day, Post.author, Post.is_water)
    )
    counts: dict[int, dict[str, int]] = {}
    water: dict[int, dict[str, int]] = {}
    for day, author, is_water, n in rows:
        target = water if is_water else counts
        target.setdefault(int(day), {})[author] = int(n)
    return counts, water


#: engine flags that name characters who missed a required action, with the seed's wording
MISSED_ACTION_FLAGS = {
    "missed_leader_vote": "第一个游戏日关门二十分钟后，狼人未提交选举狼头的选票，均不计票，计黄牌",
}


def close_night(locked: LockedGame, *, actor: str) -> dict[str, Any]:
    """Close the night; characters the engine reports as missing a required action get the
    seed's fixed yellow (M08: 争权<强制> not voted)."""
    state = locked.game.state
    if state.phase != "night":
        raise Conflict(
            f"现在是第{state.day}天{phase_name(state.phase)}，不能关闭夜晚", rule="wrong_phase"
        )
    day = state.day
    events = locked.apply(act.EndNight())
    audit(locked.session, locked.row.id, actor, "close_night", {"day": day})
    cards: list[dict[str, Any]] = []
    ejections: list[dict[str, Any]] = []
    for event in events:
        if not isinstance(event, FlagSet) or event.key not in MISSED_ACTION_FLAGS:
            continue
        article = cardrules.category_article(locked.ruleset, "missed_action")
        cite = f"判罚依据{article['code']}：" if article else ""
        for character in event.value or ():
            outcome = issue_card(
                locked,
                character=character,
                colour=cardrules.YELLOW,
                category="missed_action",
                reason=f"{cite}{MISSED_ACTION_FLAGS[event.key]}",
                source="fixed",
                issued_by="system",
                day=day,
            )
            cards.extend(card_json(c) for c in outcome.cards)
            if outcome.ejected:
                ejections.append(outcome.ejected)
    return {
        "closed": {"phase": "night", "day": day},
        "announcements": [e.text for e in events if isinstance(e, Announced)],
        "cards": cards,
        "suggestions": [],
        "ejected": ejections,
    }


def close_day(
    locked: LockedGame, *, at: datetime | None, accelerated: bool, review: bool, actor: str
) -> dict[str, Any]:
    """Close the current day: the vote result, then lurking / no-vote yellows (潜水)."""
    state = locked.game.state
    if state.phase != "day":
        raise Conflict(
            f"现在是第{state.day}天{phase_name(state.phase)}，不能关闭白天", rule="wrong_phase"
        )
    day = state.day
    carded = set(state.flags.get("deferred_cards") or ())
    subjects = [c for c in state.living() if c not in carded]
    voted = set(state.ballots)
    accelerated = accelerated or bool(state.flags.get("accelerated"))
    events = locked.apply(act.CloseDay(at))
    session, row = locked.session, locked.row
    accelerated_days = sorted(
        {*row.accelerated_days, day} if accelerated else set(row.accelerated_days)
    )
    row.accelerated_days = accelerated_days
    counts, water = activity_counts(session, row.id)
    penalties = cardrules.activity(
        row.ruleset,
        day=day,
        subjects=subjects,
        voted=voted,
        counts=counts,
        water=water,
        accelerated_days=set(accelerated_days),
    )
    audit(
        session,
        row.id,
        actor,
        "close_day",
        {"day": day, "accelerated": accelerated, "penalties": len(penalties)},
    )
    issued: list[dict[str, Any]] = []
    queued: list[dict[str, Any]] = []
    ejections: list[dict[str, Any]] = []
    for p in penalties:
        if review:
            s = Suggestion(
                game_id=row.id,
                post_id=None,
                character=p.character,
                kind="activity",
                category=p.category,
                colour=p.colour,
                reasons=[{"article": p.article, "text": p.reason}],
                day=day,
                status="pending",
                created_at=utcnow(),
            )
            session.add(s)
            session.flush()
            queued.append(suggestion_json(s))
            continue
        outcome = issue_card(
            locked,
            character=p.character,
            colour=p.colour,
            category=p.category,
            reason=p.reason,
            source="fixed",
            issued_by="system",
            day=day,
        )
        issued.extend(card_json(c) for c in outcome.cards)
        if outcome.ejected:
            ejections.append(outcome.ejected)
    return {
        "closed": {"phase": "day", "day": day},
        "announcements": [e.text for e in events if isinstance(e, Announced)],
        "cards": issued,
        "suggestions": queued,
        "ejected": ejections,
    }
