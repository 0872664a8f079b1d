"""A forum post id names one post: a retry of it is a duplicate, another post under it is 409."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select

from models.cards import Suggestion
from models.posts import Post


def counts(app: Flask) -> tuple[int, int]:
    with app.extensions["bansha_db"].read() as session:
        posts = session.scalar(select(func.count()).select_from(Post)) or 0
        suggestions = session.scalar(select(func.count()).select_from(Suggestion)) or 0
        return int(posts), int(suggestions)


@pytest.mark.parametrize("thread", ["discussion", "vote"])  # the share-locked and the locked path
@pytest.mark.parametrize(
    "changed",
    [{"author": "软件2"}, {"body": "另一条帖子的正文"}, {"thread": "process"}],
    ids=["author", "body", "thread"],
)
def test_another_post_under_a_stored_id_is_409_with_the_stored_post(
    api: Any, game: dict[str, Any], app: Flask, thread: str, changed: dict[str, str]
) -> None:
    first = api.post(game, "软件1", "你个ＳＢ", forum_post_id="f-1", thread=thread)
    before = counts(app)
    body = {**api.post_body("软件1", "你个ＳＢ", forum_post_id="f-1", thread=thread), **changed}
    r = api.call("POST", f"/api/games/{game['id']}/posts", game["director_token"], body)
    assert r.status_code == 409
    error = r.get_json()["error"]
    assert error["rule"] == "post_id_reused" and "f-1" in error["message"]
    assert error["differs"] == list(changed)
    stored = error["stored"]
    assert stored["post_id"] == first["post_id"] and stored["author"] == "软件1"
    assert stored["body"] == "你个ＳＢ" and stored["thread"] == thread
    assert counts(app) == before  # nothing stored, no second suggestion
    # the identical retry is still a 200 duplicate
    again = api.post(game, "软件1", "你个ＳＢ", forum_post_id="f-1", thread=thread)
    assert again["duplicate"] is True and again["post_id"] == first["post_id"]


@pytest.mark.parametrize("thread", ["discussion", "vote"])
def test_a_batch_reusing_an_id_inside_itself_stores_nothing(
    api: Any, game: dict[str, Any], app: Flask, thread: str
) -> None:
    posts = [
        api.post_body("软件1", "第一条", forum_post_id="b-1", thread=thread),
        api.post_body("软件3", "新帖", forum_post_id="b-2", thread=thread),
        api.post_body("软件1", "第一条改过", forum_post_id="b-1", thread=thread),
    ]
    r = api.call("POST", f"/api/games/{game['id']}/posts", game["director_token"], {"posts": posts})
    assert r.status_code == 409
    error = r.get_json()["error"]
    assert error["index"] == 2 and error["differs"] == ["body"]
    assert error["stored"]["body"] == "第一条"
    assert counts(app) == (0, 0)
