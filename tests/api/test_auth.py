"""The authorisation matrix: every token kind against every endpoint, and what views reveal."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

# (method, path template, body factory, who may call)
Body = Callable[[Any, dict[str, Any]], Any]
ENDPOINTS: list[tuple[str, str, Body | None, set[str]]] = [
    ("GET", "/api/games/{id}/announcements", None, {"public", "player", "director"}),
    ("GET", "/api/games/{id}/view", None, {"public", "player", "director"}),
    ("GET", "/api/games/{id}/suggestions", None, {"director"}),
    ("GET", "/api/games/{id}/cards", None, {"director", "player"}),  # a player: its own ledger
    ("GET", "/api/games/{id}/audit", None, {"director"}),
    ("GET", "/api/games/{id}/appeals", None, {"director"}),
    (
        "POST",
        "/api/games/{id}/cards",
        lambda api, g: {
            "character": "软件11",
            "colour": "blue",
            "category": "other",
            "reason": "x",
        },
        {"director"},
    ),
    (
        "POST",
        "/api/games/{id}/posts",
        lambda api, g: api.post_body("软件11", "大家好"),
        {"director"},
    ),
    (
        "POST",
        "/api/games/{id}/actions",
        lambda api, g: {"type": "schedule_day", "accelerated": False},
        {"director"},
    ),
    ("POST", "/api/games/{id}/advance", lambda api, g: {"close": "day"}, {"director"}),
    ("POST", "/api/suggestions/{sid}/decision", lambda api, g: {"action": "dismiss"}, {"director"}),
    ("POST", "/api/games/{id}/tokens/revoke", lambda api, g: {"character": "软件1"}, {"director"}),
    ("POST", "/api/games/{id}/tokens", lambda api, g: {"character": "软件1"}, {"director"}),
]
KINDS = ["public", "player", "director", "other_director", "unknown_token", "malformed_header"]


def _pending_suggestion(api: Any, game: dict[str, Any]) -> int:
    result = api.ok(
        "POST",
        f"/api/games/{game['id']}/advance",
        game["director_token"],
        {"close": "day", "review_penalties": True},
    )
    return int(result["suggestions"][0]["id"])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("method", "template", "body", "allowed"), ENDPOINTS)
def test_authorisation_matrix(
    api: Any,
    method: str,
    template: str,
    body: Body | None,
    allowed: set[str],
    kind: str,
) -> None:
    game = api.make_game()
    other = api.make_game(seed="other")
    sid = _pending_suggestion(api, game) if "{sid}" in template else 0
    if template.endswith("/advance"):
        # a fresh game so that closing the day is legal (the matrix is about who, not when)
        game = api.make_game(seed="advance")
    path = template.format(id=game["id"], sid=sid)
    headers: dict[str, str] = {}
    if kind == "player":
        headers = api.auth(game["player_tokens"]["软件11"])
    elif kind == "director":
        headers = api.auth(game["director_token"])
    elif kind == "other_director":
        headers = api.auth(other["director_token"])
    elif kind == "unknown_token":
        headers = api.auth("not-a-token")
    elif kind == "malformed_header":
        headers = {"Authorization": "Basic abc"}
    payload = body(api, game) if body else None
    response = api.client.open(path, method=method, json=payload, headers=headers)
    status = response.status_code
    if kind in ("unknown_token", "malformed_header"):
        assert status == 401, response.get_json()
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
    elif kind == "other_director":
        assert status == 403, response.get_json()
    elif kind in allowed:
        assert status in (200, 201), response.get_json()
    elif kind == "public":
        assert status == 401, response.get_json()
    else:
        assert status == 403, response.get_json()
    if status >= 400:
        assert set(response.get_json()["error"]) >= {"code", "message"}


def _night_with_actions(api: Any, game: dict[str, Any]) -> None:
    token = game["director_token"]
    gid = game["id"]
    api.ok("POST", f"/api/games/{gid}/advance", token, {"close": "day"})
    for actor, skill, target in [
        ("软件1", "kill", "软件11"),
        ("软件6", "divine", "软件1"),
        ("软件8", "guard", "软件12"),
        ("软件9", "slander", "软件6"),
    ]:
        api.ok(
            "POST",
            f"/api/games/{gid}/actions",
            token,
            {"type": "skill", "actor": actor, "skill": skill, "target": target},
        )


def test_player_view_holds_only_its_own_secrets(api: Any) -> None:
    game = api.make_game()
    _night_with_actions(api, game)
    roles = api.M72_ROLES
    for character, token in game["player_tokens"].items():
        view = api.ok("GET", f"/api/games/{game['id']}/view", token)
        assert view["kind"] == "player" and "director" not in view
        me = view["me"]
        assert me["character"] == character
        # own role (crows are only told 乌鸦), nobody else's
        assert me["role"] == roles[character] or roles[character].startswith("crow")
        for event in me["events"]:
            if event["type"] == "action_taken":
                assert character == event["actor"] or character in event.get("to", [])
            if event["type"] == "told":
                assert character in event["to"]
            if event["type"] == "game_started":  # the deal is the director's alone
                pytest.fail("a player saw the deal")
        text = json.dumps(view, ensure_ascii=False)
        assert "test-seed" not in text
        if character not in ("软件6",):
            assert "divine" not in text  # the seer's check is private
        if roles[character] not in ("wolf", "wolf_cub"):
            assert '"kill"' not in text


def test_public_view_and_announcements_hold_no_secret(api: Any) -> None:
    game = api.make_game()
    _night_with_actions(api, game)
    for path in ("view", "announcements"):
        data = api.ok("GET", f"/api/games/{game['id']}/{path}")
        text = json.dumps(data, ensure_ascii=False)
        assert "roles" not in text and "test-seed" not in text
        for key in ("wolf", "seer", "divine", "slander", "guard"):
            assert f'"{key}"' not in text
        assert data.get("kind", "public") == "public"


def test_director_view_has_everything(api: Any) -> None:
    game = api.make_game()
    view = api.ok("GET", f"/api/games/{game['id']}/view", game["director_token"])
    assert view["kind"] == "director"
    assert view["director"]["roles"] == api.M72_ROLES
    assert view["director"]["seed"] == "test-seed"
    assert view["director"]["events"][0]["type"] == "game_started"
