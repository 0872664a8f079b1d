"""``Idempotency-Key`` on ``POST /api/games``: a retried creation answers with the first game.

Concurrent duplicates run against a real threaded server on SQLite and, when reachable, on
PostgreSQL (its own schema per test, dropped afterwards).
"""

from __future__ import annotations

import http.client
import json
import threading
import uuid
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select, text

from api import idempotency as idem
from models.game import Game, Token
from models.idempotency import IdempotencyKey

PLAYERS = [f"软件{i}" for i in range(1, 13)]


def _body(seed: str = "idem", **extra: Any) -> dict[str, Any]:
    return {"ruleset": "m72", "players": PLAYERS, "seed": seed, **extra}


def _key() -> str:
    return str(uuid.uuid4())


def _create(app: Flask, body: Any, key: str | None, token: str | None = None) -> Any:
    headers = {} if key is None else {"Idempotency-Key": key}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return app.test_client().post("/api/games", json=body, headers=headers)


def _count(app: Flask, model: Any) -> int:
    with app.extensions["bansha_db"].read() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


# ``any_app`` (conftest) runs a test on SQLite and on PostgreSQL.


# ---------------------------------------------------------------------------------------------
# One client retrying


def test_a_retry_with_the_same_key_and_body_gets_the_first_game(app: Flask) -> None:
    key = _key()
    first = _create(app, _body(), key)
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    again = _create(app, _body(), key)
    assert again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()  # same id, commitment and tokens
    assert _count(app, Game) == 1 and _count(app, IdempotencyKey) == 1
    # the replayed tokens are the live ones
    game = again.get_json()
    view = app.test_client().get(
        f"/api/games/{game['id']}/view",
        headers={"Authorization": f"Bearer {game['player_tokens']['软件6']}"},
    )
    assert view.status_code == 200 and view.get_json()["me"]["character"] == "软件6"


def test_the_body_is_compared_as_json_not_as_bytes(app: Flask) -> None:
    key = _key()
    first = _create(app, {"seed": "s", "players": PLAYERS, "ruleset": "m72"}, key)
    spaced = json.dumps({"ruleset": "m72", "seed": "s", "players": PLAYERS}, indent=2)
    again = app.test_client().post(
        "/api/games",
        data=spaced,
        content_type="application/json",
        headers={"Idempotency-Key": key},
    )
    assert again.status_code == 201 and again.get_json()["id"] == first.get_json()["id"]


def test_without_a_seed_the_retry_is_still_the_same_deal(app: Flask) -> None:
    key = _key()
    body = {"ruleset": "m72", "players": PLAYERS}  # the service draws the seed
    first, again = _create(app, body, key), _create(app, body, key)
    assert first.get_json()["commitment"] == again.get_json()["commitment"]
    assert _count(app, Game) == 1
    # without a key, each request is a new game with a new random deal
    assert _create(app, body, None).get_json()["id"] != first.get_json()["id"]
    assert _count(app, Game) == 2


def test_the_same_key_with_another_body_is_422_and_creates_nothing(app: Flask) -> None:
    key = _key()
    first = _create(app, _body("one"), key)
    other = _create(app, _body("two"), key)
    assert other.status_code == 422
    error = other.get_json()["error"]
    assert error["code"] == "unprocessable" and error["rule"] == "idempotency_key_reused"
    assert "另一份请求正文" in error["message"]
    assert "director_token" not in other.get_json()
    assert _count(app, Game) == 1
    # the first body still replays the first game
    assert _create(app, _body("one"), key).get_json()["id"] == first.get_json()["id"]


def test_different_keys_make_different_games(app: Flask) -> None:
    a, b = _create(app, _body(), _key()), _create(app, _body(), _key())
    assert a.get_json()["id"] != b.get_json()["id"]
    assert a.get_json()["director_token"] != b.get_json()["director_token"]
    assert _count(app, Game) == 2


@pytest.mark.parametrize(
    "key",
    ["short", "", "   ", "has a space in it 1234", "密钥" * 10, "x" * 256, "tab\there-123456"],
)
def test_a_malformed_key_is_400_and_creates_nothing(app: Flask, key: str) -> None:
    response = app.test_client().post(
        "/api/games", json=_body(), headers={"Idempotency-Key": key.encode().decode("latin-1")}
    )
    assert response.status_code == 400, response.get_json()
    error = response.get_json()["error"]
    assert error["path"] == "Idempotency-Key" and "16 至 255" in error["message"]
    assert _count(app, Game) == 0


