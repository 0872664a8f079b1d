"""``POST /api/games/{id}/posts``: ingest forum posts (one or a batch), screened and refereed."""

from __future__ import annotations

import time
from typing import Any

from flask import Blueprint, Response, current_app, jsonify
from sqlalchemy import select

from api import schemas
from api.auth import DIRECTOR, identify, require
from api.database import db
from api.errors import BadRequest, RateLimited, TooLarge
from api.openapi import endpoint
from api.ratelimit import consume
from api.referee import characters_of, ingest_posts, locked_game
from api.screening import PostTooLargeError, screen_posts
from api.store import get_game
from models.ratelimit import RateWindow

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
    errors=(400, 401, 403, 404, 413, 429),
    description="Idempotent by `forum_post_id`: a post already stored is answered from the "
    "database (`duplicate: true`) and changes nothing. A vote-thread post is parsed as a vote and "
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
        raise TooLarge(f"batch of {len(posts)} posts is over the limit of {config['MAX_BATCH']}")
    for i, post in enumerate(posts):
        if len(post["body"]) > config["MAX_POST_CHARS"]:
            raise TooLarge(
                f"post body of {len(post['body'])} characters is over the limit of "
                f"{config['MAX_POST_CHARS']}",
                path="$.body" if single else f"$.posts[{i}].body",
            )
    limit = config["RATE_LIMIT_POSTS"]
    with db().read() as session:
        caller = identify(session)
        row = get_game(session, game_id)
        require(caller, game_id, DIRECTOR)
        ruleset = row.ruleset
        known = set(characters_of(row))
        # Cheap early refusal before screening; the authoritative count is taken below.
        window = int(time.time() // limit[1])
        used = session.scalar(
            select(RateWindow.count).where(
                RateWindow.token_hash == caller.token_hash, RateWindow.window == window
            )
        )
        if used is not None and used + len(posts) > limit[0]:
            raise RateLimited(
                f"posting limit of {limit[0]} posts per {limit[1]} s reached for this token",
                retry_after=limit[1],
            )
    for i, post in enumerate(posts):
        if post["author"] not in known:
            raise BadRequest(
                f"unknown character {post['author']!r} in game {game_id}",
                path="$.author" if single else f"$.posts[{i}].author",
            )
    try:
        screened = screen_posts(
            ruleset, [p["body"] for p in posts], config.get("USE_CLASSIFIER", True)
        )
    except PostTooLargeError as exc:
        raise TooLarge(str(exc)) from exc
    assert caller.token_hash is not None
    with locked_game(game_id) as (session, locked):
        consume(session, caller.token_hash, len(posts), limit)
        results = ingest_posts(locked, posts, screened)
    return jsonify(results[0] if single else {"results": results})
