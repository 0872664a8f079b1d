"""The audit trail as someone reads it: every kind of act, with the authenticated identity,
through the API, and exported by ``bansha audit export`` as CSV or JSON Lines."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select

from api.cli import audit_main
from models.game import Token


def token_ids(app: Flask, game_id: str) -> dict[str, int]:
    """Token row ids by holder (``director`` or the character)."""
    with app.extensions["bansha_db"].read() as session:
        rows = session.scalars(
            select(Token).where(Token.game_id == game_id, Token.revoked_at.is_(None))
        )
        return {r.character or r.kind: r.id for r in rows}


def play_a_little(api: Any, game: dict[str, Any]) -> None:
    gid, token = game["id"], game["director_token"]
    posted = api.post(game, "软件11", "你个ＳＢ")
    api.decide(game, posted["suggestion"]["id"], "confirm", director="导演A")
    blues = [
        api.ok("POST", f"/api/games/{gid}/cards", token,
               {"character": "软件3", "colour": "blue", "category": "other", "reason": "x"})
        for _ in range(3)
    ]  # fmt: skip
    api.ok("POST", f"/api/games/{gid}/cards/{blues[0]['cards'][0]['id']}/revoke", token,
           {"reason": "给错了人"})  # fmt: skip
    given = {"character": "软件12", "colour": "red", "category": "cheating", "reason": "作弊"}
    red = api.ok("POST", f"/api/games/{gid}/cards", token, given)
    api.ok("POST", f"/api/games/{gid}/cards/{red['cards'][0]['id']}/revoke", token,
           {"reason": "看错"})  # fmt: skip
    api.ok(
        "POST", f"/api/games/{gid}/actions", token, {"type": "schedule_day", "accelerated": False}
    )
    api.ok("POST", f"/api/games/{gid}/advance", token, {"close": "day"})
    api.ok("POST", f"/api/games/{gid}/advance", token, {"close": "night"})
    api.ok("POST", f"/api/games/{gid}/tokens", token, {"character": "软件5"})


def test_every_act_is_audited_with_the_authenticated_token(
    api: Any, game: dict[str, Any], app: Flask
) -> None:
    ids = token_ids(app, game["id"])
    play_a_little(api, game)
    data = api.ok("GET", f"/api/games/{game['id']}/audit", game["director_token"])
    entries = data["entries"]
    assert [e["id"] for e in entries] == sorted(e["id"] for e in entries)
    kinds = {e["action"] for e in entries}
    assert {"create_game", "decision", "card", "escalation", "revocation", "ejection",
            "ejection_withdrawn", "action", "close_day", "close_night", "revoke_token",
            "issue_token"} <= kinds  # fmt: skip
    for e in entries:
        if e["action"] == "create_game":
            assert e["actor_kind"] == "public"  # no admin token configured: anyone may create
            continue
        # every later act came through the director token, also what the rules did themselves
        assert e["actor_kind"] == "director", e
        assert e["actor_token_id"] == ids["director"], e
    decision = next(e for e in entries if e["action"] == "decision")
    assert decision["actor"] == "导演A"  # the signature; the token is what was proven
    escalation = next(e for e in entries if e["action"] == "escalation")
    assert escalation["actor"] == "system"
    revocation = next(e for e in entries if e["action"] == "revocation")
    assert revocation["detail"]["reason"] == "给错了人" and revocation["detail"]["undone"]
    # filtering and paging
    cards = api.ok("GET", f"/api/games/{game['id']}/audit?action=card", game["director_token"])
    assert cards["entries"] == [e for e in entries if e["action"] == "card"]
    assert len(cards["entries"]) > 5  # the decided one, four given, the day's fixed 潜水 cards
    page = api.ok("GET", f"/api/games/{game['id']}/audit?limit=2", game["director_token"])
    assert page["next_after"] == page["entries"][-1]["id"]
    rest = api.ok(
        "GET", f"/api/games/{game['id']}/audit?after={page['next_after']}", game["director_token"]
    )
    assert [e["id"] for e in page["entries"] + rest["entries"]] == [e["id"] for e in entries]


def test_the_audit_trail_is_for_the_director(api: Any, game: dict[str, Any]) -> None:
    path = f"/api/games/{game['id']}/audit"
    assert api.call("GET", path).status_code == 401
    player = game["player_tokens"]["软件1"]
    assert api.call("GET", path, player).status_code == 403
    assert api.call("GET", f"{path}?action=nonsense", player).status_code == 403  # auth first
    r = api.call("GET", f"{path}?action=nonsense", game["director_token"])
    assert r.status_code == 400 and r.get_json()["error"]["path"] == "action"
    assert api.call("GET", f"{path}?limit=0", game["director_token"]).status_code == 400


def test_export_as_csv_and_jsonl_holds_every_entry(
    api: Any, game: dict[str, Any], db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    play_a_little(api, game)
    listed = api.ok("GET", f"/api/games/{game['id']}/audit", game["director_token"])["entries"]
    capsys.readouterr()
    assert audit_main(["export", "--game", game["id"], "--format", "jsonl", "--url", db_url]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line) for line in lines] == listed
    out = tmp_path / "audit.csv"
    args = ["export", "--game", game["id"], "--format", "csv", "--out", str(out), "--url", db_url]
    assert audit_main(args) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [int(r["id"]) for r in rows] == [e["id"] for e in listed]
    assert [r["actor_kind"] for r in rows] == [e["actor_kind"] for e in listed]
    assert json.loads(rows[-1]["detail"]) == listed[-1]["detail"]
    assert audit_main(args) == 1  # never overwrites
    only = ["export", "--action", "revocation", "--url", db_url]
    capsys.readouterr()
    assert audit_main(only) == 0
    assert {json.loads(line)["action"] for line in capsys.readouterr().out.splitlines()} == {
        "revocation"
    }
    assert audit_main(["export", "--game", "nope", "--url", db_url]) == 1


def test_the_operator_rotating_a_director_token_is_audited_as_the_operator(
    api: Any, game: dict[str, Any], app: Flask, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from api.cli import token_main

    assert token_main(["rotate-director", game["id"], "--url", db_url, "--reason", "泄露"]) == 0
    new = capsys.readouterr().out.strip()
    data = api.ok("GET", f"/api/games/{game['id']}/audit?action=revoke_token", new)
    [entry] = data["entries"]
    assert entry["actor"] == "operator" and entry["actor_kind"] == "operator"
    assert entry["actor_ref"] == "cli" and entry["detail"]["reason"] == "泄露"
