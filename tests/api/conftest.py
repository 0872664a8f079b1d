"""Fixtures for the service tests: a migrated SQLite file per test, copied from a template, and
for the tests that also run on PostgreSQL, a throw-away schema on the test server."""

from __future__ import annotations

import shutil
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event

from api import create_app
from models.migrate import upgrade

M08_PLAYERS = ["穗乃果", "绘里", "小鸟", "海未", "凛", "真姬", "希", "花阳", "妮可", "千歌", "梨子"]
# A fixed deal so tests know who is who (the seed still drives every other random pick).
M08_ROLES = {
    "穗乃果": "wolf",
    "绘里": "wolf",
    "小鸟": "wolf",
    "海未": "wolf",
    "凛": "seer",
    "真姬": "witch",
    "希": "hunter",
    "花阳": "villager",
    "妮可": "villager",
    "千歌": "villager",
    "梨子": "villager",
}
M72_PLAYERS = [f"软件{i}" for i in range(1, 13)]
M72_ROLES = dict(
    zip(
        M72_PLAYERS,
        ["wolf", "wolf_cub", "madman", "madman", "fox", "seer", "medium", "guard", "crow_big",
         "crow_small", "villager", "villager"],
        strict=True,
    )
)  # fmt: skip


#: the service's test configuration (rules-only screening: fast and deterministic)
#: every test service shares one SECRET_KEY, as a deployment's workers share BANSHA_SECRET_KEY
SERVICE_CONFIG: dict[str, Any] = {
    "RATE_LIMIT_POSTS": (100_000, 60),
    "RATE_LIMIT_GAMES": (100_000, 60),
    "RATE_LIMIT_WRITES": (100_000, 60),
    "USE_CLASSIFIER": False,
    "SECRET_KEY": "api-test-secret",
}
#: the PostgreSQL test server as psycopg takes it; each test works in a schema of its own
PG_DSN = "postgresql://postgres@127.0.0.1:5432/test"


def postgres_unreachable() -> str | None:
    """Why the PostgreSQL test server cannot be used (the skip reason), or None when it can."""
    try:
        import psycopg

        with psycopg.connect(PG_DSN, connect_timeout=2):
            return None
    except Exception as exc:
        return f"PostgreSQL at 127.0.0.1:5432/test unreachable: {exc}"


class PgSchema(NamedTuple):
    """A throw-away schema on the PostgreSQL test server."""

    url: str  # the service's database URL, its search_path set to the schema
    name: str
    dsn: str  # the server for psycopg, for a second connection beside the service's


@contextmanager
def postgres_schema() -> Iterator[PgSchema]:
    """An empty schema, dropped afterwards so reruns start clean; skips the test when the server
    is unreachable."""
    reason = postgres_unreachable()
    if reason:
        pytest.skip(reason)
    import psycopg

    name = f"bansha_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{name}"')
    try:
        options = quote(f"-csearch_path={name}")
        url = f"postgresql+psycopg://postgres@127.0.0.1:5432/test?options={options}"
        yield PgSchema(url, name, PG_DSN)
    finally:
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{name}" CASCADE')


@contextmanager
def serve_app(app: Flask) -> Iterator[int]:
    """The app on a real threaded server (its port), so that requests truly overlap."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        thread.join(timeout=10)


def run_concurrently(n: int, fn: Callable[[int], Any]) -> list[Any]:
    """``fn(0)`` … ``fn(n - 1)`` from n threads released together; the results in that order."""
    barrier = threading.Barrier(n)
    results: list[Any] = [None] * n

    def run(i: int) -> None:
        barrier.wait()
        results[i] = fn(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results


@pytest.fixture(scope="session")
def template_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database migrated once; each test gets a copy."""
    path = tmp_path_factory.mktemp("template") / "bansha.sqlite3"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture
def db_url(tmp_path: Path, template_db: Path) -> str:
    target = tmp_path / "bansha.sqlite3"
    shutil.copy(template_db, target)
    return f"sqlite:///{target}"


@pytest.fixture
def app(db_url: str) -> Iterator[Flask]:
    app = create_app({"DATABASE_URL": db_url, "TESTING": True, **SERVICE_CONFIG})
    yield app
    app.extensions["bansha_db"].dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


# Fixtures for the tests that run on both backends (test modules cannot import this one: the
# helpers above reach them through these).


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def any_url(request: pytest.FixtureRequest, db_url: str) -> Iterator[str]:
    """A migrated database on each backend: SQLite, and PostgreSQL in a throw-away schema."""
    if request.param == "postgresql":
        with postgres_schema() as schema:
            upgrade(schema.url)
            yield schema.url
        return
    yield db_url


@pytest.fixture
def any_app(any_url: str) -> Iterator[Flask]:
    """The service over ``any_url``, with Flask's testing mode off as in a real worker."""
    app = create_app({"DATABASE_URL": any_url, **SERVICE_CONFIG})
    yield app
    app.extensions["bansha_db"].dispose()


@pytest.fixture
def pg_app() -> Iterator[tuple[Flask, PgSchema]]:
    """The service on PostgreSQL only, in a migrated throw-away schema, with that schema (for a
    second connection that holds locks); skips when the server is unreachable."""
    with postgres_schema() as schema:
        upgrade(schema.url)
        app = create_app({"DATABASE_URL": schema.url, **SERVICE_CONFIG})
        yield app, schema
        app.extensions["bansha_db"].dispose()


@pytest.fixture
def make_pg_schema() -> Callable[[], AbstractContextManager[PgSchema]]:
    """``with make_pg_schema() as schema:`` gives an empty throw-away schema (skips when the
    server is unreachable); for tests that need several, or to migrate it themselves."""
    return postgres_schema


