"""``POST /api/games/{id}/posts``: ingest forum posts (one or a batch), screened and refereed."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify

from api import schemas
from api.auth import DIRECTOR, identify_cached, refuse_revoked, require
from api.database import db
from api.errors import ApiError, BadRequest, TooLarge
from api.ingest import ingest_posts, ingest_unvoted_posts
from api.locking import game_meta, locked_game, shared_game
from api.openapi import endpoint
from api.ratelimit import Budget, charge
from api.screening import PostTooLargeError, screen_posts

bp = Blueprint("posts", __name__)


@endpoint(
    bp,
    "POST",
    "/api/games/<game_id>/posts",
    summary="Ingest one post or a batch: screen, parse votes, detect 诈尸, suggest cards",
    auth=("director",),
    tag="posts",
    request_schema=schemas.POSTS_REQUEST,
    response=schemas.POSTS_RESPONSE,
    errors=(400, 401, 403, 404, 409, 413, 429),
    description="Idempotent by `forum_post_id`: a post already stored is answered from the "
    "database (`duplicate: true`) and changes nothing; the same id with another author, thread or "
    "body is 409 `post_id_reused` with the stored post in `error.stored`, and nothing of the "
    "batch is stored. A vote-thread post is parsed as a vote and "
    "cast; an invalid or rejected vote is reported in `vote` (the post is still stored). Water "
    "posts (纯水帖) do not count towards activity. Limits: MAX_BATCH posts per request, "
    "MAX_POST_CHARS characters per body (413 beyond), RATE_LIMIT_POSTS posts per window per token "
    "(429 beyond).",
)
def ingest(game_id: str, body: dict[str, Any]) -> Response:
    single = "posts" not in body
    posts: list[dict[str, Any]] = [body] if single else body["posts"]
    config = current_app.config
    if len(posts) > config["MAX_BATCH"]:
        raise TooLarge(f"一次提交{len(posts)}条帖子，超过上限{config['MAX_BATCH']}条")
    for i, post in enumerate(posts):
        if len(post["body"]) > config["MAX_POST_CHARS"]:
            raise TooLarge(
                f"帖子正文{len(post['body'])}字，超过上限{config['MAX_POST_CHARS']}字",
                path="$.body" if single else f"$.posts[{i}].body",
            )
    limit = config["RATE_LIMIT_POSTS"]
    # Immutable facts (what the token names, ruleset, characters) come from per-process caches, so
    # a post costs the rate limit's short transaction and one write transaction, which also
    # confirms the token is not revoked; screening runs between them, outside any lock.
    database = db()
    caller = identify_cached(database)
    # One pooled connection for both write transactions, the charge and the storing: a
    # checkout costs about as much as either transaction's statements.
    with database.write_engine.connect() as connection:
        try:
            meta = game_meta(game_id)
            require(caller, game_id, DIRECTOR)
            known = set(meta.characters)
            for i, post in enumerate(posts):
                if post["author"] not in known:
                    raise BadRequest(
                        f"本场游戏（{game_id}）没有名为「{post['author']}」的角色",
                        path="$.author" if single else f"$.posts[{i}].author",
                    )
            # Charged before screening (a 1.85 MB batch costs seconds of CPU), answered after the
            # 404/401/403 above; a 429 here still becomes a 401 below for a revoked token.
            assert caller.token_hash is not None
            charge(database, Budget.POSTS, caller.token_hash, len(posts), limit, connection)
            try:
                screened = screen_posts(
                    meta.ruleset, [p["body"] for p in posts], config.get("USE_CLASSIFIER", True)
                )
            except PostTooLargeError as exc:
                raise TooLarge(str(exc)) from exc
        except ApiError:
            # The cached token may have been revoked since: then that is the answer, as it would
            # be for an uncached one (a read only on this error path; the write below checks it).
            with database.read() as session:
                refuse_revoked(session, caller)
            raise
        if any(p["thread"] == "vote" for p in posts):
            # Votes are game events: the game row is locked exclusively.
            with locked_game(game_id, caller) as (_session, locked):
                results = ingest_posts(locked, posts, screened)
        else:
            # Other posts only add rows and read the game (诈尸): a share lock is enough. Its cost
            # is 0: the posts were charged before screening.
            with shared_game(game_id, caller, 0, limit, connection) as (_, game):
                results = ingest_unvoted_posts(
                    connection, meta.id, meta.ruleset, game, posts, screened
                )
    return jsonify(results[0] if single else {"results": results})
