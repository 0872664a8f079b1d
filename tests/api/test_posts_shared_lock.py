"""Posts outside the vote thread: stored under a share lock with one ``INSERT ... ON CONFLICT``.

They add rows but no game events, so they share-lock the game row (PostgreSQL ``FOR SHARE``;
SQLite's write transaction is exclusive anyway): concurrent retries are still stored once, a writer
holding the exclusive lock (a red card, a day close) still excludes them, and they do not exclude
each other.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from flask import Flask

from api.gameplay import GameCache
from api.ingest import ingest_unvoted_posts

PLAYERS = [f"软件{i}" for i in range(1, 13)]


# ``any_app`` (conftest) runs a test on SQLite and on PostgreSQL.


def _post(forum_id: str, author: str, body: str, thread: str = "discussion") -> dict[str, Any]:
    return {
        "forum_post_id": forum_id,
        "author": author,
        "thread": thread,
        "day": 1,
        "body": body,
        "posted_at": "2026-11-29T20:00:00+08:00",
    }


def test_concurrent_retries_of_one_post_store_it_once(
    any_app: Flask, concurrently: Any, dealt_game: Any
) -> None:
    gid, auth = dealt_game(any_app, "retry-one")
    post = _post("same-1", "软件3", "你个ＳＢ，别乱跳")

    def send(_: int) -> tuple[int, Any]:
        r = any_app.test_client().post(f"/api/games/{gid}/posts", json=post, headers=auth)
        return r.status_code, r.get_json()

    results = concurrently(6, send)
    assert [s for s, _ in results] == [200] * 6
    assert sorted(b["duplicate"] for _, b in results) == [False] + [True] * 5
    assert len({b["post_id"] for _, b in results}) == 1
    # the duplicates are answered with the stored suggestion, which exists once
    assert len({b["suggestion"]["id"] for _, b in results}) == 1
    queue = any_app.test_client().get(f"/api/games/{gid}/suggestions", headers=auth).get_json()
    assert len(queue["suggestions"]) == 1


def test_concurrent_batches_sharing_ids_in_any_order_store_each_once(
    any_app: Flask, concurrently: Any, dealt_game: Any
) -> None:
    gid, auth = dealt_game(any_app, "retry-batch")
    posts = [
        _post(f"b-{i}", PLAYERS[i % 12], f"第{i}帖：你个ＳＢ" if i % 3 == 0 else f"第{i}帖，过")
        for i in range(24)
    ]
    orders = [posts, posts[::-1], posts[12:] + posts[:12], posts[1::2] + posts[::2]]

    def send(i: int) -> tuple[int, Any]:
        r = any_app.test_client().post(
            f"/api/games/{gid}/posts", json={"posts": orders[i]}, headers=auth
        )
        return r.status_code, r.get_json()

    results = concurrently(len(orders), send)
    assert [s for s, _ in results] == [200] * len(orders)  # no deadlock, no error
    fresh = [r["forum_post_id"] for _, b in results for r in b["results"] if not r["duplicate"]]
    assert sorted(fresh) == sorted(p["forum_post_id"] for p in posts)
    for (_, body), order in zip(results, orders, strict=True):  # answered in request order
        assert [r["forum_post_id"] for r in body["results"]] == [p["forum_post_id"] for p in order]
    ids = {r["forum_post_id"]: r["post_id"] for _, b in results for r in b["results"]}
    assert len(set(ids.values())) == len(posts)
    queue = any_app.test_client().get(f"/api/games/{gid}/suggestions", headers=auth).get_json()
    assert len(queue["suggestions"]) == 8  # one per offending post, never doubled


def test_a_clean_discussion_post_is_one_insert_and_no_exclusive_lock(
    any_app: Flask, dealt_game: Any, statements: Any
) -> None:
    gid, auth = dealt_game(any_app, "statements")
    client = any_app.test_client()
    client.post(f"/api/games/{gid}/posts", json=_post("warm", "软件1", "过"), headers=auth)
    database = any_app.extensions["bansha_db"]
    with statements(any_app) as seen:
        r = client.post(
            f"/api/games/{gid}/posts", json=_post("clean-1", "软件2", "站边软件5"), headers=auth
        )
    assert r.status_code == 200 and r.get_json()["duplicate"] is False
    assert not any("FOR UPDATE" in s for s in seen)
    assert not any(s.startswith("SELECT POSTS.") for s in seen)  # no look-up before the insert
    inserts = [s for s in seen if s.startswith("INSERT INTO POSTS")]
    assert len(inserts) == 1 and "ON CONFLICT" in inserts[0]
    if database.is_sqlite:
        assert seen[0] == "BEGIN IMMEDIATE"
    else:
        assert any("FOR SHARE" in s for s in seen)


@pytest.mark.postgres
def test_postgres_posts_wait_for_a_writer_but_not_for_each_other(
    pg_app: tuple[Flask, Any], dealt_game: Any
) -> None:
    import psycopg

    app, schema = pg_app
    gid, auth = dealt_game(app, "share")
    done: list[int] = []

    def send(forum_id: str) -> threading.Thread:
        def run() -> None:
            r = app.test_client().post(
                f"/api/games/{gid}/posts", json=_post(forum_id, "软件4", "过"), headers=auth
            )
            done.append(r.status_code)

        thread = threading.Thread(target=run)
        thread.start()
        return thread

    with psycopg.connect(schema.dsn) as other:
        # another post's share lock does not hold this post up
        other.execute(f'SELECT version FROM "{schema.name}".games WHERE id = %s FOR SHARE', (gid,))
        thread = send("s-1")
        thread.join(timeout=30)
        assert done == [200]
        other.rollback()
        # a writer's exclusive lock does: the post waits until the writer commits
        other.execute(f'SELECT version FROM "{schema.name}".games WHERE id = %s FOR UPDATE', (gid,))
        thread = send("s-2")
        thread.join(timeout=1.0)
        assert thread.is_alive() and done == [200]
        other.commit()
        thread.join(timeout=30)
        assert done == [200, 200]


def test_zombie_posts_still_found_under_the_share_lock(any_app: Flask, dealt_game: Any) -> None:
    gid, auth = dealt_game(any_app, "zombie")
    client = any_app.test_client()
    red = client.post(
        f"/api/games/{gid}/cards",
        json={"character": "软件6", "colour": "red", "category": "other", "reason": "测试"},
        headers=auth,
    )
    assert red.status_code == 201
    closed = client.post(f"/api/games/{gid}/advance", json={"close": "day"}, headers=auth)
    assert closed.status_code == 200  # M72 ejects a red-carded character when the day closes
    r = client.post(f"/api/games/{gid}/posts", json=_post("z-1", "软件6", "我还在"), headers=auth)
    body = r.get_json()
    assert body["zombie"] is True and body["counts_activity"] is False
    assert body["suggestion"]["kind"] == "zombie"


def test_vote_posts_are_refused_by_the_shared_path() -> None:
    with pytest.raises(ValueError, match="vote-thread"):
        ingest_unvoted_posts(None, "g", "m72", None, [_post("v", "软件1", "投票", "vote")], [])  # type: ignore[arg-type]


def test_peek_leaves_the_game_cached_and_matches_the_version_only() -> None:
    cache = GameCache(4)
    game: Any = object()
    cache.put("g", 3, game)
    assert cache.peek("g", 2) is None
    assert cache.peek("g", 3) is game
    assert cache.peek("g", 3) is game  # still there
    assert cache.take("g", 3) is game
    assert cache.peek("g", 3) is None
