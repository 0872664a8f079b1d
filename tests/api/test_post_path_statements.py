"""The single-post path's statements, and the answers it owes in order: 404, 401, then 429.

The post is charged to its token's rate limit first, in a transaction of its own, before it is
screened. Then, on SQLite, one upsert (adding nothing) reads the game's version and the token's
revocation; on PostgreSQL the share lock does. A post refused with 429 changes nothing: no post
stored, no rate-limit unit spent.
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from sqlalchemy import text

from api.auth import DIRECTOR, hash_token
from api.store import lock_game
from api.tokens import revoke_live
from models.types import utcnow


def _post(forum_id: str, body: str = "站边软件5") -> dict[str, Any]:
    return {
        "forum_post_id": forum_id,
        "author": "软件2",
        "thread": "discussion",
        "day": 1,
        "body": body,
        "posted_at": "2026-11-29T20:00:00+08:00",
    }


def _stored(app: Flask, auth: dict[str, str]) -> tuple[list[str], int]:
    """Forum ids stored, and posting units spent by the token in ``auth``."""
    digest = hash_token(auth["Authorization"].removeprefix("Bearer "))
    with app.extensions["bansha_db"].read() as session:
        ids = session.execute(text("SELECT forum_post_id FROM posts ORDER BY id")).scalars()
        spent = session.execute(
            text("SELECT coalesce(sum(count), 0) FROM rate_windows WHERE token_hash = :h"),
            {"h": digest},
        ).scalar()
        return list(ids), int(spent or 0)


def test_a_clean_post_runs_the_fewest_statements_in_lock_order(
    any_app: Flask, dealt_game: Any, statements: Any
) -> None:
    gid, auth = dealt_game(any_app, "statements")
    client = any_app.test_client()
    assert (
        client.post(f"/api/games/{gid}/posts", json=_post("warm"), headers=auth).status_code == 200
    )
    database = any_app.extensions["bansha_db"]
    with statements(any_app) as seen:
        r = client.post(f"/api/games/{gid}/posts", json=_post("clean-1"), headers=auth)
    assert r.status_code == 200 and r.get_json()["duplicate"] is False
    if database.is_sqlite:
        begin, charged, begin_again, read, stored = seen
        assert begin == begin_again == "BEGIN IMMEDIATE"
        assert read.startswith("INSERT INTO RATE_WINDOWS") and "RETURNING" in read
        assert "FROM GAMES" in read and "FROM TOKENS" in read
    else:
        charged, locked, stored = seen
        assert locked.startswith("SELECT GAMES.VERSION") and "FOR SHARE" in locked
        assert "FROM TOKENS" in locked
    assert charged.startswith("INSERT INTO RATE_WINDOWS") and "FROM GAMES" not in charged
    assert stored.startswith("INSERT INTO POSTS") and "ON CONFLICT" in stored
    assert _stored(any_app, auth) == (["warm", "clean-1"], 2)


def test_a_post_over_the_rate_limit_is_refused_and_stores_nothing(
    any_url: str, dealt_game: Any, make_app: Any
) -> None:
    app = make_app(any_url, RATE_LIMIT_POSTS=(2, 3600))
    gid, auth = dealt_game(app, "limited")
    client = app.test_client()
    url = f"/api/games/{gid}/posts"
    assert [client.post(url, json=_post(f"p{i}"), headers=auth).status_code for i in range(2)]
    refused = client.post(url, json=_post("p2", "你个ＳＢ"), headers=auth)
    assert refused.status_code == 429
    assert refused.get_json()["error"]["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) > 0
    assert _stored(app, auth) == (["p0", "p1"], 2)  # neither the post nor a unit spent
    queue = client.get(f"/api/games/{gid}/suggestions", headers=auth).get_json()
    assert queue["suggestions"] == []  # the offending post left no suggestion either


def test_a_revoked_token_at_its_limit_is_told_it_is_revoked(
    any_url: str, dealt_game: Any, make_app: Any
) -> None:
    app = make_app(any_url, RATE_LIMIT_POSTS=(1, 3600))
    gid, auth = dealt_game(app, "revoked")
    client = app.test_client()
    url = f"/api/games/{gid}/posts"
    assert client.post(url, json=_post("p0"), headers=auth).status_code == 200  # cached now
    with app.extensions["bansha_db"].write() as session:
        lock_game(session, gid)
        assert revoke_live(session, gid, DIRECTOR, None, utcnow())
    refused = client.post(url, json=_post("p1"), headers=auth)
    assert refused.status_code == 401  # not 429, though the limit is reached as well
    assert refused.get_json()["error"]["code"] == "token_revoked"
    assert _stored(app, auth) == (["p0"], 1)
