"""The registry under concurrent games, on SQLite and PostgreSQL (``any_url``): games created at
once with the same new player make one player, 替补 at once make one substitute, and games
finishing at once each leave their results and the player's record whole."""

from __future__ import annotations

import http.client
import json
from typing import Any

from flask import Flask
from sqlalchemy import func, select

from models.registry import CharacterResult, ForumPlayer, Seat

ADMIN = "concurrent-admin"
N = 4


def request(port: int, method: str, path: str, token: str, body: Any = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    response = conn.getresponse()
    payload = json.loads(response.read() or b"null")
    conn.close()
    return response.status, payload


def test_games_created_substituted_and_finished_at_once(
    any_url: str, make_app: Any, serve: Any, concurrently: Any
) -> None:
    app: Flask = make_app(any_url, ADMIN_TOKEN=ADMIN)
    players = [{"character": "软件1", "player": "并发玩家"}] + [f"软件{i}" for i in range(2, 13)]
    with serve(app) as port:
        created = concurrently(
            N,
            lambda i: request(
                port, "POST", "/api/games", ADMIN, {"ruleset": "m72", "players": players}
            ),
        )
        assert [status for status, _ in created] == [201] * N, created
        games = [body for _, body in created]

        def substitute(i: int) -> tuple[int, Any]:
            body = {"type": "substitute", "character": "软件2", "player": "并发替补"}
            return request(
                port, "POST", f"/api/games/{games[i]['id']}/actions", games[i]["director_token"],
                body,
            )  # fmt: skip

        assert [s for s, _ in concurrently(N, substitute)] == [200] * N

        def finish(i: int) -> tuple[int, Any]:
            body = {"type": "declare_faction_lost", "faction": "wolves"}
            return request(
                port, "POST", f"/api/games/{games[i]['id']}/actions", games[i]["director_token"],
                body,
            )  # fmt: skip

        finished = concurrently(N, finish)
        assert all(s == 200 and b["outcome"]["ended"] for s, b in finished), finished

        with app.extensions["bansha_db"].read() as session:
            for name in ("并发玩家", "并发替补"):
                ids = list(session.scalars(select(ForumPlayer.id).where(ForumPlayer.name == name)))
                assert len(ids) == 1, name
                seats = session.scalar(select(func.count(Seat.id)).where(Seat.player_id == ids[0]))
                assert seats == N, name
            for game in games:
                results = session.scalar(
                    select(func.count(CharacterResult.id)).where(
                        CharacterResult.game_id == game["id"]
                    )
                )
                assert results == 12
            pid = session.scalar(select(ForumPlayer.id).where(ForumPlayer.name == "并发玩家"))
        status, record = request(port, "GET", f"/api/registry/players/{pid}", ADMIN)
        assert status == 200 and record["games_played"] == N
        assert {g["game_id"] for g in record["games"]} == {g["id"] for g in games}
        assert all(g["result"] in ("win", "lose") for g in record["games"])
