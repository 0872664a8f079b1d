"""Migration 0003 (idempotency keys, token revocation) on a database already in use at 0002.

The database is filled by the service (a game, posts, a card), taken back to 0002 — checked to
be the very schema a fresh 0002 has — and upgraded again: the old tokens keep working, the data is
intact, and revocation and idempotency keys work on it. On SQLite and, when reachable, PostgreSQL.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from alembic import command
from sqlalchemy import inspect, text
from sqlalchemy.exc import DBAPIError

from models.database import make_engine
from models.migrate import alembic_config, current_revision, upgrade

PLAYERS = [f"软件{i}" for i in range(1, 13)]


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def two_urls(
    request: pytest.FixtureRequest, tmp_path: Any, make_pg_schema: Any
) -> Iterator[tuple[str, str]]:
    """Two empty databases of the same backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'used.sqlite3'}", f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
        return
    with make_pg_schema() as used, make_pg_schema() as fresh:
        yield used.url, fresh.url


def _schema(url: str) -> dict[str, Any]:
    """Tables with their columns, unique constraints and triggers (what 0003 touches)."""
    engine = make_engine(url)
    try:
        inspector = inspect(engine)
        tables = {
            name: (
                sorted(c["name"] for c in inspector.get_columns(name)),
                sorted(str(u["name"]) for u in inspector.get_unique_constraints(name)),
            )
            for name in inspector.get_table_names()
        }
        with engine.connect() as connection:
            if engine.dialect.name == "sqlite":
                query = "SELECT name FROM sqlite_master WHERE type = 'trigger'"
            else:
                query = (
                    "SELECT DISTINCT trigger_name FROM information_schema.triggers "
                    "WHERE trigger_schema = current_schema()"
                )
            triggers = sorted(connection.execute(text(query)).scalars())
        return {"tables": tables, "triggers": triggers}
    finally:
        engine.dispose()


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _post(forum_id: str, body: str) -> dict[str, Any]:
    return {
        "forum_post_id": forum_id,
        "author": "软件3",
        "thread": "discussion",
        "day": 1,
        "body": body,
        "posted_at": "2026-11-29T20:00:00+08:00",
    }


def test_upgrade_from_0002_keeps_the_data_and_the_tokens(
    two_urls: tuple[str, str], make_app: Any
) -> None:
    used, fresh = two_urls
    # A database in use: a game, two posts, a card.
    upgrade(used)
    app = make_app(used)
    client = app.test_client()
    game = client.post(
        "/api/games", json={"ruleset": "m72", "players": PLAYERS, "seed": "migrate"}
    ).get_json()
    gid, director = game["id"], _auth(game["director_token"])
    for forum_id, text_ in (("m1", "过"), ("m2", "你个ＳＢ")):
        stored = client.post(
            f"/api/games/{gid}/posts", json=_post(forum_id, text_), headers=director
        )
        assert stored.status_code == 200
    card = {"character": "软件3", "colour": "blue", "category": "other", "reason": "迁移前"}
    assert client.post(f"/api/games/{gid}/cards", json=card, headers=director).status_code == 201
    app.extensions["bansha_db"].dispose()

    # Back to 0002: the same schema as a database that was only ever migrated to 0002.
    command.downgrade(alembic_config(used), "0002")
    upgrade(fresh, "0002")
    assert current_revision(used) == current_revision(fresh) == "0002"
    at_0002 = _schema(used)
    assert at_0002 == _schema(fresh)
    assert "idempotency_keys" not in at_0002["tables"]
    assert "revoked_at" not in at_0002["tables"]["tokens"][0]

    # The upgrade under test.
    upgrade(used)
    assert current_revision(used) == "0007"  # head: 0003 and what followed it
    after = _schema(used)
    assert "revoked_at" in after["tables"]["tokens"][0]
    assert "uq_idempotency_keys_scope_key_hash" in after["tables"]["idempotency_keys"][1]
    assert set(after["triggers"]) > set(at_0002["triggers"])  # 0002's triggers are all kept

    app = make_app(used)
    client = app.test_client()
    # Old tokens are live: the director's and every player's.
    view = client.get(f"/api/games/{gid}/view", headers=director).get_json()
    assert view["kind"] == "director"
    for character, token in game["player_tokens"].items():
        me = client.get(f"/api/games/{gid}/view", headers=_auth(token)).get_json()["me"]
        assert me["character"] == character
    # The data is intact: a retried post is still a duplicate, the card still in the ledger.
    again = client.post(f"/api/games/{gid}/posts", json=_post("m2", "你个ＳＢ"), headers=director)
    assert again.get_json()["duplicate"] is True
    cards = client.get(f"/api/games/{gid}/cards", headers=director).get_json()
    ledger = next(p for p in cards["players"] if p["character"] == "软件3")
    assert len(ledger["cards"]) == 1 and ledger["cards"][0]["reason"].endswith("迁移前")
    # Revocation and idempotency keys work on the upgraded database.
    revoked = client.post(
        f"/api/games/{gid}/tokens/revoke", json={"character": "软件3"}, headers=director
    )
    assert revoked.get_json()["revoked"] == 1
    old = _auth(game["player_tokens"]["软件3"])
    assert client.get(f"/api/games/{gid}/view", headers=old).status_code == 401
    key = {"Idempotency-Key": str(uuid.uuid4())}
    body = {"ruleset": "m72", "players": PLAYERS, "seed": "after"}
    first = client.post("/api/games", json=body, headers=key).get_json()
    assert client.post("/api/games", json=body, headers=key).get_json() == first
    app.extensions["bansha_db"].dispose()  # the service is done before the raw check

    # 0002's append-only triggers still hold after 0003.
    engine = make_engine(used)
    try:
        with pytest.raises(DBAPIError), engine.begin() as connection:
            connection.execute(text("UPDATE audit_log SET actor = 'someone else'"))
    finally:
        engine.dispose()