@pytest.fixture
def serve() -> Callable[[Flask], AbstractContextManager[int]]:
    """``with serve(app) as port:`` runs the app on a real threaded server."""
    return serve_app


@pytest.fixture
def concurrently() -> Callable[[int, Callable[[int], Any]], list[Any]]:
    """``concurrently(n, fn)`` calls ``fn(0)`` … ``fn(n - 1)`` from n threads released together."""
    return run_concurrently


@pytest.fixture
def make_app() -> Iterator[Callable[..., Flask]]:
    """``make_app(url, **config)``: another service over ``url`` (a second worker, or the same
    one after a restart) with the test configuration, ``config`` overriding it; each is disposed
    at the end of the test (disposing one earlier, e.g. before a restart, is harmless)."""
    made: list[Flask] = []

    def make(url: str, **config: Any) -> Flask:
        app = create_app({"DATABASE_URL": url, **SERVICE_CONFIG, **config})
        made.append(app)
        return app

    yield make
    for app in made:
        app.extensions["bansha_db"].dispose()


@contextmanager
def capture_statements(app: Flask) -> Iterator[list[str]]:
    """Every SQL statement ``app`` runs inside the block (whitespace collapsed, upper case)."""
    database = app.extensions["bansha_db"]
    seen: list[str] = []

    def hook(*args: Any) -> None:
        seen.append(" ".join(str(args[2]).split()).upper())

    engines = {database.write_engine, database.read_engine}
    for engine in engines:
        event.listen(engine, "before_cursor_execute", hook)
    try:
        yield seen
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", hook)


@pytest.fixture
def statements() -> Callable[[Flask], AbstractContextManager[list[str]]]:
    """``with statements(app) as seen:`` collects the SQL ``app`` runs in the block."""
    return capture_statements


def create_dealt_game(app: Flask, seed: str) -> tuple[str, dict[str, str]]:
    """A new M72 game with a random deal on ``app``: its id and the director's auth header."""
    created = app.test_client().post(
        "/api/games", json={"ruleset": "m72", "players": M72_PLAYERS, "seed": seed}
    )
    assert created.status_code == 201
    body = created.get_json()
    return body["id"], bearer(body["director_token"])


@pytest.fixture
def dealt_game() -> Callable[[Flask, str], tuple[str, dict[str, str]]]:
    """:func:`create_dealt_game`, for test modules (they cannot import this file)."""
    return create_dealt_game


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Api:
    """Small helpers over the Flask test client (fixtures cannot be imported in importlib mode)."""

    M08_PLAYERS = M08_PLAYERS
    M08_ROLES = M08_ROLES
    M72_PLAYERS = M72_PLAYERS
    M72_ROLES = M72_ROLES

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self._ids = iter(range(1, 10**9))

    @staticmethod
    def auth(token: str) -> dict[str, str]:
        return bearer(token)

    def make_game(
        self,
        ruleset: str = "m72",
        players: list[Any] | None = None,
        roles: dict[str, str] | None = None,
        seed: str = "test-seed",
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"ruleset": ruleset, "seed": seed}
        if ruleset == "m08":
            body["players"] = players or M08_PLAYERS
            body["roles"] = M08_ROLES if roles is None else roles
        else:
            body["players"] = players or M72_PLAYERS
            body["roles"] = M72_ROLES if roles is None else roles
        response = self.client.post("/api/games", json=body)
        assert response.status_code == 201, response.get_json()
        data: dict[str, Any] = response.get_json()
        return data

    def post_body(
        self,
        author: str,
        body: str,
        *,
        thread: str = "discussion",
        day: int = 1,
        forum_post_id: str | None = None,
        posted_at: str = "2026-11-29T20:00:00+08:00",
        **extra: Any,
    ) -> dict[str, Any]:
        return {
            "forum_post_id": forum_post_id or f"p{next(self._ids)}",
            "author": author,
            "thread": thread,
            "day": day,
            "body": body,
            "posted_at": posted_at,
            **extra,
        }

    def post(self, game: dict[str, Any], author: str, body: str, **kw: Any) -> dict[str, Any]:
        response = self.client.post(
            f"/api/games/{game['id']}/posts",
            json=self.post_body(author, body, **kw),
            headers=bearer(game["director_token"]),
        )
        assert response.status_code == 200, response.get_json()
        data: dict[str, Any] = response.get_json()
        return data

    def call(
        self, method: str, path: str, token: str | None = None, json: Any = None, **kw: Any
    ) -> Any:
        headers = bearer(token) if token else {}
        return self.client.open(path, method=method, json=json, headers=headers, **kw)

    def ok(self, method: str, path: str, token: str | None = None, json: Any = None) -> Any:
        response = self.call(method, path, token, json)
        assert response.status_code in (200, 201), (path, response.get_json())
        return response.get_json()

    def decide(
        self, game: dict[str, Any], sid: int, action: str = "confirm", **body: Any
    ) -> dict[str, Any]:
        result: dict[str, Any] = self.ok(
            "POST",
            f"/api/suggestions/{sid}/decision",
            game["director_token"],
            {"action": action, **body},
        )
        return result

    def pending(self, game: dict[str, Any]) -> list[dict[str, Any]]:
        data = self.ok("GET", f"/api/games/{game['id']}/suggestions", game["director_token"])
        return list(data["suggestions"])

    def announcements(self, game: dict[str, Any]) -> list[str]:
        data = self.ok("GET", f"/api/games/{game['id']}/announcements")
        return [a["text"] for a in data["announcements"]]


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)


@pytest.fixture
def game(api: Api) -> dict[str, Any]:
    return api.make_game()
