"""/openapi.json declares the constraints the service enforces, and the service enforces them."""

from __future__ import annotations

import json
from typing import Any

from flask.testing import FlaskClient

from game_rules.params import available_ruleset_files
from game_rules.penalties import KNOWN_CATEGORIES

M72 = [f"软件{i}" for i in range(1, 13)]


def _document(client: FlaskClient) -> dict[str, Any]:
    document: dict[str, Any] = client.get("/openapi.json").get_json()
    return document


def _body_schema(document: dict[str, Any], path: str) -> dict[str, Any]:
    schema: dict[str, Any] = document["paths"][path]["post"]["requestBody"]["content"][
        "application/json"
    ]["schema"]
    while "$ref" in schema:  # a named schema: components/schemas/<name>
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def test_closed_sets_are_enums(client: FlaskClient) -> None:
    document = _document(client)
    game = _body_schema(document, "/api/games")
    assert game["properties"]["ruleset"]["enum"] == available_ruleset_files()
    card = _body_schema(document, "/api/games/{game_id}/cards")
    assert sorted(card["properties"]["category"]["enum"]) == sorted(KNOWN_CATEGORIES)
    suggestions = document["paths"]["/api/games/{game_id}/suggestions"]["get"]
    status = next(p for p in suggestions["parameters"] if p["name"] == "status")
    assert status["schema"]["enum"] == ["pending", "decided", "all"]
    create = document["paths"]["/api/games"]["post"]
    key = next(p for p in create["parameters"] if p["name"] == "Idempotency-Key")
    assert key["schema"]["pattern"] == "^(?:[\\x21-\\x7e]{16,255})$"


def test_every_write_declares_its_http_refusals(client: FlaskClient) -> None:
    for path, operations in _document(client)["paths"].items():
        for method, operation in operations.items():
            statuses = set(operation["responses"])
            assert "414" in statuses, (method, path)
            if method == "post":
                assert {"413", "415", "429"} <= statuses, (method, path)
                assert "Retry-After" in operation["responses"]["429"]["headers"]


def test_a_character_name_with_a_space_at_an_end_is_refused_at_its_field(
    client: FlaskClient,
) -> None:
    players: list[Any] = [*M72[:-1], {"character": M72[-1] + "\u3000"}]
    response = client.post("/api/games", json={"ruleset": "m72", "players": players})
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error == {**error, "path": "$.players[11].character", "message": "角色名首尾不能有空格"}


def test_an_integer_written_with_a_zero_fraction_is_an_integer(
    client: FlaskClient, api: Any, game: dict[str, Any]
) -> None:
    post = api.post_body("软件1", "站边软件5", day=1)
    raw = json.dumps(post, ensure_ascii=False).replace('"day": 1,', '"day": 1.0,')
    assert '"day": 1.0,' in raw
    response = client.post(
        f"/api/games/{game['id']}/posts",
        data=raw,
        content_type="application/json",
        headers=api.auth(game["director_token"]),
    )
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["day"] == 1


def test_a_query_parameter_holding_nul_is_refused(
    client: FlaskClient, api: Any, game: dict[str, Any]
) -> None:
    response = client.get(
        f"/api/games/{game['id']}/suggestions?character=%00",
        headers=api.auth(game["director_token"]),
    )
    assert response.status_code == 400 and response.get_json()["error"]["path"] == "character"
