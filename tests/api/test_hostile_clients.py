"""A hostile client pays before it costs: rate limits on every write, charged before any work,
per client (token, else address), held in the database for every worker."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select

from api import posts as posts_module
from models.game import Game as GameRow

M72 = [f"软件{i}" for i in range(1, 13)]
#: a window no test run crosses (fixed windows start at multiples of their length: with an hour,
#: a test running at 21:00 would see its count start again)
WINDOW = 10**8


def _game_body(seed: str = "s") -> dict[str, Any]:
    return {"ruleset": "m72", "players": M72, "seed": seed}


def _games(app: Flask) -> int:
    with app.extensions["bansha_db"].read() as session:
        return int(session.scalar(select(func.count()).select_from(GameRow)) or 0)


def _post(i: int, body: str = "站边软件5") -> dict[str, Any]:
    return {
        "forum_post_id": f"p{i}",
        "author": "软件2",
        "thread": "discussion",
        "day": 1,
        "body": body,
        "posted_at": "2026-11-29T20:00:00+08:00",
    }


def _refused_with_429(response: Any, words: str) -> None:
    assert response.status_code == 429
    error = response.get_json()["error"]
    assert error["code"] == "rate_limited" and words in error["message"]
    assert int(response.headers["Retry-After"]) >= 1
    assert error["retry_after"] == int(response.headers["Retry-After"])


def test_game_creation_is_limited_per_client_address(make_app: Any, any_url: str) -> None:
    app = make_app(any_url, RATE_LIMIT_GAMES=(3, WINDOW))
    client = app.test_client()
    made = [client.post("/api/games", json=_game_body(f"a{i}")).status_code for i in range(3)]
    assert made == [201, 201, 201]
    refused = client.post("/api/games", json=_game_body("a3"))
    _refused_with_429(refused, "新建游戏过于频繁")
    assert _games(app) == 3  # the refused request dealt nothing and stored nothing
    # another address has its own budget
    other = client.post(
        "/api/games", json=_game_body("b"), environ_base={"REMOTE_ADDR": "10.0.0.9"}
    )
    assert other.status_code == 201


def test_a_second_worker_shares_the_game_creation_budget(make_app: Any, any_url: str) -> None:
    one = make_app(any_url, RATE_LIMIT_GAMES=(2, WINDOW))
    two = make_app(any_url, RATE_LIMIT_GAMES=(2, WINDOW))
    statuses = [
        (one if i % 2 else two).test_client().post("/api/games", json=_game_body(f"w{i}"))
        for i in range(3)
    ]
    assert [r.status_code for r in statuses] == [201, 201, 429]


def test_forwarded_for_is_believed_only_from_a_trusted_proxy(make_app: Any, db_url: str) -> None:
    direct = make_app(db_url, RATE_LIMIT_GAMES=(1, WINDOW))
    client = direct.test_client()
    assert client.post("/api/games", json=_game_body("d0")).status_code == 201
    # a client cannot pick a fresh budget by claiming another address
    spoofed = client.post(
        "/api/games", json=_game_body("d1"), headers={"X-Forwarded-For": "203.0.113.7"}
    )
    assert spoofed.status_code == 429
    proxied = make_app(db_url, RATE_LIMIT_GAMES=(1, WINDOW), TRUSTED_PROXIES=1)
    via_proxy = proxied.test_client()
    behind = {"X-Forwarded-For": "198.51.100.1"}
    assert via_proxy.post("/api/games", json=_game_body("p0"), headers=behind).status_code == 201
    assert via_proxy.post("/api/games", json=_game_body("p1"), headers=behind).status_code == 429
    # the proxy appends the address it saw: what the client wrote before it is ignored
    chained = {"X-Forwarded-For": "198.51.100.1, 198.51.100.2"}
    assert via_proxy.post("/api/games", json=_game_body("p2"), headers=chained).status_code == 201


def test_the_admin_token_is_one_client(make_app: Any, db_url: str) -> None:
    app = make_app(db_url, RATE_LIMIT_GAMES=(1, WINDOW), ADMIN_TOKEN="operator-secret")
    client = app.test_client()
    admin = {"Authorization": "Bearer operator-secret"}
    assert client.post("/api/games", json=_game_body("x"), headers=admin).status_code == 201
    _refused_with_429(
        client.post(
            "/api/games",
            json=_game_body("y"),
            headers=admin,
            environ_base={"REMOTE_ADDR": "10.1.1.1"},
        ),
        "新建游戏",
    )


def test_every_other_write_is_limited_per_token(
    make_app: Any, db_url: str, dealt_game: Any
) -> None:
    app = make_app(db_url, RATE_LIMIT_WRITES=(2, WINDOW))
    gid, auth = dealt_game(app, "writes")
    other_gid, other_auth = dealt_game(app, "writes-2")
    client = app.test_client()
    card = {"character": "软件3", "colour": "blue", "category": "other", "reason": "测试"}
    assert client.post(f"/api/games/{gid}/cards", json=card, headers=auth).status_code == 201
    assert client.post(f"/api/games/{gid}/cards", json=card, headers=auth).status_code == 201
    _refused_with_429(
        client.post(f"/api/games/{gid}/cards", json=card, headers=auth), "请求过于频繁"
    )
    with app.extensions["bansha_db"].read() as session:
        from models.cards import Card

        assert session.scalar(select(func.count()).select_from(Card)) == 2
    # another token, the same address: its own budget
    card_there = client.post(f"/api/games/{other_gid}/cards", json=card, headers=other_auth)
    assert card_there.status_code == 201
    # a made-up token opens no budget of its own: it is refused before it is charged
    forged = client.post(
        f"/api/games/{gid}/cards", json=card, headers={"Authorization": "Bearer made-up"}
    )
    assert forged.status_code == 401


def test_a_big_batch_over_the_limit_is_refused_before_it_is_screened(
    make_app: Any, db_url: str, dealt_game: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(db_url, RATE_LIMIT_POSTS=(500, WINDOW))
    gid, auth = dealt_game(app, "batch")
    screened: list[int] = []
    real = posts_module.screen_posts

    def counting(ruleset: str, bodies: list[str], use_classifier: bool) -> Any:
        screened.append(len(bodies))
        return real(ruleset, bodies, use_classifier)

    monkeypatch.setattr(posts_module, "screen_posts", counting)
    client = app.test_client()
    url = f"/api/games/{gid}/posts"
    assert client.post(url, json=_post(0), headers=auth).status_code == 200
    assert screened == [1]
    # 500 posts of 3,700 characters: a 1.85 MB body, over the 499 posts left in the window
    batch = {"posts": [_post(i, "分" + "a" * 3_699) for i in range(1, 501)]}
    raw = json.dumps(batch).encode()
    assert len(raw) > 1_850_000
    refused = client.post(url, data=raw, content_type="application/json", headers=auth)
    _refused_with_429(refused, "提交帖子过于频繁")
    assert screened == [1]  # not one of the 500 was screened


def test_a_refused_batch_leaves_the_budget_it_found(
    make_app: Any, db_url: str, dealt_game: Any
) -> None:
    app = make_app(db_url, RATE_LIMIT_POSTS=(3, WINDOW))
    gid, auth = dealt_game(app, "budget")
    client = app.test_client()
    url = f"/api/games/{gid}/posts"
    too_many = {"posts": [_post(i) for i in range(4)]}
    assert client.post(url, json=too_many, headers=auth).status_code == 429
    fits = {"posts": [_post(i) for i in range(3)]}
    assert client.post(url, json=fits, headers=auth).status_code == 200
