"""Revoking and reissuing tokens: the director's endpoints for player tokens, the operator's
``bansha token`` for director tokens, and a revoked token refused everywhere, by every worker."""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select, text, update
from sqlalchemy.exc import DBAPIError

from api.auth import hash_token
from api.cli import token_main
from api.openapi import ENDPOINTS
from models.audit import AuditEntry
from models.game import Token
from models.migrate import upgrade
from models.types import utcnow

PLAYERS = [f"软件{i}" for i in range(1, 13)]


# ``any_url`` and ``any_app`` (conftest) run a test on SQLite and on PostgreSQL.


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _game(app: Flask, seed: str = "tokens") -> dict[str, Any]:
    response = app.test_client().post(
        "/api/games", json={"ruleset": "m72", "players": PLAYERS, "seed": seed}
    )
    assert response.status_code == 201
    data: dict[str, Any] = response.get_json()
    return data


def _post(forum_id: str, author: str = "软件2", thread: str = "discussion") -> dict[str, Any]:
    body = "投票对象：软件12\n投票理由：划水" if thread == "vote" else "站边软件5"
    return {
        "forum_post_id": forum_id,
        "author": author,
        "thread": thread,
        "day": 1,
        "body": body,
        "posted_at": "2026-11-29T20:00:00+08:00",
    }


def _revoke(app: Flask, game: dict[str, Any], character: str, **extra: Any) -> Any:
    return app.test_client().post(
        f"/api/games/{game['id']}/tokens/revoke",
        json={"character": character, **extra},
        headers=_auth(game["director_token"]),
    )


def _reissue(app: Flask, game: dict[str, Any], character: str, **extra: Any) -> Any:
    return app.test_client().post(
        f"/api/games/{game['id']}/tokens",
        json={"character": character, **extra},
        headers=_auth(game["director_token"]),
    )


def _audit(app: Flask, game_id: str, action: str) -> list[AuditEntry]:
    with app.extensions["bansha_db"].read() as session:
        query = select(AuditEntry).where(AuditEntry.game_id == game_id, AuditEntry.action == action)
        return list(session.scalars(query.order_by(AuditEntry.id)))


