"""Migration 0006 (the forum's registry) on a database in use at 0005.

The database is filled by the service (a game with a card, a 替补 and a card after it, finished;
a game whose players were given by character name only), taken back to 0005 — checked to be the
very schema a fresh 0005 has — and upgraded again: every game is in the registry, each card with
the player who earned it, the finished game's roles and results read from its log. On SQLite and,
when reachable, PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from alembic import command
from sqlalchemy import inspect

from models.database import make_engine
from models.migrate import alembic_config, current_revision, upgrade

ADMIN = "migration-admin"
M08 = ["穗乃果", "绘里", "小鸟", "海未", "凛", "真姬", "希", "花阳", "妮可", "千歌", "梨子"]


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


def _tables(url: str) -> dict[str, tuple[list[str], list[str]]]:
    engine = make_engine(url)
    try:
        inspector = inspect(engine)
        return {
            name: (
                sorted(c["name"] for c in inspector.get_columns(name)),
                sorted(str(u["name"]) for u in inspector.get_unique_constraints(name)),
            )
            for name in inspector.get_table_names()
        }
    finally:
        engine.dispose()


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _fill(client: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    players = [{"character": "穗乃果", "player": "张三"}, *M08[1:]]
    first = client.post(
        "/api/games", json={"ruleset": "m08", "players": players}, headers=_auth(ADMIN)
    ).get_json()
    director = _auth(first["director_token"])
    for colour in ("yellow", None, "red"):
        if colour is None:
            body = {"type": "substitute", "character": "穗乃果", "player": "李四"}
            assert client.post(
                f"/api/games/{first['id']}/actions", json=body, headers=director
            ).status_code == 200  # fmt: skip
            continue
        card = {"character": "穗乃果", "colour": colour, "category": "other", "reason": colour}
        assert client.post(
            f"/api/games/{first['id']}/cards", json=card, headers=director
        ).status_code == 201  # fmt: skip
    ended = client.post(
        f"/api/games/{first['id']}/actions",
        json={"type": "declare_faction_lost", "faction": "wolves"},
        headers=director,
    )
    assert ended.get_json()["outcome"]["ended"]
    second = client.post(
        "/api/games",
        json={"ruleset": "m72", "players": [f"软件{i}" for i in range(1, 13)]},
        headers=_auth(ADMIN),
    ).get_json()
    return first, second


def _search(client: Any, name: str) -> dict[str, Any]:
    found = client.get(
        "/api/registry/players", query_string={"name": name}, headers=_auth(ADMIN)
    ).get_json()["players"]
    (exact,) = [p for p in found if p["player"]["name"] == name]
    return dict(exact)


#: what the migration must rebuild of a game (ids of players and times of seats may differ)
GAME_KEYS = (
    "game_id",
    "ruleset",
    "character",
    "substitute",
    "role",
    "faction",
    "result",
    "finished",
)


def _essence(record: dict[str, Any]) -> dict[str, Any]:
    """The record without what may differ after the migration."""
    return {
        "name": record["player"]["name"],
        "games": [{k: g[k] for k in GAME_KEYS} for g in record["games"]],
        "cards": [(c["id"], c["colour"], c["standing"]) for c in record["cards"]],
    }


def test_upgrade_from_0005_brings_every_game_into_the_registry(
    two_urls: tuple[str, str], make_app: Any
) -> None:
    used, fresh = two_urls
    upgrade(used)
    app = make_app(used, ADMIN_TOKEN=ADMIN)
    client = app.test_client()
    first, second = _fill(client)
    before = {name: _essence(_search(client, name)) for name in ("张三", "李四", "软件1")}
    assert [c[1] for c in before["张三"]["cards"]] == ["yellow"]
    assert [c[1] for c in before["李四"]["cards"]] == ["red"]
    app.extensions["bansha_db"].dispose()

    command.downgrade(alembic_config(used), "0005")
    upgrade(fresh, "0005")
    assert current_revision(used) == current_revision(fresh) == "0005"
    at_0005 = _tables(used)
    assert at_0005 == _tables(fresh)
    assert "game_seats" not in at_0005

    upgrade(used)
    assert current_revision(used) == "0007"
    app = make_app(used, ADMIN_TOKEN=ADMIN)
    client = app.test_client()
    after = {name: _essence(_search(client, name)) for name in ("张三", "李四", "软件1")}
    assert after == before
    assert after["李四"]["games"][0]["substitute"] is True
    assert after["李四"]["games"][0]["result"] in ("win", "lose")
    assert after["软件1"]["games"] == [
        {"game_id": second["id"], "ruleset": "m72", "character": "软件1", "substitute": False,
         "role": None, "faction": None, "result": None, "finished": False}
    ]  # fmt: skip
    # the upgraded registry keeps working: 张三's next game counts his old one
    third = client.post(
        "/api/games",
        json={"ruleset": "m08", "players": [{"character": "凛", "player": "张三"}, *M08[:4],
                                            *M08[5:]]},
        headers=_auth(ADMIN),
    ).get_json()  # fmt: skip
    seats = client.get(f"/api/games/{third['id']}/seats", headers=_auth(third["director_token"]))
    mine = next(s for s in seats.get_json()["seats"] if s["player"] == "张三")
    assert mine["games_played"] == 1
    assert first["id"] != third["id"]
