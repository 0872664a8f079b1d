"""Creating games, and the service's error handling for malformed requests."""

from __future__ import annotations

import hashlib
from typing import Any

from flask import Flask
from sqlalchemy import func, select

from models.game import Game, GameEvent, Token


def count(app: Flask, model: Any) -> int:
    with app.extensions["bansha_db"].read() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


def test_create_game_returns_tokens_and_commitment(api: Any, app: Flask) -> None:
    game = api.make_game(seed="s1")
    assert len(game["id"]) == 16
    assert set(game["player_tokens"]) == set(api.M72_PLAYERS)
    assert len(game["commitment"]) == 64
    assert game["characters"] == api.M72_PLAYERS
    assert any(game["commitment"] in text for text in game["announcements"])
    with app.extensions["bansha_db"].read() as session:
        hashes = set(session.scalars(select(Token.token_hash)))
        # only hashes are stored, never the tokens
        assert hashlib.sha256(game["director_token"].encode()).hexdigest() in hashes
        assert game["director_token"] not in hashes
        row = session.get(Game, game["id"])
        assert row is not None and row.version == count(app, GameEvent) > 0


def test_the_same_seed_twice_gives_two_commitments(api: Any) -> None:
    # each game draws its own server secret, so the director's seed alone fixes nothing
    a = api.make_game(seed="same", roles={})
    b = api.make_game(seed="same", roles={})
    assert a["commitment"] != b["commitment"]
    assert a["id"] != b["id"]


def test_players_may_carry_aliases(api: Any) -> None:
    players = [{"character": n, "aliases": [f"{n}酱"]} for n in api.M72_PLAYERS]
    game = api.make_game(players=players)
    assert game["characters"] == api.M72_PLAYERS


def test_malformed_json_is_400_and_creates_nothing(client: Any, app: Flask) -> None:
    response = client.post("/api/games", data="{not json", content_type="application/json")
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["code"] == "bad_request" and "JSON 格式错误" in error["message"]
    assert count(app, Game) == 0


def test_empty_body_and_non_utf8_are_400(client: Any) -> None:
    assert client.post("/api/games", data=b"").status_code == 400
    response = client.post("/api/games", data=b"\xff\xfe{", content_type="application/json")
    assert response.status_code == 400
    assert "UTF-8" in response.get_json()["error"]["message"]


def test_wrong_types_name_the_field(client: Any) -> None:
    response = client.post("/api/games", json={"ruleset": 8, "players": ["a"]})
    assert response.status_code == 400
    assert response.get_json()["error"]["path"] == "$.ruleset"
    response = client.post("/api/games", json={"ruleset": "m08", "players": "abc"})
    assert response.get_json()["error"]["path"] == "$.players"
    response = client.post("/api/games", json=["m08"])
    assert response.status_code == 400


def test_unknown_field_and_missing_field_are_400(client: Any) -> None:
    response = client.post("/api/games", json={"ruleset": "m08", "players": ["a"], "sede": "x"})
    assert response.status_code == 400
    assert response.get_json()["error"]["path"] == "$.sede"
    response = client.post("/api/games", json={"players": ["a"]})
    assert response.get_json()["error"]["path"] == "$.ruleset"


def test_unknown_ruleset_and_wrong_player_count_are_400_naming_the_rule(
    client: Any, app: Flask
) -> None:
    # the rulesets are a closed set, declared as such in /openapi.json
    response = client.post("/api/games", json={"ruleset": "m99", "players": ["a", "b"]})
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["path"] == "$.ruleset" and "m08, m08_12, m72, wa004" in error["message"]
    # a path never reaches the file system, even one that would name a real ruleset file
    response = client.post("/api/games", json={"ruleset": "../rulesets/m72", "players": ["a"]})
    assert response.status_code == 400
    assert response.get_json()["error"]["path"] == "$.ruleset"
    response = client.post("/api/games", json={"ruleset": "m72", "players": ["a", "b"]})
    assert response.status_code == 400
    assert response.get_json()["error"]["rule"] == "player_count"
    assert count(app, Game) == 0


def test_duplicate_characters_are_400(client: Any, api: Any) -> None:
    players = [*api.M72_PLAYERS[:11], api.M72_PLAYERS[0]]
    response = client.post("/api/games", json={"ruleset": "m72", "players": players})
    assert response.status_code == 400


def test_body_over_the_limit_is_413_json(db_url: str) -> None:
    from api import create_app

    app = create_app({"DATABASE_URL": db_url, "MAX_CONTENT_LENGTH": 1000})
    client = app.test_client()
    response = client.post("/api/games", json={"ruleset": "m08", "players": ["x" * 2000]})
    assert response.status_code == 413
    assert response.get_json()["error"]["code"] == "too_large"
    assert "1000" in response.get_json()["error"]["message"]
    app.extensions["bansha_db"].dispose()


def test_unknown_route_and_method_are_json(client: Any) -> None:
    response = client.get("/api/nope")
    assert response.status_code == 404 and response.get_json()["error"]["code"] == "not_found"
    response = client.delete("/api/games")
    assert response.status_code == 405
    assert response.get_json()["error"]["code"] == "method_not_allowed"


def test_unknown_game_is_404_everywhere(api: Any, game: dict[str, Any]) -> None:
    token = game["director_token"]
    for method, path, body in [
        ("GET", "/api/games/nope/announcements", None),
        ("GET", "/api/games/nope/view", None),
        ("GET", "/api/games/nope/cards", None),
        ("GET", "/api/games/nope/suggestions", None),
        ("POST", "/api/games/nope/actions", {"type": "deadline_passed"}),
        ("POST", "/api/games/nope/advance", {"close": "day"}),
        ("POST", "/api/games/nope/posts", api.post_body("软件1", "hi")),
        ("POST", "/api/suggestions/999/decision", {"action": "dismiss"}),
        ("POST", "/api/suggestions/abc/decision", {"action": "dismiss"}),
    ]:
        response = api.call(method, path, token, body)
        assert response.status_code == 404, (path, response.get_json())
        assert response.get_json()["error"]["code"] == "not_found"


def test_token_in_the_url_is_refused(api: Any, game: dict[str, Any]) -> None:
    response = api.call(
        "GET", f"/api/games/{game['id']}/cards?token={game['director_token']}", None
    )
    assert response.status_code == 400
    assert "Authorization 请求头" in response.get_json()["error"]["message"]


def test_healthz_and_index(client: Any) -> None:
    assert client.get("/healthz").get_json() == {"status": "ok"}
    assert client.get("/").status_code == 200


def test_an_admin_token_can_guard_game_creation(db_url: str, api: Any) -> None:
    from api import create_app

    app = create_app({"DATABASE_URL": db_url, "ADMIN_TOKEN": "admin-secret"})
    client = app.test_client()
    body = {"ruleset": "m72", "players": api.M72_PLAYERS}
    assert client.post("/api/games", json=body).status_code == 401
    wrong = client.post("/api/games", json=body, headers=api.auth("guess"))
    assert wrong.status_code == 403
    right = client.post("/api/games", json=body, headers=api.auth("admin-secret"))
    assert right.status_code == 201
    app.extensions["bansha_db"].dispose()