def test_a_rejected_request_leaves_the_key_free(app: Flask) -> None:
    key = _key()
    bad = _create(app, {"ruleset": "m72", "players": PLAYERS[:5]}, key)  # wrong player count
    assert bad.status_code == 400
    assert _count(app, IdempotencyKey) == 0
    good = _create(app, _body(), key)
    assert good.status_code == 201 and "Idempotent-Replayed" not in good.headers


def test_the_database_holds_no_usable_token(app: Flask) -> None:
    key = _key()
    game = _create(app, _body(), key).get_json()
    secrets = [game["director_token"], *game["player_tokens"].values()]
    with app.extensions["bansha_db"].read() as session:
        dump = []
        for table in ("games", "tokens", "idempotency_keys", "audit_log", "game_events"):
            dump += [str(tuple(row)) for row in session.execute(text(f"SELECT * FROM {table}"))]
        stored = session.scalars(select(IdempotencyKey)).one()
    everything = "\n".join(dump)
    assert not any(s in everything for s in secrets)
    assert key not in everything  # only the key's hash
    assert stored.key_hash == idem.key_hash(key) and stored.status == 201
    assert "director_token" not in stored.response and "player_tokens" not in stored.response


def test_replays_survive_a_restart(db_url: str, make_app: Any) -> None:
    key = _key()
    first = make_app(db_url)
    created = _create(first, _body(), key).get_json()
    first.extensions["bansha_db"].dispose()
    second = make_app(db_url)  # another worker, or after a restart
    again = _create(second, _body(), key)
    assert again.status_code == 201 and again.get_json() == created
    assert _count(second, Game) == 1


def test_keys_are_scoped_by_the_creating_credential(db_url: str, make_app: Any) -> None:
    key = _key()
    apps = [make_app(db_url, ADMIN_TOKEN=admin) for admin in ("admin-one", "admin-two", None)]
    one = _create(apps[0], _body(), key, "admin-one")
    assert one.status_code == 201
    assert _create(apps[0], _body(), key, "admin-one").get_json()["id"] == one.get_json()["id"]
    # the same key under another admin token, or from the public, is another caller's key
    two = _create(apps[1], _body(), key, "admin-two")
    public = _create(apps[2], _body(), key)
    ids = {one.get_json()["id"], two.get_json()["id"], public.get_json()["id"]}
    assert len(ids) == 3 and _count(apps[0], IdempotencyKey) == 3
    # the admin check still comes first: no replay for a caller without the admin token
    assert _create(apps[0], _body(), key).status_code == 401
    assert _create(apps[0], _body(), key, "admin-two").status_code == 403


