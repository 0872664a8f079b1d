"""Every response fits the schema the served ``/openapi.json`` declares for its status."""

from __future__ import annotations

import json
from typing import Any

import jsonschema_rs
from flask import Flask

from api.openapi import ENDPOINTS


class CheckingClient:
    """Calls the app and validates each response against the declared schema."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.client = app.test_client()
        self.adapter = app.url_map.bind("localhost")
        self.specs = {(e.method, e.rule): e for e in ENDPOINTS}
        self.document = self.client.get("/openapi.json").get_json()
        self.checked: set[tuple[str, str]] = set()

    def fits(self, method: str, path: str, status: int, body: Any) -> None:
        """``body`` fits the document's schema of ``status`` at ``method path`` (its own
        ``$ref`` definitions included), or the assertion names where it does not."""
        operation = self.document["paths"][path][method.lower()]
        assert str(status) in operation["responses"], (method, path, status, body)
        schema = operation["responses"][str(status)]["content"]["application/json"]["schema"]
        validator = jsonschema_rs.Draft202012Validator(
            {**schema, "components": self.document["components"]}
        )
        errors = [f"{e.instance_path}: {e.message}" for e in validator.iter_errors(body)]
        assert not errors, (method, path, status, errors, json.dumps(body)[:2000])

    def __call__(
        self,
        method: str,
        path: str,
        token: str | None = None,
        json: Any = None,
        headers: dict[str, str] | None = None,
    ) -> Any:
        headers = dict(headers or {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        response = self.client.open(path, method=method, json=json, headers=headers)
        rule, _ = self.adapter.match(path.split("?")[0], method, return_rule=True)
        spec = self.specs[(method, rule.rule)]
        body = response.get_json()
        self.fits(method, spec.path, response.status_code, body)
        if response.status_code == spec.status:
            self.checked.add((method, rule.rule))
        else:
            assert response.status_code in spec.errors, (path, response.status_code, body)
            assert set(body["error"]) <= {"code", "message", "rule", "path"}, body
        return body


def test_responses_match_the_openapi_schemas(app: Flask, api: Any) -> None:
    call = CheckingClient(app)
    game = call("POST", "/api/games", None, {"ruleset": "m72", "players": api.M72_PLAYERS,
                                             "roles": api.M72_ROLES, "seed": "x"})  # fmt: skip
    gid, token = game["id"], game["director_token"]
    call("POST", "/api/games", None, {"ruleset": "m72", "players": ["a"]})  # 400
    posted = call("POST", f"/api/games/{gid}/posts", token, api.post_body("软件11", "你个ＳＢ"))
    call("POST", f"/api/games/{gid}/posts", token,
         {"posts": [api.post_body("软件1", "投票对象：软件11\n投票理由：x", thread="vote"),
                    api.post_body("软件2", "顶")]})  # fmt: skip
    call("GET", f"/api/games/{gid}/suggestions", token)
    call("GET", f"/api/games/{gid}/suggestions?status=all", token)
    call("POST", f"/api/suggestions/{posted['suggestion']['id']}/decision", token,
         {"action": "change", "colour": "yellow", "note": "x"})  # fmt: skip
    call("POST", f"/api/suggestions/{posted['suggestion']['id']}/decision", token,
         {"action": "confirm"})  # 409  # fmt: skip
    red = {"character": "软件12", "colour": "red", "category": "cheating", "reason": "作弊"}
    call("POST", f"/api/games/{gid}/cards", token, red)
    call("GET", f"/api/games/{gid}/cards", token)
    call("POST", f"/api/games/{gid}/actions", token, {"type": "schedule_day", "accelerated": False})
    call("POST", f"/api/games/{gid}/advance", token, {"close": "day", "review_penalties": True})
    call("POST", f"/api/games/{gid}/actions", token,
         {"type": "skill", "actor": "软件6", "skill": "divine", "target": "软件1"})  # fmt: skip
    again = {"type": "skill", "actor": "软件6", "skill": "divine", "target": "软件2"}
    call("POST", f"/api/games/{gid}/actions", token, again)  # 409
    call("POST", f"/api/games/{gid}/advance", token, {"close": "night"})
    call("GET", f"/api/games/{gid}/announcements")
    call("GET", f"/api/games/{gid}/view")
    call("GET", f"/api/games/{gid}/view", game["player_tokens"]["软件6"])
    call("GET", f"/api/games/{gid}/view", token)
    # Idempotent creation: the replay and the reused key's 422 fit the document too.
    key = {"Idempotency-Key": "5f0c7a52-3d1e-4b7a-9c2d-0e8f6a4b1c3d"}
    body = {"ruleset": "m72", "players": api.M72_PLAYERS, "seed": "idem"}
    created = call("POST", "/api/games", None, body, key)
    assert call("POST", "/api/games", None, body, key) == created
    assert call("POST", "/api/games", None, {**body, "seed": "other"}, key)["error"]["rule"] == (
        "idempotency_key_reused"
    )
    call("POST", "/api/games", None, body, {"Idempotency-Key": "short"})  # 400
    # Revoking and reissuing player tokens, and what a revoked token is told.
    call("POST", f"/api/games/{gid}/tokens/revoke", token, {"character": "软件5"})
    call("POST", f"/api/games/{gid}/tokens/revoke", token, {"character": "路人"})  # 400
    revoked = call("GET", f"/api/games/{gid}/view", game["player_tokens"]["软件5"])  # 401
    assert revoked["error"]["code"] == "token_revoked"
    reissued = call("POST", f"/api/games/{gid}/tokens", token, {"character": "软件5"})
    call("GET", f"/api/games/{gid}/view", reissued["player_token"])
    call("POST", f"/api/games/{gid}/tokens", game["player_tokens"]["软件6"], {"character": "软件5"})
    # A card revoked, the audit trail read; after the game a card appealed and ruled on.
    blue = {"character": "软件10", "colour": "blue", "category": "other", "reason": "x"}
    given = call("POST", f"/api/games/{gid}/cards", token, blue)["cards"][0]
    call("POST", f"/api/games/{gid}/cards/{given['id']}/revoke", token, {"reason": "判错"})
    call("POST", f"/api/games/{gid}/cards/{given['id']}/revoke", token, {"reason": "x"})  # 409
    call("GET", f"/api/games/{gid}/audit?action=revocation", token)
    call("GET", f"/api/games/{gid}/audit?action=nope", token)  # 400
    kept = call("POST", f"/api/games/{gid}/cards", token, {**blue, "character": "软件9"})
    appeal = f"/api/games/{gid}/cards/{kept['cards'][0]['id']}/appeal"
    player = game["player_tokens"]["软件9"]
    call("POST", appeal, player, {"text": "冤枉"})  # 409: the game is not over
    ending = {"character": "软件1", "colour": "red", "category": "cheating", "reason": "作弊",
              "faction_lost": True}  # fmt: skip
    red_card = call("POST", f"/api/games/{gid}/cards", token, ending)["cards"][-1]["id"]
    made = call("POST", appeal, player, {"text": "冤枉"})
    call("GET", f"/api/games/{gid}/appeals", token)
    call("POST", f"/api/games/{gid}/appeals/{made['id']}/ruling", token, {"ruling": "upheld"})
    # The registry: seats, a 场外助理, a ban (the admin's), records and the search.
    seats = call("GET", f"/api/games/{gid}/seats", token)["seats"]
    call("POST", f"/api/games/{gid}/assistants", token, {"character": "软件3", "assistant": "甲"})
    call("POST", f"/api/games/{gid}/assistants", token, {"character": "路人", "assistant": "甲"})
    app.config["ADMIN_TOKEN"] = admin = "conformance-admin"
    pid = next(s["player_id"] for s in seats if s["character"] == "软件1")
    ban = {"player_id": pid, "card_id": red_card, "reason": "作弊", "games": 1}
    call("POST", "/api/registry/bans", admin, ban)
    call("POST", "/api/registry/bans", admin, {**ban, "card_id": kept["cards"][0]["id"]})  # 409
    call("GET", f"/api/registry/players/{pid}", admin)
    call("POST", f"/api/registry/players/{pid}/names", admin, {"name": "软件一号"})
    call("POST", f"/api/registry/players/{pid}/names", admin, {"name": "软件2"})  # 409
    nine = next(s["player_id"] for s in seats if s["character"] == "软件9")
    call("GET", f"/api/registry/players/{nine}", token)  # the appealed card and its ruling
    call("GET", f"/api/registry/players/{pid}")
    call("GET", "/api/registry/players/999999")  # 404
    call("GET", "/api/registry/players?name=软件", admin)
    assert call.checked == {(e.method, e.rule) for e in ENDPOINTS}


def test_the_document_declares_the_idempotency_header_and_the_422(client: Any) -> None:
    create = client.get("/openapi.json").get_json()["paths"]["/api/games"]["post"]
    header = next(p for p in create["parameters"] if p["name"] == "Idempotency-Key")
    assert header["in"] == "header" and header["required"] is False
    assert "422" in create["responses"]
    assert "Idempotent-Replayed" in create["responses"]["201"]["headers"]
