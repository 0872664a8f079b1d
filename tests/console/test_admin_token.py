"""With ``BANSHA_ADMIN_TOKEN`` set, the console's 新建游戏 page asks for it; refuses without it."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select

from api import create_app
from models.game import Game as GameRow

PLAYERS = "\n".join(f"角色{i}" for i in range(1, 13))
ADMIN = "operator-secret"


@pytest.fixture
def admin_app(db_url: str, console_config: Any) -> Any:
    app = create_app({**console_config(db_url), "ADMIN_TOKEN": ADMIN})
    yield app
    app.extensions["bansha_db"].dispose()


def _games(app: Flask) -> int:
    with app.extensions["bansha_db"].read() as session:
        return int(session.scalar(select(func.count()).select_from(GameRow)) or 0)


def _create(app: Flask, **extra: str) -> Any:
    client = app.test_client()
    form = client.get("/new").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', form)
    assert csrf is not None
    data = {"csrf_token": csrf.group(1), "ruleset": "m72", "players": PLAYERS, **extra}
    return client.post("/new", data=data)


def test_the_new_game_page_asks_for_the_admin_token(admin_app: Flask) -> None:
    form = admin_app.test_client().get("/new").get_data(as_text=True)
    assert 'name="admin_token"' in form and 'type="password"' in form and "管理员令牌" in form


def test_without_the_admin_token_no_game_is_created(admin_app: Flask) -> None:
    missing = _create(admin_app)
    assert missing.status_code == 400
    assert "须填写管理员令牌" in unescape(missing.get_data(as_text=True))
    wrong = _create(admin_app, admin_token="guess")
    assert wrong.status_code == 400
    assert "此令牌不能创建游戏" in unescape(wrong.get_data(as_text=True))
    assert "guess" not in wrong.get_data(as_text=True)  # a typed token is never echoed back
    assert _games(admin_app) == 0


def test_with_the_admin_token_the_game_is_created(admin_app: Flask) -> None:
    created = _create(admin_app, admin_token=ADMIN)
    assert created.status_code == 200
    assert 'id="director-token"' in created.get_data(as_text=True)
    assert _games(admin_app) == 1


def test_without_an_admin_token_configured_the_page_does_not_ask(client: Any) -> None:
    assert 'name="admin_token"' not in client.get("/new").get_data(as_text=True)


def test_the_new_game_page_shares_the_game_creation_budget(
    db_url: str, console_config: Any
) -> None:
    app = create_app({**console_config(db_url), "RATE_LIMIT_GAMES": (1, 10**8)})
    try:
        assert _create(app).status_code == 200
        refused = _create(app)
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
        assert "新建游戏过于频繁" in unescape(refused.get_data(as_text=True))
        assert _games(app) == 1
    finally:
        app.extensions["bansha_db"].dispose()