def test_a_lost_race_rolls_back_and_replays_the_winner(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loser of a race read no key before the winner committed: its own insert finds the key
    taken, its game is rolled back, and it answers with the winner's game."""
    key = _key()
    winner = _create(app, _body(), key).get_json()
    real_find = idem.find
    calls: list[str] = []

    def find_nothing_first(session: Any, scope: str, hashed: str) -> Any:
        calls.append(hashed)
        return None if len(calls) == 1 else real_find(session, scope, hashed)

    monkeypatch.setattr(idem, "find", find_nothing_first)
    loser = _create(app, _body(), key)
    assert len(calls) == 2  # the early look-up (made to miss), then the replay's
    assert loser.status_code == 201 and loser.headers["Idempotent-Replayed"] == "true"
    assert loser.get_json() == winner
    assert _count(app, Game) == 1 and _count(app, Token) == 13  # the loser stored nothing
    calls.clear()
    other = _create(app, _body("another seed"), key)
    assert other.status_code == 422 and _count(app, Game) == 1


def test_a_replay_hands_back_the_tokens_as_first_issued(app: Flask) -> None:
    key = _key()
    game = _create(app, _body(), key).get_json()
    auth = {"Authorization": f"Bearer {game['director_token']}"}
    client = app.test_client()
    revoked = client.post(
        f"/api/games/{game['id']}/tokens/revoke", json={"character": "软件3"}, headers=auth
    )
    assert revoked.status_code == 200
    again = _create(app, _body(), key).get_json()
    assert again["player_tokens"]["软件3"] == game["player_tokens"]["软件3"]
    view = client.get(
        f"/api/games/{game['id']}/view",
        headers={"Authorization": f"Bearer {again['player_tokens']['软件3']}"},
    )
    assert view.status_code == 401  # a replay never brings a revoked token back


# ---------------------------------------------------------------------------------------------
# Concurrent duplicates against a real server


def _send(port: int, body: Any, key: str) -> tuple[int, Any, str | None]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request(
        "POST",
        "/api/games",
        body=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Idempotency-Key": key},
    )
    response = conn.getresponse()
    payload = json.loads(response.read() or b"null")
    replayed = response.getheader("Idempotent-Replayed")
    conn.close()
    return response.status, payload, replayed


def test_concurrent_duplicates_create_one_game(
    any_app: Flask, serve: Any, concurrently: Any
) -> None:
    key = _key()
    with serve(any_app) as port:
        results = concurrently(8, lambda i: _send(port, _body("race"), key))
    assert [s for s, _, _ in results] == [201] * 8
    assert len({json.dumps(b, sort_keys=True) for _, b, _ in results}) == 1  # one answer
    assert sorted(str(r) for _, _, r in results) == ["None"] + ["true"] * 7
    assert _count(any_app, Game) == 1 and _count(any_app, IdempotencyKey) == 1
    assert _count(any_app, Token) == 13


def test_concurrent_requests_with_one_key_and_different_bodies(
    any_app: Flask, serve: Any, concurrently: Any
) -> None:
    key = _key()
    bodies = [_body(f"seed-{i % 2}") for i in range(8)]
    with serve(any_app) as port:
        results = concurrently(8, lambda i: _send(port, bodies[i], key))
    assert _count(any_app, Game) == 1
    created = [(i, b) for i, (s, b, _) in enumerate(results) if s == 201]
    refused = [i for i, (s, _, _) in enumerate(results) if s == 422]
    assert len(created) + len(refused) == 8
    winner_seed = bodies[created[0][0]]["seed"]
    # everyone who sent the winner's body got its game; everyone else a 422
    assert {bodies[i]["seed"] for i, _ in created} == {winner_seed}
    assert {bodies[i]["seed"] for i in refused} <= {"seed-0", "seed-1"} - {winner_seed}
    assert len({b["id"] for _, b in created}) == 1
    assert len(refused) == 4


@pytest.mark.postgres
def test_postgres_a_duplicate_waits_for_the_first_and_replays_it(
    pg_app: tuple[Flask, Any],
) -> None:
    """The second insert of a key blocks on the unique index until the first transaction ends:
    after a commit it answers with that game, and nothing of its own is stored."""
    import psycopg

    key = _key()
    app, schema = pg_app
    with psycopg.connect(schema.dsn) as other:
        other.execute(f'SET search_path TO "{schema.name}"')
        # an "in-flight" first request: its game and key inserted, not yet committed
        other.execute(
            "INSERT INTO games (id, ruleset, seed, players, commitment, version, finished,"
            " accelerated_days, created_at) VALUES ('inflight', 'm72', 's', '[]', 'c', 0,"
            " false, '[]', now())"
        )
        response = {"id": "inflight", "ruleset": "m72", "characters": PLAYERS,
                    "commitment": "c", "announcements": []}  # fmt: skip
        sealed = idem.seal_tokens(app.config["SECRET_KEY"], "d", {p: p for p in PLAYERS})
        other.execute(
            "INSERT INTO idempotency_keys (scope, key_hash, request_hash, game_id, status,"
            " response, sealed_tokens, created_at)"
            " VALUES ('public', %s, %s, 'inflight', 201, %s, %s, now())",
            (idem.key_hash(key), idem.fingerprint(_body()), json.dumps(response), sealed),
        )
        done: list[Any] = []
        thread = threading.Thread(target=lambda: done.append(_create(app, _body(), key)))
        thread.start()
        thread.join(timeout=1.5)
        assert thread.is_alive() and not done  # waiting on the key, not creating
        other.commit()
        thread.join(timeout=30)
    assert done and done[0].status_code == 201
    assert done[0].get_json()["id"] == "inflight"
    assert done[0].headers["Idempotent-Replayed"] == "true"
    assert _count(app, Game) == 1 and _count(app, Token) == 0
