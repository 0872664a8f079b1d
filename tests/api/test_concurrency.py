"""Concurrent requests against a real server: escalations are never lost or doubled.

Runs on SQLite (BEGIN IMMEDIATE) and, when reachable, on PostgreSQL (SELECT ... FOR UPDATE), each
in its own schema that is dropped afterwards so reruns start clean.
"""

from __future__ import annotations

import http.client
import json
from typing import Any

from flask import Flask

PLAYERS = [f"软件{i}" for i in range(1, 13)]
ROLES = dict(
    zip(
        PLAYERS,
        [
            "wolf",
            "wolf_cub",
            "madman",
            "madman",
            "fox",
            "seer",
            "medium",
            "guard",
            "crow_big",
            "crow_small",
            "villager",
            "villager",
        ],
        strict=True,
    )
)


# ``any_app`` (conftest) runs a test on SQLite and on PostgreSQL; ``serve`` and
# ``concurrently`` (conftest) make the requests overlap.


def request(
    port: int, method: str, path: str, token: str | None, body: Any = None
) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    conn.request(method, path, body=data, headers=headers)
    response = conn.getresponse()
    payload = json.loads(response.read() or b"null")
    conn.close()
    return response.status, payload


def test_concurrent_cards_for_one_player_escalate_exactly(
    any_app: Flask, serve: Any, concurrently: Any
) -> None:
    with serve(any_app) as port:
        status, game = request(
            port,
            "POST",
            "/api/games",
            None,
            {"ruleset": "m72", "players": PLAYERS, "roles": ROLES, "seed": "c"},
        )
        assert status == 201
        token, gid = game["director_token"], game["id"]
        body = {"character": "软件11", "colour": "blue", "category": "other", "reason": "并发"}
        results = concurrently(
            9, lambda i: request(port, "POST", f"/api/games/{gid}/cards", token, body)
        )
        assert [s for s, _ in results] == [201] * 9
        status, cards = request(port, "GET", f"/api/games/{gid}/cards", token)
        led = next(p for p in cards["players"] if p["character"] == "软件11")
        colours = [c["colour"] for c in led["cards"]]
        # 9 blues -> 3 yellows -> 1 red: none lost, none doubled
        assert colours.count("blue") == 9
        assert colours.count("yellow") == 3
        assert colours.count("red") == 1
        assert led["active"] == {"blue": 0, "yellow": 0, "red": 1}
        merged = [i for e in led["escalations"] for i in e["escalated_from"]]
        assert len(merged) == len(set(merged)) == 12  # each card merged at most once
        ejections = [r["ejected"] for _, r in results if r["ejected"]]
        assert len(ejections) == 1
        status, feed = request(port, "GET", f"/api/games/{gid}/announcements", None)
        texts = [a["text"] for a in feed["announcements"]]
        assert texts.count("软件11被红牌罚下") == 1


def test_one_suggestion_decided_concurrently_is_decided_once(
    any_app: Flask, serve: Any, concurrently: Any
) -> None:
    with serve(any_app) as port:
        status, game = request(
            port,
            "POST",
            "/api/games",
            None,
            {"ruleset": "m72", "players": PLAYERS, "roles": ROLES, "seed": "d"},
        )
        token, gid = game["director_token"], game["id"]
        status, closed = request(
            port,
            "POST",
            f"/api/games/{gid}/advance",
            token,
            {"close": "day", "review_penalties": True},
        )
        assert status == 200
        sid = closed["suggestions"][0]["id"]
        results = concurrently(
            6,
            lambda i: request(
                port,
                "POST",
                f"/api/suggestions/{sid}/decision",
                token,
                {"action": "confirm", "note": f"#{i}"},
            ),
        )
        statuses = sorted(s for s, _ in results)
        assert statuses == [200, 409, 409, 409, 409, 409]
        status, cards = request(port, "GET", f"/api/games/{gid}/cards", token)
        total = sum(len(p["cards"]) for p in cards["players"])
        assert total == 1


def test_concurrent_decisions_on_different_suggestions_of_one_player(
    any_app: Flask, serve: Any, concurrently: Any
) -> None:
    with serve(any_app) as port:
        status, game = request(
            port,
            "POST",
            "/api/games",
            None,
            {"ruleset": "m72", "players": PLAYERS, "roles": ROLES, "seed": "e"},
        )
        token, gid = game["director_token"], game["id"]
        # three days of nobody posting or voting, all queued for review: 2 yellows a day each
        sids: list[int] = []
        for _ in range(2):
            status, closed = request(
                port,
                "POST",
                f"/api/games/{gid}/advance",
                token,
                {"close": "day", "review_penalties": True},
            )
            assert status == 200, closed
            sids += [s["id"] for s in closed["suggestions"] if s["character"] == "软件12"]
            status, _ = request(
                port, "POST", f"/api/games/{gid}/advance", token, {"close": "night"}
            )
            assert status == 200
        assert len(sids) == 4
        results = concurrently(
            4,
            lambda i: request(
                port, "POST", f"/api/suggestions/{sids[i]}/decision", token, {"action": "confirm"}
            ),
        )
        assert [s for s, _ in results] == [200] * 4
        status, cards = request(port, "GET", f"/api/games/{gid}/cards", token)
        led = next(p for p in cards["players"] if p["character"] == "软件12")
        colours = [c["colour"] for c in led["cards"]]
        assert colours.count("yellow") == 4 and colours.count("red") == 1
        assert led["active"] == {"blue": 0, "yellow": 1, "red": 1}
        assert sum(1 for _, r in results if r["ejected"]) == 1


def test_concurrent_retries_of_one_batch_store_each_post_once(
    any_app: Flask, serve: Any, concurrently: Any
) -> None:
    with serve(any_app) as port:
        body = {"ruleset": "m72", "players": PLAYERS, "roles": ROLES, "seed": "f"}
        status, game = request(port, "POST", "/api/games", None, body)
        token, gid = game["director_token"], game["id"]
        posts = [
            {
                "forum_post_id": f"retry-{i}",
                "author": PLAYERS[i % 12],
                "thread": "vote" if i == 0 else "discussion",
                "day": 1,
                "body": "投票对象：软件12\n投票理由：划水" if i == 0 else f"第{i}帖：你个ＳＢ",
                "posted_at": "2026-11-29T20:00:00+08:00",
            }
            for i in range(20)
        ]
        results = concurrently(
            4,
            lambda i: request(port, "POST", f"/api/games/{gid}/posts", token, {"posts": posts}),
        )
        assert [s for s, _ in results] == [200] * 4
        fresh = [r for _, body in results for r in body["results"] if not r["duplicate"]]
        assert sorted(r["forum_post_id"] for r in fresh) == sorted(
            p["forum_post_id"] for p in posts
        )
        status, queue = request(port, "GET", f"/api/games/{gid}/suggestions", token)
        assert len(queue["suggestions"]) == 19  # one per offending post, never doubled
        status, closed = request(port, "POST", f"/api/games/{gid}/advance", token, {"close": "day"})
        assert status == 200
        assert any("软件12获得1票" in a for a in closed["announcements"])  # the vote counted once
