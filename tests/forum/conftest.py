"""Fixtures for forum intake: fixture pages, a migrated SQLite file per test, an M72 game whose
characters are the fixture threads' accounts."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api import create_app
from models.migrate import upgrade

FIXTURES = Path(__file__).parent / "fixtures"
M72_PLAYERS = ["微信", "支付宝", "淘宝", "抖音", "微博", "知乎", "百度", "美团", "滴滴", "高德",
               "网易云", "哔哩哔哩"]  # fmt: skip
M72_ROLES = dict(
    zip(
        M72_PLAYERS,
        ["wolf", "wolf_cub", "madman", "madman", "fox", "seer", "medium", "guard", "crow_big",
         "crow_small", "villager", "villager"],
        strict=True,
    )
)  # fmt: skip
CSRF_RE = re.compile(r'name="csrf_token" value="([^"]+)"')


def fixture(name: str) -> bytes:
    """A fixture file's bytes."""
    return (FIXTURES / name).read_bytes()


@pytest.fixture(scope="session")
def template_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("forum-template") / "bansha.sqlite3"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture
def db_url(tmp_path: Path, template_db: Path) -> str:
    target = tmp_path / "bansha.sqlite3"
    shutil.copy(template_db, target)
    return f"sqlite:///{target}"


@pytest.fixture
def app(db_url: str) -> Iterator[Flask]:
    app = create_app(
        {
            "DATABASE_URL": db_url,
            "TESTING": True,
            "SECRET_KEY": "forum-test-secret",
            "RATE_LIMIT_POSTS": (100_000, 60),
            "USE_CLASSIFIER": False,
        }
    )
    yield app
    app.extensions["bansha_db"].dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def players_with(accounts: dict[str, str] | None = None) -> list[Any]:
    """The M72 players; ``accounts`` gives some characters a forum account (``player``)."""
    accounts = accounts or {}
    return [
        {"character": name, "player": accounts[name]} if name in accounts else name
        for name in M72_PLAYERS
    ]


@pytest.fixture
def game(client: FlaskClient) -> dict[str, Any]:
    """An M72 game on day 1; 微博 plays as the Tieba account ``weibo_2026``."""
    body = {"ruleset": "m72", "players": players_with({"微博": "weibo_2026"}),
            "roles": M72_ROLES, "seed": "forum"}  # fmt: skip
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.get_json()
    data: dict[str, Any] = response.get_json()
    return data


def stored_posts(client: FlaskClient, game: dict[str, Any]) -> list[dict[str, Any]]:
    """Every stored post of the game, read back from the database (forum id order)."""
    from sqlalchemy import select

    from api.database import db
    from models.posts import Post

    app = client.application
    with app.app_context(), db().read() as session:
        rows = session.scalars(select(Post).where(Post.game_id == game["id"]).order_by(Post.id))
        return [
            {
                "forum_post_id": p.forum_post_id,
                "author": p.author,
                "thread": p.thread,
                "body": p.body,
                "findings": p.findings,
                "vote": p.vote,
                "posted_at": p.posted_at,
            }
            for p in rows
        ]


def login(client: FlaskClient, token: str) -> None:
    html = client.get("/login").get_data(as_text=True)
    found = CSRF_RE.search(html)
    assert found
    response = client.post("/login", data={"csrf_token": found.group(1), "token": token})
    assert response.status_code == 302


def csrf(client: FlaskClient, path: str) -> str:
    html = client.get(path).get_data(as_text=True)
    found = CSRF_RE.search(html)
    assert found, f"no CSRF token on {path}"
    return found.group(1)
