"""Fixtures for the director console: a migrated SQLite file per test and page helpers."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api import create_app
from models.migrate import upgrade

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


@pytest.fixture(scope="session")
def template_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database migrated once; each test gets a copy."""
    path = tmp_path_factory.mktemp("console-template") / "bansha.sqlite3"
    upgrade(f"sqlite:///{path}")
    return path


def app_config(db_url: str) -> dict[str, Any]:
    """The test configuration of the service (rules-only screening: fast and deterministic)."""
    return {
        "DATABASE_URL": db_url,
        "TESTING": True,
        "SECRET_KEY": "console-test-secret",
        "RATE_LIMIT_POSTS": (100_000, 60),
        "RATE_LIMIT_GAMES": (100_000, 60),
        "RATE_LIMIT_WRITES": (100_000, 60),
        "USE_CLASSIFIER": False,
    }


@pytest.fixture
def console_config() -> Callable[[str], dict[str, Any]]:
    """:func:`app_config`, for test modules that build an app of their own."""
    return app_config


@pytest.fixture
def db_url(tmp_path: Path, template_db: Path) -> str:
    target = tmp_path / "bansha.sqlite3"
    shutil.copy(template_db, target)
    return f"sqlite:///{target}"


@pytest.fixture
def app(db_url: str) -> Iterator[Flask]:
    app = create_app(app_config(db_url))
    yield app
    app.extensions["bansha_db"].dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


class Console:
    """Helpers over the test client: the JSON API (as a forum bot) and the console's forms."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self._ids = iter(range(1, 10**9))

    # -- JSON API ---------------------------------------------------------------------------
    def make_game(
        self, roles: dict[str, str] | None = None, seed: str = "console"
    ) -> dict[str, Any]:
        return self.new_game("m72", M72_PLAYERS, roles or M72_ROLES, seed)

    def new_game(
        self, ruleset: str, players: list[str], roles: dict[str, str] | None = None,
        seed: str = "console",
    ) -> dict[str, Any]:  # fmt: skip
        """A game created through the API (``roles`` None: the seed deals)."""
        body: dict[str, Any] = {"ruleset": ruleset, "players": players, "seed": seed}
        if roles is not None:
            body["roles"] = roles
        response = self.client.post("/api/games", json=body)
        assert response.status_code == 201, response.get_json()
        data: dict[str, Any] = response.get_json()
        return data

    def post(
        self, game: dict[str, Any], author: str, body: str, *, thread: str = "discussion",
        day: int = 1,
    ) -> dict[str, Any]:  # fmt: skip
        response = self.client.post(
            f"/api/games/{game['id']}/posts",
            json={
                "forum_post_id": f"f{next(self._ids)}",
                "author": author,
                "thread": thread,
                "day": day,
                "body": body,
                "posted_at": "2026-11-29T20:00:00+08:00",
            },
            headers={"Authorization": f"Bearer {game['director_token']}"},
        )
        assert response.status_code == 200, response.get_json()
        data: dict[str, Any] = response.get_json()
        return data

    def suggestions(self, game: dict[str, Any], status: str = "all") -> list[dict[str, Any]]:
        response = self.client.get(
            f"/api/games/{game['id']}/suggestions?status={status}",
            headers={"Authorization": f"Bearer {game['director_token']}"},
        )
        assert response.status_code == 200
        return list(response.get_json()["suggestions"])

    def announcements(self, game: dict[str, Any]) -> list[str]:
        response = self.client.get(f"/api/games/{game['id']}/announcements")
        return [a["text"] for a in response.get_json()["announcements"]]

    def director_view(self, game: dict[str, Any]) -> dict[str, Any]:
        """The API's view of the game with the director token (roles, every event...)."""
        response = self.client.get(
            f"/api/games/{game['id']}/view",
            headers={"Authorization": f"Bearer {game['director_token']}"},
        )
        assert response.status_code == 200
        data: dict[str, Any] = response.get_json()
        return data

    # -- console ----------------------------------------------------------------------------
    def csrf(self, path: str = "/login") -> str:
        html = self.client.get(path).get_data(as_text=True)
        found = CSRF_RE.search(html)
        assert found, f"no CSRF token on {path}"
        return found.group(1)

    def login(self, token: str, name: str = "") -> Any:
        return self.client.post(
            "/login", data={"csrf_token": self.csrf(), "token": token, "name": name}
        )

    def form(self, path: str, data: dict[str, str], page: str = "/queue") -> Any:
        """POST a console form with a fresh CSRF token taken from ``page``."""
        return self.client.post(path, data={"csrf_token": self.csrf(page), **data})

    def html(self, path: str) -> str:
        response = self.client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        return response.get_data(as_text=True)

    def create_in_form(self, ruleset: str, count: int, seed: str) -> Any:
        """POST the new-game form for characters 角色1 … 角色``count``; the response."""
        players = "\n".join(f"角色{i}" for i in range(1, count + 1))
        return self.client.post(
            "/new",
            data={"csrf_token": self.csrf("/new"), "ruleset": ruleset, "players": players,
                  "seed": seed},
        )  # fmt: skip

    def settle(self) -> None:
        """Enter every offered skill with its first target after 「请选择」 (and a 指杀理由 where
        the row asks for one), then let the deadline pass if offered."""
        for _ in range(40):
            html = self.html("/day")
            form = re.search(
                r'name="actor" value="([^"]+)">\s*'
                r'<input type="hidden" name="skill" value="([^"]+)">'
                r'\s*<label[^>]*>目标</label><select name="target"[^>]*>\s*'
                r'<option value="__pick__" selected>请选择</option>\s*'
                r'<option value="([^"]*)"(.*?)</form>',
                html,
                re.S,
            )
            if form is None:
                break
            actor, skill, target, rest = (unescape(g) for g in form.groups())
            data = {"actor": actor, "skill": skill, "target": target}
            if 'name="reason"' in rest:
                data["reason"] = "刀人"
            self.form("/action", data, page="/day")
            assert f"已记录：{actor}的行动" in self.html("/day"), (actor, skill, target)
        if 'id="deadline"' in self.html("/day"):
            self.form("/deadline", {}, page="/day")


@pytest.fixture
def console(client: FlaskClient) -> Console:
    return Console(client)


@pytest.fixture
def game(console: Console) -> dict[str, Any]:
    return console.make_game()


@pytest.fixture
def seed_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Games created by the service without its server secret, so that a test's deal and couples
    follow from its seed alone, as in game scripts (the service itself always adds a secret)."""
    import api.gameplay

    monkeypatch.setattr(api.gameplay, "new_secret", lambda: "")
