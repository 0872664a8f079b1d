"""``POST /api/games`` normalises character names and refuses confusable ones in Chinese."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

PLAYERS = [f"软件{i}" for i in range(1, 13)]


def _create(app: Flask, players: list[Any]) -> Any:
    return app.test_client().post("/api/games", json={"ruleset": "m72", "players": players})


@pytest.mark.parametrize(
    ("players", "rule", "path", "words"),
    [
        (["软\u200b件1", *PLAYERS[1:]], "name_invisible", "$.players[0]", "不可见字符"),
        (["软件1\u202e", *PLAYERS[1:]], "name_invisible", "$.players[0]", "U+202E"),
        (["ＡＢ", "ab", *PLAYERS[2:]], "name_collision", "$.players", "规范化后与「AB」相同"),
        (["弃权", *PLAYERS[1:]], "name_keyword", "$.players[0]", "投票关键词"),
        (
            [{"character": "软件1", "aliases": ["弃权"]}, *PLAYERS[1:]],
            "name_keyword",
            "$.players[0]",
            "投票关键词",
        ),
    ],
)
def test_confusable_names_are_refused(
    app: Flask, players: list[Any], rule: str, path: str, words: str
) -> None:
    response = _create(app, players)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["rule"] == rule and error["path"] == path and words in error["message"]


def test_names_are_stored_normalised(app: Flask) -> None:
    response = _create(app, ["ＡＢＣ", *PLAYERS[1:]])
    assert response.status_code == 201
    game = response.get_json()
    assert game["characters"][0] == "ABC" and "ABC" in game["player_tokens"]


def test_fixed_roles_follow_the_normalised_names(app: Flask) -> None:
    client = app.test_client()
    body = {"ruleset": "m72", "players": ["ＡＢＣ", *PLAYERS[1:]], "roles": {"ＡＢＣ": "fox"}}
    game = client.post("/api/games", json=body).get_json()
    token = game["player_tokens"]["ABC"]
    me = client.get(f"/api/games/{game['id']}/view", headers={"Authorization": f"Bearer {token}"})
    assert me.get_json()["me"]["role"] == "fox"