def _rotate(url: str, game_id: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert token_main(["rotate-director", game_id, "--url", url, "--reason", "泄露"]) == 0
    out = capsys.readouterr()
    assert "revoked 1 director token" in out.err
    return out.out.strip()


# A valid request for every declared endpoint, so the check below reaches authentication (bodies
# are validated first). A new endpoint fails the coverage assertion until it is listed here.
SAMPLE_BODIES: dict[tuple[str, str], Any] = {
    ("GET", "/api/games/<game_id>/announcements"): None,
    ("GET", "/api/games/<game_id>/view"): None,
    ("GET", "/api/games/<game_id>/suggestions"): None,
    ("GET", "/api/games/<game_id>/cards"): None,
    ("POST", "/api/games/<game_id>/cards"): {
        "character": "软件11",
        "colour": "blue",
        "category": "other",
        "reason": "x",
    },
    ("POST", "/api/games/<game_id>/posts"): _post("every-1"),
    ("POST", "/api/games/<game_id>/actions"): {"type": "schedule_day", "accelerated": False},
    ("POST", "/api/games/<game_id>/advance"): {"close": "day"},
    ("POST", "/api/suggestions/<sid>/decision"): {"action": "dismiss"},
    ("POST", "/api/games/<game_id>/tokens/revoke"): {"character": "软件1"},
    ("POST", "/api/games/<game_id>/tokens"): {"character": "软件1"},
    ("POST", "/api/games/<game_id>/cards/<card_id>/revoke"): {"reason": "x"},
    ("POST", "/api/games/<game_id>/cards/<card_id>/appeal"): {"text": "x"},
    ("GET", "/api/games/<game_id>/appeals"): None,
    ("POST", "/api/games/<game_id>/appeals/<appeal_id>/ruling"): {"ruling": "upheld"},
    ("GET", "/api/games/<game_id>/audit"): None,
    ("GET", "/api/registry/players"): None,
    ("GET", "/api/registry/players/<player_id>"): None,
    ("POST", "/api/registry/players/<player_id>/names"): {"name": "别名"},
    ("POST", "/api/registry/bans"): {"player_id": 1, "card_id": 1, "reason": "x", "games": 1},
    ("GET", "/api/games/<game_id>/seats"): None,
    ("POST", "/api/games/<game_id>/assistants"): {"character": "软件1", "assistant": "助理"},
}
#: creating a game takes no game token (only the admin token, when one is configured)
NO_GAME_TOKEN = {("POST", "/api/games")}


def _every_endpoint(app: Flask, game: dict[str, Any], token: str) -> dict[str, tuple[int, Any]]:
    declared = {(e.method, e.rule) for e in ENDPOINTS} - NO_GAME_TOKEN
    assert declared == set(SAMPLE_BODIES), "list the new endpoint in SAMPLE_BODIES"
    client = app.test_client()
    closed = client.post(
        f"/api/games/{game['id']}/advance",
        json={"close": "day", "review_penalties": True},
        headers=_auth(game["director_token"]),
    )
    sid = closed.get_json()["suggestions"][0]["id"]
    out = {}
    for (method, rule), body in SAMPLE_BODIES.items():
        path = rule.replace("<game_id>", game["id"]).replace("<sid>", str(sid))
        path = path.replace("<card_id>", "1").replace("<appeal_id>", "1")
        path = path.replace("<player_id>", "1")
        response = client.open(path, method=method, json=body, headers=_auth(token))
        out[f"{method} {rule}"] = (response.status_code, response)
    return out


# ---------------------------------------------------------------------------------------------
# Player tokens: the director's endpoints


def test_a_revoked_player_token_is_refused_by_every_endpoint(any_app: Flask) -> None:
    game = _game(any_app)
    token = game["player_tokens"]["软件6"]
    client = any_app.test_client()
    assert client.get(f"/api/games/{game['id']}/view", headers=_auth(token)).status_code == 200
    response = _revoke(any_app, game, "软件6", reason="令牌贴进了讨论帖")
    assert response.status_code == 200
    assert response.get_json() == {"game_id": game["id"], "character": "软件6", "revoked": 1}
    for name, (status, answer) in _every_endpoint(any_app, game, token).items():
        assert status == 401, name
        error = answer.get_json()["error"]
        assert error["code"] == "token_revoked", name
        assert "revoked by the game's director" in error["message"]
        assert 'error="invalid_token"' in answer.headers["WWW-Authenticate"]
    # the public feed is still open to the public; the other players are untouched
    assert client.get(f"/api/games/{game['id']}/announcements").status_code == 200
    other = _auth(game["player_tokens"]["软件7"])
    assert client.get(f"/api/games/{game['id']}/view", headers=other).status_code == 200


def test_reissue_gives_a_working_token_and_revokes_the_old(any_app: Flask) -> None:
    game = _game(any_app)
    old = game["player_tokens"]["软件6"]
    client = any_app.test_client()
    first = _reissue(any_app, game, "软件6", director="导演A")
    assert first.status_code == 201
    body = first.get_json()
    assert body["revoked"] == 1 and body["character"] == "软件6" and body["player_token"] != old
    view = client.get(f"/api/games/{game['id']}/view", headers=_auth(body["player_token"]))
    assert view.status_code == 200 and view.get_json()["me"]["character"] == "软件6"
    assert client.get(f"/api/games/{game['id']}/view", headers=_auth(old)).status_code == 401
    # reissuing again revokes the token just issued: one live token per character, always
    second = _reissue(any_app, game, "软件6").get_json()
    assert second["revoked"] == 1
    stale = client.get(f"/api/games/{game['id']}/view", headers=_auth(body["player_token"]))
    assert stale.status_code == 401
    with any_app.extensions["bansha_db"].read() as session:
        rows = list(session.scalars(select(Token).where(Token.character == "软件6")))
    assert [r.revoked_at is None for r in rows] == [False, False, True]
    assert rows[2].token_hash == hash_token(second["player_token"])
    issued = _audit(any_app, game["id"], "issue_token")
    assert [e.actor for e in issued] == ["导演A", "director"]
    assert issued[0].detail == {"kind": "player", "character": "软件6", "tokens": [rows[1].id],
                                "reason": ""}  # fmt: skip


def test_revoking_is_audited_and_a_second_revoke_changes_nothing(app: Flask) -> None:
    game = _game(app)
    first = _revoke(app, game, "软件3", reason="换人", director="导演B")
    assert first.get_json()["revoked"] == 1
    again = _revoke(app, game, "软件3")
    assert again.status_code == 200 and again.get_json()["revoked"] == 0
    entries = _audit(app, game["id"], "revoke_token")
    assert len(entries) == 1  # the no-op is not audited
    assert entries[0].actor == "导演B"
    assert entries[0].detail["character"] == "软件3" and entries[0].detail["reason"] == "换人"
    assert entries[0].detail["kind"] == "player" and len(entries[0].detail["tokens"]) == 1
    # a reissue after a revoke revokes nothing more and issues one token
    reissued = _reissue(app, game, "软件3").get_json()
    assert reissued["revoked"] == 0
    view = app.test_client().get(
        f"/api/games/{game['id']}/view", headers=_auth(reissued["player_token"])
    )
    assert view.status_code == 200


@pytest.mark.parametrize("path", ["tokens/revoke", "tokens"])
def test_token_endpoint_errors(app: Flask, path: str) -> None:
    game, other = _game(app), _game(app, "other")
    client = app.test_client()
    url = f"/api/games/{game['id']}/{path}"

    def send(body: Any, headers: dict[str, str] | None = None, to: str = url) -> Any:
        return client.post(to, json=body, headers=headers or {})

    director = _auth(game["director_token"])
    unknown = send({"character": "路人"}, director)
    assert unknown.status_code == 400 and unknown.get_json()["error"]["path"] == "$.character"
    assert send({"who": "软件1"}, director).get_json()["error"]["path"] == "$.character"
    assert send({"character": "软件1", "extra": 1}, director).status_code == 400
    assert send({"character": "软件1"}).status_code == 401
    assert send({"character": "软件1"}, _auth("not-a-token")).status_code == 401
    assert send({"character": "软件1"}, _auth(game["player_tokens"]["软件1"])).status_code == 403
    assert send({"character": "软件1"}, _auth(other["director_token"])).status_code == 403
    missing = send({"character": "软件1"}, director, f"/api/games/nosuchgame/{path}")
    assert missing.status_code == 404
    # none of these changed a token or wrote an audit entry
    with app.extensions["bansha_db"].read() as session:
        assert session.scalar(select(Token.id).where(Token.revoked_at.is_not(None))) is None
    assert _audit(app, game["id"], "revoke_token") == _audit(app, game["id"], "issue_token") == []


def test_a_director_token_cannot_be_revoked_through_the_api(app: Flask) -> None:
    game = _game(app)
    # the endpoints take a character; the director is none
    response = _revoke(app, game, "director")
    assert response.status_code == 400
    assert (
        app.test_client()
        .get(f"/api/games/{game['id']}/cards", headers=_auth(game["director_token"]))
        .status_code
        == 200
    )


# ---------------------------------------------------------------------------------------------
# Director tokens: the operator's command


def test_rotating_the_director_token(
    any_url: str, any_app: Flask, capsys: pytest.CaptureFixture[str]
) -> None:
    game = _game(any_app)
    old = game["director_token"]
    client = any_app.test_client()
    posts = f"/api/games/{game['id']}/posts"
    # the post path caches the token in this process: the rotation must still reach it
    assert client.post(posts, json=_post("before"), headers=_auth(old)).status_code == 200
    new = _rotate(any_url, game["id"], capsys)
    assert new and new != old
    for name, (status, answer) in _every_endpoint(any_app, game | {"director_token": new},
                                                  old).items():  # fmt: skip
        assert status == 401, name
        assert answer.get_json()["error"]["code"] == "token_revoked", name
        assert "bansha token rotate-director" in answer.get_json()["error"]["message"]
    # the new token works everywhere the old one did
    assert client.post(posts, json=_post("after"), headers=_auth(new)).status_code == 200
    view = client.get(f"/api/games/{game['id']}/view", headers=_auth(new)).get_json()
    assert view["kind"] == "director"
    assert [e.actor for e in _audit(any_app, game["id"], "revoke_token")] == ["operator"]
    assert _audit(any_app, game["id"], "issue_token")[0].detail["reason"] == "泄露"


def test_a_revoked_cached_token_is_refused_on_the_first_request_after(
    any_url: str, any_app: Flask, make_app: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Several workers hold the director token in their token cache; a revocation made elsewhere
    reaches each on its very next request, whichever path that request takes."""
    game = _game(any_app)
    token = game["director_token"]
    posts = f"/api/games/{game['id']}/posts"
    workers = [any_app] + [make_app(any_url) for _ in range(3)]
    clients = [w.test_client() for w in workers]
    for i, client in enumerate(clients):  # each worker caches the token
        assert client.post(posts, json=_post(f"w{i}"), headers=_auth(token)).status_code == 200
    _rotate(any_url, game["id"], capsys)
    first_requests = [
        (posts, _post("late-discussion")),  # the share-lock path
        (posts, _post("late-vote", thread="vote")),  # the exclusive-lock path
        (posts, _post("late-author", author="路人")),  # refused before any transaction
        ("/api/games/nosuchgame/posts", _post("late-game")),  # likewise
    ]
    for client, (path, body) in zip(clients, first_requests, strict=True):
        refused = client.post(path, json=body, headers=_auth(token))
        assert refused.status_code == 401, (path, body["forum_post_id"])
        assert refused.get_json()["error"]["code"] == "token_revoked"
    with any_app.extensions["bansha_db"].read() as session:
        stored = session.execute(text("SELECT forum_post_id FROM posts ORDER BY id")).scalars()
        assert list(stored) == ["w0", "w1", "w2", "w3"]  # nothing of the refused posts


def test_revocation_survives_a_restart(
    db_url: str, make_app: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    first = make_app(db_url)
    game = _game(first)
    assert _revoke(first, game, "软件4").status_code == 200
    _rotate(db_url, game["id"], capsys)
    first.extensions["bansha_db"].dispose()
    restarted = make_app(db_url)
    client = restarted.test_client()
    for token in (game["player_tokens"]["软件4"], game["director_token"]):
        response = client.get(f"/api/games/{game['id']}/view", headers=_auth(token))
        assert response.status_code == 401
        assert response.get_json()["error"]["code"] == "token_revoked"
    live = _auth(game["player_tokens"]["软件5"])
    assert client.get(f"/api/games/{game['id']}/view", headers=live).status_code == 200


def test_token_cli_lists_and_refuses_bad_input(
    db_url: str, app: Flask, capsys: pytest.CaptureFixture[str]
) -> None:
    game = _game(app)
    _revoke(app, game, "软件2")
    capsys.readouterr()
    assert token_main(["list", game["id"], "--url", db_url]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 13
    fields = [line.split("\t") for line in lines]
    assert fields[0][1:3] == ["director", "-"] and fields[0][4] == "live"
    revoked = [f for f in fields if f[2] == "软件2"]
    assert len(revoked) == 1 and revoked[0][4].startswith("revoked ")
    text_out = "\n".join(lines)
    assert game["director_token"] not in text_out and hash_token(game["director_token"]) not in (
        text_out
    )
    assert token_main(["rotate-director", "nosuchgame", "--url", db_url]) == 1
    assert "没有这场游戏：'nosuchgame'" in capsys.readouterr().err
    assert token_main(["list", "nosuchgame", "--url", db_url]) == 1
    assert token_main(["frobnicate"]) == 2
    assert token_main([]) == 2


def test_token_cli_refuses_an_old_schema(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    assert token_main(["list", "g", "--url", url]) == 1
    assert "no schema" in capsys.readouterr().err
    upgrade(url, "0002")
    assert token_main(["list", "g", "--url", url]) == 1
    assert "revision 0002" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# What the database itself guarantees, and concurrent reissues


def test_the_database_refuses_to_unrevoke_or_reassign_a_token(any_app: Flask) -> None:
    game = _game(any_app)
    _revoke(any_app, game, "软件1")
    database = any_app.extensions["bansha_db"]
    digest = hash_token(game["player_tokens"]["软件1"])
    revoked, live = (
        update(Token).where(Token.token_hash == digest),
        update(Token).where(Token.character == "软件2"),
    )
    attempts = [
        revoked.values(revoked_at=None),  # un-revoke
        revoked.values(revoked_at=utcnow()),  # revoke twice (rewrite the time)
        live.values(character="软件1"),  # hand a live token to someone else
        live.values(kind="director", revoked_at=utcnow()),  # change it while revoking
    ]
    for statement in attempts:
        with pytest.raises(DBAPIError), database.write() as session:
            session.execute(statement)
    with database.read() as session:
        row = session.scalars(select(Token).where(Token.token_hash == digest)).one()
        assert row.revoked_at is not None
        assert session.scalar(text("SELECT count(*) FROM tokens")) == 13


def test_concurrent_reissues_leave_one_live_token(
    any_app: Flask, serve: Any, concurrently: Any
) -> None:
    game = _game(any_app)

    def reissue(port: int) -> tuple[int, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request(
            "POST",
            f"/api/games/{game['id']}/tokens",
            body=json.dumps({"character": "软件9"}).encode(),
            headers={"Content-Type": "application/json", **_auth(game["director_token"])},
        )
        response = conn.getresponse()
        payload = json.loads(response.read())
        conn.close()
        return response.status, payload

    with serve(any_app) as port:
        results = concurrently(6, lambda _: reissue(port))
    assert [s for s, _ in results] == [201] * 6
    assert sorted(b["revoked"] for _, b in results) == [1] * 6  # each revoked exactly one
    with any_app.extensions["bansha_db"].read() as session:
        rows = list(session.scalars(select(Token).where(Token.character == "软件9")))
    live = [r for r in rows if r.revoked_at is None]
    assert len(rows) == 7 and len(live) == 1
    working = [b for _, b in results if hash_token(b["player_token"]) == live[0].token_hash]
    assert len(working) == 1
