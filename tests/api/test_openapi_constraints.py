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


#: every operation of the document the hand-written schema layer generated (before the move to
#: pydantic, commit 2b2b2d5), with its operationId: clients generated from it keep working
OPERATIONS = [
    ("GET", "/api/games/{game_id}/announcements", "get__api_games_game_id_announcements"),
    ("GET", "/api/games/{game_id}/appeals", "get__api_games_game_id_appeals"),
    ("GET", "/api/games/{game_id}/audit", "get__api_games_game_id_audit"),
    ("GET", "/api/games/{game_id}/cards", "get__api_games_game_id_cards"),
    ("GET", "/api/games/{game_id}/seats", "get__api_games_game_id_seats"),
    ("GET", "/api/games/{game_id}/suggestions", "get__api_games_game_id_suggestions"),
    ("GET", "/api/games/{game_id}/view", "get__api_games_game_id_view"),
    ("GET", "/api/registry/players", "get__api_registry_players"),
    ("GET", "/api/registry/players/{player_id}", "get__api_registry_players_player_id_"),
    ("POST", "/api/games", "post__api_games"),
    ("POST", "/api/games/{game_id}/actions", "post__api_games_game_id_actions"),
    ("POST", "/api/games/{game_id}/advance", "post__api_games_game_id_advance"),
    (
        "POST",
        "/api/games/{game_id}/appeals/{appeal_id}/ruling",
        "post__api_games_game_id_appeals_appeal_id_ruling",
    ),
    ("POST", "/api/games/{game_id}/assistants", "post__api_games_game_id_assistants"),
    ("POST", "/api/games/{game_id}/cards", "post__api_games_game_id_cards"),
    (
        "POST",
        "/api/games/{game_id}/cards/{card_id}/appeal",
        "post__api_games_game_id_cards_card_id_appeal",
    ),
    (
        "POST",
        "/api/games/{game_id}/cards/{card_id}/revoke",
        "post__api_games_game_id_cards_card_id_revoke",
    ),
    ("POST", "/api/games/{game_id}/posts", "post__api_games_game_id_posts"),
    ("POST", "/api/games/{game_id}/tokens", "post__api_games_game_id_tokens"),
    ("POST", "/api/games/{game_id}/tokens/revoke", "post__api_games_game_id_tokens_revoke"),
    ("POST", "/api/registry/bans", "post__api_registry_bans"),
    (
        "POST",
        "/api/registry/players/{player_id}/names",
        "post__api_registry_players_player_id_names",
    ),
    ("POST", "/api/suggestions/{sid}/decision", "post__api_suggestions_sid_decision"),
]


def test_the_document_lists_the_same_operations_as_before(client: FlaskClient) -> None:
    paths = _document(client)["paths"]
    listed = sorted(
        (method.upper(), path, operation["operationId"])
        for path, operations in paths.items()
        for method, operation in operations.items()
    )
    assert listed == OPERATIONS


#: the JSON Schema (2020-12) keywords the document may use; anything else is a generator's
#: private word that no validator reads (a bound a client would never see)
SCHEMA_KEYWORDS = frozenset(
    {
        "$ref", "type", "properties", "required", "additionalProperties", "propertyNames",
        "items", "minItems", "maxItems", "minLength", "maxLength", "pattern", "format",
        "minimum", "maximum", "enum", "const", "oneOf", "anyOf", "description",
    }
)  # fmt: skip


def _keywords_and_refs(schema: Any, keywords: set[str], refs: set[str]) -> None:
    if isinstance(schema, dict):
        for key, value in schema.items():
            keywords.add(key)
            if key == "$ref":
                refs.add(value)
            elif key == "properties":
                for item in value.values():
                    _keywords_and_refs(item, keywords, refs)
            elif key in ("items", "additionalProperties", "propertyNames"):
                _keywords_and_refs(value, keywords, refs)
            elif key in ("oneOf", "anyOf"):
                for item in value:
                    _keywords_and_refs(item, keywords, refs)


def test_every_schema_uses_json_schema_keywords_and_resolving_references(
    client: FlaskClient,
) -> None:
    document = _document(client)
    components = document["components"]["schemas"]
    keywords: set[str] = set()
    refs: set[str] = set()
    for schema in components.values():
        _keywords_and_refs(schema, keywords, refs)
    for operations in document["paths"].values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                _keywords_and_refs(parameter["schema"], keywords, refs)
            for content in (operation.get("requestBody") or {}).get("content", {}).values():
                _keywords_and_refs(content["schema"], keywords, refs)
            for response in operation["responses"].values():
                for content in response.get("content", {}).values():
                    _keywords_and_refs(content["schema"], keywords, refs)
    assert keywords <= SCHEMA_KEYWORDS, keywords - SCHEMA_KEYWORDS
    prefix = "#/components/schemas/"
    assert all(ref.startswith(prefix) and ref[len(prefix) :] in components for ref in refs)
    assert refs, "the request and response objects are named components"
