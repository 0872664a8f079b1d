"""HTTP-level refusals: JSON in the documented shape, in Chinese, before any work is done."""

from __future__ import annotations

import io
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from models.game import Game as GameRow

M72 = [f"软件{i}" for i in range(1, 13)]
GAME = b'{"ruleset": "m72", "players": ["' + '", "'.join(M72).encode() + b'"]}'


def _games(app: Flask) -> int:
    with app.extensions["bansha_db"].read() as session:
        return int(session.scalar(select(func.count()).select_from(GameRow)) or 0)


def _error(response: Any, status: int, code: str) -> dict[str, Any]:
    """The error body, checked for its status, JSON shape and a Chinese message."""
    assert response.status_code == status, response.data[:300]
    assert response.mimetype == "application/json"
    error: dict[str, Any] = response.get_json()["error"]
    assert error["code"] == code
    assert any("\u4e00" <= ch <= "\u9fff" for ch in error["message"]), error["message"]
    return error


class _Untouchable(io.RawIOBase):
    """A request body that must never be read."""

    reads = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        type(self).reads += 1
        raise AssertionError("the body was read")


def test_a_declared_body_over_the_limit_is_413_before_a_byte_is_read(
    app: Flask, client: FlaskClient
) -> None:
    limit = app.config["MAX_CONTENT_LENGTH"]
    response = client.post(
        "/api/games",
        content_type="application/json",
        environ_overrides={"wsgi.input": _Untouchable(), "CONTENT_LENGTH": str(limit + 1)},
    )
    error = _error(response, 413, "too_large")
    assert str(limit) in error["message"]
    assert _Untouchable.reads == 0
    assert _games(app) == 0


def test_an_undeclared_body_over_the_limit_is_413_in_chinese(
    app: Flask, client: FlaskClient
) -> None:
    app.config["MAX_CONTENT_LENGTH"] = 100
    body = GAME[:-1] + b', "seed": "' + b"x" * 200 + b'"}'
    # no Content-Length (a chunked body the server has de-chunked): cut off while it is read
    chunked = client.post(
        "/api/games",
        content_type="application/json",
        environ_overrides={"wsgi.input": io.BytesIO(body), "wsgi.input_terminated": True},
    )
    _error(chunked, 413, "too_large")
    assert _games(app) == 0


def test_a_body_that_is_not_json_is_415(app: Flask, client: FlaskClient) -> None:
    # the content types of a CORS "simple request", which a foreign page may send unasked
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        response = client.post("/api/games", data=GAME, content_type=content_type)
        assert "application/json" in _error(response, 415, "unsupported_media_type")["message"]
    no_type = client.post("/api/games", data=GAME)
    _error(no_type, 415, "unsupported_media_type")
    assert _games(app) == 0
    with_charset = client.post(
        "/api/games", data=GAME, content_type="application/json; charset=utf-8"
    )
    assert with_charset.status_code == 201


def test_a_request_line_over_the_limit_is_414(app: Flask, client: FlaskClient) -> None:
    response = client.get("/api/games/x/announcements?" + "a=1&" * 600)
    error = _error(response, 414, "uri_too_long")
    assert str(app.config["MAX_URL_LENGTH"]) in error["message"]


def test_a_wrong_method_is_405_with_allow(client: FlaskClient) -> None:
    response = client.delete("/api/games")
    error = _error(response, 405, "method_not_allowed")
    assert "POST" in response.headers["Allow"].split(", ")
    assert "DELETE" in error["message"]
    on_view = client.put("/api/games/abc/view")
    _error(on_view, 405, "method_not_allowed")
    assert "GET" in on_view.headers["Allow"]


def test_an_unknown_address_is_404_in_chinese(client: FlaskClient) -> None:
    _error(client.get("/api/nothing-here"), 404, "not_found")


def test_query_parameters_are_validated_after_authentication(
    client: FlaskClient, api: Any, game: dict[str, Any]
) -> None:
    url = f"/api/games/{game['id']}/suggestions?status=bogus"
    _error(client.get(url), 401, "unauthorized")  # a stranger learns nothing about validation
    stranger = api.make_game(seed="another")
    _error(client.get(url, headers=api.auth(stranger["director_token"])), 403, "forbidden")
    valid = client.get(url, headers=api.auth(game["director_token"]))
    assert _error(valid, 400, "bad_request")["path"] == "status"


def test_a_body_is_not_validated_for_a_request_without_a_token(
    client: FlaskClient, api: Any, game: dict[str, Any]
) -> None:
    url = f"/api/games/{game['id']}/cards"
    for raw in (b"{not json", b'{"character": 5}'):
        response = client.post(url, data=raw, content_type="application/json")
        _error(response, 401, "unauthorized")
    _error(client.post("/api/games/no-such-game/advance", json={"close": "?"}), 401, "unauthorized")
    with_token = client.post(
        url,
        data=b"{not json",
        content_type="application/json",
        headers=api.auth(game["director_token"]),
    )
    _error(with_token, 400, "bad_request")
