"""Tokens cannot be computed from anything a client chooses or sees (issue 12, item 1).

Before revision 0005 a game created with an ``Idempotency-Key`` got tokens that were an HMAC of
the key, the public game id and the holder. Now every token is random, a replay unseals the
first tokens with the server's secret, and the migration revoked the tokens minted the old way.
On SQLite and, when reachable, PostgreSQL.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from alembic import command
from flask import Flask
from sqlalchemy import text

from api import idempotency as idem
from api.auth import hash_token, new_token
from models.database import make_engine
from models.migrate import alembic_config, upgrade

PLAYERS = [f"软件{i}" for i in range(1, 13)]
BODY = {"ruleset": "m72", "players": PLAYERS, "seed": "a"}


def old_derived_token(key: str, game_id: str, holder: str) -> str:
    """How a token was computed before revision 0005 (repeated on purpose: the code is gone,
    and this is exactly what an attacker holding the key would compute)."""
    message = f"bansha-token\x00{game_id}\x00{holder}".encode()
    digest = hmac.new(key.encode("ascii"), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_token_computed_from_the_idempotency_key_is_refused(any_app: Flask) -> None:
    client = any_app.test_client()
    key = str(uuid.uuid4())
    game = client.post("/api/games", json=BODY, headers={"Idempotency-Key": key}).get_json()
    gid = game["id"]
    forged = old_derived_token(key, gid, "director")
    assert forged != game["director_token"]
    refused = client.get(f"/api/games/{gid}/view", headers=_auth(forged))
    assert refused.status_code == 401
    forged_player = old_derived_token(key, gid, "player:软件1")
    assert client.get(f"/api/games/{gid}/view", headers=_auth(forged_player)).status_code == 401
    # ... while the retry still hands back the very tokens first issued, and they work
    again = client.post("/api/games", json=BODY, headers={"Idempotency-Key": key})
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == game
    view = client.get(f"/api/games/{gid}/view", headers=_auth(again.get_json()["director_token"]))
    assert view.get_json()["kind"] == "director"


def test_the_idempotency_row_holds_the_tokens_only_sealed(app: Flask) -> None:
    key = str(uuid.uuid4())
    game = app.test_client().post("/api/games", json=BODY, headers={"Idempotency-Key": key})
    tokens = [game.get_json()["director_token"], *game.get_json()["player_tokens"].values()]
    with app.extensions["bansha_db"].read() as session:
        sealed = session.execute(text("SELECT sealed_tokens FROM idempotency_keys")).scalar_one()
    assert sealed and not any(t in sealed for t in tokens)
    # without the server's secret the sealed text opens to nothing
    with app.test_request_context(), pytest.raises(idem.Conflict) as err:
        idem.open_tokens("another-secret", sealed)
    assert err.value.extra["rule"] == "idempotency_tokens_unrecoverable"
    assert idem.open_tokens(app.config["SECRET_KEY"], sealed)[0] == tokens[0]


def test_a_replay_under_another_secret_key_is_refused_not_reminted(
    db_url: str, make_app: Any
) -> None:
    key = {"Idempotency-Key": str(uuid.uuid4())}
    first = make_app(db_url).test_client().post("/api/games", json=BODY, headers=key)
    assert first.status_code == 201
    rotated = make_app(db_url, SECRET_KEY="a-different-secret")
    again = rotated.test_client().post("/api/games", json=BODY, headers=key)
    assert again.status_code == 409
    error = again.get_json()["error"]
    assert error["rule"] == "idempotency_tokens_unrecoverable" and "令牌" in error["message"]
    assert "director_token" not in again.get_json()


# ---------------------------------------------------------------------------------------------
# Migration 0005: the tokens minted the old way are revoked, and the log says so


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Any, make_pg_schema: Any) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.sqlite3'}"
        return
    with make_pg_schema() as schema:
        yield schema.url


def _as_minted_before_0005(url: str, game_id: str, key: str) -> tuple[str, dict[str, str], str]:
    """Rewrite a game's tokens as 0003 minted them: derived from ``key``; 软件3's then reissued
    at random (its first token revoked). The old tokens and 软件3's reissued one."""
    director = old_derived_token(key, game_id, "director")
    players = {name: old_derived_token(key, game_id, f"player:{name}") for name in PLAYERS}
    reissued = new_token()
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(text("DELETE FROM tokens WHERE game_id = :g"), {"g": game_id})
            rows = [("director", None, director)] + [("player", n, t) for n, t in players.items()]
            rows.append(("player", "软件3", reissued))
            for kind, character, token in rows:
                connection.execute(
                    text(
                        "INSERT INTO tokens (token_hash, game_id, kind, character, created_at)"
                        " VALUES (:h, :g, :k, :c, CURRENT_TIMESTAMP)"
                    ),
                    {"h": hash_token(token), "g": game_id, "k": kind, "c": character},
                )
            connection.execute(
                text("UPDATE tokens SET revoked_at = CURRENT_TIMESTAMP WHERE token_hash = :h"),
                {"h": hash_token(players["软件3"])},
            )
    finally:
        engine.dispose()
    return director, players, reissued


def test_migration_0005_revokes_key_derived_tokens_and_logs_it(
    url: str, make_app: Any, caplog: pytest.LogCaptureFixture
) -> None:
    upgrade(url)
    app = make_app(url)
    key = str(uuid.uuid4())
    keyed = app.test_client().post("/api/games", json=BODY, headers={"Idempotency-Key": key})
    plain = app.test_client().post("/api/games", json=BODY).get_json()  # no key: untouched
    gid = keyed.get_json()["id"]
    app.extensions["bansha_db"].dispose()
    command.downgrade(alembic_config(url), "0003")
    director, players, reissued = _as_minted_before_0005(url, gid, key)

    with caplog.at_level(logging.INFO, logger="alembic.runtime.migration"):
        upgrade(url)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    # the director and 12 players' first tokens, less 软件3's already revoked one
    assert f"game {gid}: revoked 13 token(s)" not in logged
    assert f"game {gid}: revoked 12 token(s)" in logged
    assert f"bansha token rotate-director {gid}" in logged
    assert plain["id"] not in logged

    client = make_app(url).test_client()
    for token in (director, players["软件1"], players["软件12"]):
        refused = client.get(f"/api/games/{gid}/view", headers=_auth(token))
        assert refused.status_code == 401
        assert refused.get_json()["error"]["code"] == "token_revoked"
    me = client.get(f"/api/games/{gid}/view", headers=_auth(reissued)).get_json()["me"]
    assert me["character"] == "软件3"  # a token reissued at random keeps working
    untouched = client.get(f"/api/games/{plain['id']}/view", headers=_auth(plain["director_token"]))
    assert untouched.get_json()["kind"] == "director"
    # the retry cannot bring the revoked tokens back, nor mint new ones
    again = client.post("/api/games", json=BODY, headers={"Idempotency-Key": key})
    assert again.status_code == 409
    assert again.get_json()["error"]["rule"] == "idempotency_tokens_unrecoverable"
    # and the audit trail names the migration
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            actors = connection.execute(
                text("SELECT actor, action FROM audit_log WHERE game_id = :g"), {"g": gid}
            ).all()
    finally:
        engine.dispose()
    assert ("migration:0005", "revoke_token") in [tuple(a) for a in actors]
