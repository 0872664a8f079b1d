"""The forum's registry: a player across games, 替补 and whose cards are whose, bans (禁赛) and
their override, 场外助理 eligibility, who sees what, and the CSV export."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from api.registry_cli import registry_main
from models.audit import AuditEntry
from models.game import Game as GameRow
from models.registry import BanOverride, ForumPlayer

ADMIN = "registry-admin-secret"
SIZES = {"m72": 12, "m08": 11, "wa004": 13}
#: the faction whose 判负 ends each ruleset's game (the others are declared lost first)
LOSERS = {"m72": ["wolves"], "m08": ["wolves"], "wa004": ["betrayers", "guardians"]}


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def reg(db_url: str, make_app: Any) -> Flask:
    """The service with a forum admin (BANSHA_ADMIN_TOKEN)."""
    app: Flask = make_app(db_url, ADMIN_TOKEN=ADMIN)
    return app


def new_game(
    client: FlaskClient,
    ruleset: str,
    seats: dict[str, str],
    *,
    overrides: list[dict[str, Any]] | None = None,
    expect: int = 201,
) -> dict[str, Any]:
    """A game whose first characters are played by ``seats`` (character -> player), the rest
    by their own names."""
    players: list[Any] = [{"character": c, "player": p} for c, p in seats.items()]
    players += [f"{ruleset}路人{i}" for i in range(SIZES[ruleset] - len(players))]
    body: dict[str, Any] = {"ruleset": ruleset, "players": players, "seed": "registry"}
    if overrides is not None:
        body["ban_overrides"] = overrides
    response = client.post("/api/games", json=body, headers=_auth(ADMIN))
    assert response.status_code == expect, response.get_json()
    data: dict[str, Any] = response.get_json()
    return data


def card(client: FlaskClient, game: dict[str, Any], character: str, colour: str) -> int:
    response = client.post(
        f"/api/games/{game['id']}/cards",
        json={"character": character, "colour": colour, "category": "other", "reason": colour},
        headers=_auth(game["director_token"]),
    )
    assert response.status_code == 201, response.get_json()
    return int(response.get_json()["cards"][-1]["id"])


def action(client: FlaskClient, game: dict[str, Any], body: dict[str, Any]) -> Any:
    response = client.post(
        f"/api/games/{game['id']}/actions", json=body, headers=_auth(game["director_token"])
    )
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def finish(client: FlaskClient, game: dict[str, Any]) -> None:
    for faction in LOSERS[game["ruleset"]]:
        done = action(client, game, {"type": "declare_faction_lost", "faction": faction})
    assert done["outcome"]["ended"]


def player_id(app: Flask, name: str) -> int:
    with app.extensions["bansha_db"].read() as session:
        found = session.scalar(select(ForumPlayer.id).where(ForumPlayer.name == name))
    assert found is not None, name
    return int(found)


def record(client: FlaskClient, pid: int, token: str | None = ADMIN) -> dict[str, Any]:
    response = client.get(f"/api/registry/players/{pid}", headers=_auth(token) if token else {})
    assert response.status_code == 200, response.get_json()
    data: dict[str, Any] = response.get_json()
    return data


def test_a_player_across_three_rulesets_keeps_the_cards_they_earned(reg: Flask) -> None:
    client = reg.test_client()
    g72 = new_game(client, "m72", {"软件1": "张三"})
    blue = card(client, g72, "软件1", "blue")
    finish(client, g72)
    g08 = new_game(client, "m08", {"穗乃果": "张三"})
    yellow = card(client, g08, "穗乃果", "yellow")  # before the 替补: 张三's
    action(client, g08, {"type": "substitute", "character": "穗乃果", "player": "李四"})
    red = card(client, g08, "穗乃果", "red")  # after it: 李四's
    finish(client, g08)
    g004 = new_game(client, "wa004", {"角色1": "张三"})  # still running

    zhang = record(client, player_id(reg, "张三"))
    assert zhang["full"] is True and zhang["games_played"] == 3
    games = {g["ruleset"]: g for g in zhang["games"]}
    assert set(games) == {"m72", "m08", "wa004"}
    assert games["m72"]["character"] == "软件1" and games["m72"]["finished"]
    assert games["m72"]["faction"] is not None and games["m72"]["result"] in ("win", "lose")
    assert games["m08"]["until"] is not None and not games["m08"]["substitute"]
    assert games["wa004"]["result"] is None and not games["wa004"]["finished"]
    assert [c["id"] for c in zhang["cards"]] == [blue, yellow]
    assert zhang["red_cards"] == 0

    li = record(client, player_id(reg, "李四"))
    assert li["games_played"] == 1
    (seat,) = li["games"]
    assert seat["substitute"] and seat["character"] == "穗乃果" and seat["game_id"] == g08["id"]
    assert seat["role"] == "wolf" or seat["faction"] is not None
    (only,) = li["cards"]
    assert only["id"] == red and only["game_id"] == g08["id"] and only["ruleset"] == "m08"
    assert only["separate_record"] == {
        "keeper": "吧务组",
        "text": "版杀结束后对吃过红牌的玩家做道德评估，记作恶意违规，并由吧务组单独记录。",
    }
    assert only["article"] is not None and only["standing"] is True
    # 张三's m08 result is the character's: the same faction result as his 替补's
    assert games["m08"]["result"] == seat["result"] and games["m08"]["faction"] == seat["faction"]
    assert g004["ruleset"] == "wa004"


def test_the_director_sees_the_seats_and_the_record_follows_rulings(reg: Flask) -> None:
    client = reg.test_client()
    game = new_game(client, "m72", {"软件1": "张三", "软件2": "王五"})
    red = card(client, game, "软件2", "red")
    director = _auth(game["director_token"])
    revoked = client.post(
        f"/api/games/{game['id']}/cards/{red}/revoke", json={"reason": "判错了"}, headers=director
    )
    assert revoked.status_code == 200, revoked.get_json()
    action(client, game, {"type": "substitute", "character": "软件1", "player": "赵六"})
    seats = client.get(f"/api/games/{game['id']}/seats", headers=director).get_json()
    held = [(s["character"], s["player"], s["substitute"], s["current"]) for s in seats["seats"]]
    assert ("软件1", "张三", False, False) in held and ("软件1", "赵六", True, True) in held
    wang = record(client, player_id(reg, "王五"), game["director_token"])
    (entry,) = wang["cards"]
    assert entry["standing"] is False and entry["revoked"]["reason"] == "判错了"
    assert wang["red_cards"] == 0
    # the public does not see a revoked red card, nor the player at all
    public = record(client, player_id(reg, "王五"), None)
    assert public["full"] is False and public["cards"] == [] and public["games"] == []
    found = client.get("/api/registry/players", query_string={"name": "王五"}).get_json()
    assert found["players"] == []


def _ban(client: FlaskClient, token: str | None, **body: Any) -> Any:
    return client.post("/api/registry/bans", json=body, headers=_auth(token) if token else {})


def test_a_ban_refuses_a_new_game_until_served_and_the_admin_may_override(reg: Flask) -> None:
    client = reg.test_client()
    game = new_game(client, "m72", {"软件3": "张三"})
    red = card(client, game, "软件3", "red")
    blue = card(client, game, "m72路人2", "blue")
    zhang = player_id(reg, "张三")
    early = _ban(client, ADMIN, player_id=zhang, card_id=red, reason="恶意破坏游戏", games=1)
    assert early.status_code == 409, early.get_json()
    assert early.get_json()["error"]["rule"] == "ban_after_game"
    finish(client, game)
    not_red = _ban(client, ADMIN, player_id=player_id(reg, "m72路人2"), card_id=blue,
                   reason="x", games=1)  # fmt: skip
    assert not_red.get_json()["error"]["rule"] == "ban_needs_red_card"
    both = _ban(client, ADMIN, player_id=zhang, card_id=red, reason="x", games=1,
                until="2030-01-01T00:00:00+08:00")  # fmt: skip
    assert both.status_code == 400
    made = _ban(client, ADMIN, player_id=zhang, card_id=red, reason="屡教不改：红牌罚下", games=1)
    assert made.status_code == 201, made.get_json()
    ban = made.get_json()
    assert ban["in_force"] and ban["term"] == "禁赛1场" and ban["game_id"] == game["id"]

    with reg.extensions["bansha_db"].read() as session:
        before = session.scalar(select(func.count(GameRow.id)))
    refused = new_game(client, "m08", {"凛": "张三"}, expect=409)
    error = refused["error"]
    assert error["rule"] == "player_banned"
    assert f"禁赛#{ban['id']}" in error["message"] and "屡教不改：红牌罚下" in error["message"]
    assert "张三" in error["message"] and "禁赛1场" in error["message"]
    with reg.extensions["bansha_db"].read() as session:
        assert session.scalar(select(func.count(GameRow.id))) == before  # nothing half-made

    overridden = new_game(
        client, "m08", {"凛": "张三"}, overrides=[{"ban": ban["id"], "reason": "申诉后吧务同意"}]
    )
    with reg.extensions["bansha_db"].read() as session:
        (row,) = session.scalars(select(BanOverride))
        assert row.game_id == overridden["id"] and row.reason == "申诉后吧务同意"
        entry = session.scalar(
            select(AuditEntry).where(
                AuditEntry.game_id == overridden["id"], AuditEntry.action == "ban_override"
            )
        )
        assert entry is not None and entry.actor_kind == "admin"
        assert entry.detail["ban"] == ban["id"]
    # a game he played under the override does not count as served; one without him does
    assert new_game(client, "m72", {"软件1": "张三"}, expect=409)["error"]["rule"]
    new_game(client, "m72", {})
    new_game(client, "m72", {"软件1": "张三"})
    served = record(client, zhang)["bans"][0]
    assert served["games_served"] == 1 and served["in_force"] is False
    assert served["overrides"][0]["game_id"] == overridden["id"]


def test_a_period_ban_holds_until_its_end(reg: Flask) -> None:
    client = reg.test_client()
    game = new_game(client, "wa004", {"角色1": "张三"})
    red = card(client, game, "角色1", "red")
    finish(client, game)
    until = (datetime.now(UTC) + timedelta(days=30)).isoformat()
    made = _ban(client, ADMIN, player_id=player_id(reg, "张三"), card_id=red, reason="红牌",
                until=until)  # fmt: skip
    assert made.status_code == 201 and made.get_json()["term"].startswith("禁赛至")
    assert new_game(client, "m72", {"软件1": "张三"}, expect=409)["error"]["rule"]
    past = _ban(client, ADMIN, player_id=player_id(reg, "张三"), card_id=red, reason="红牌",
                until="2020-01-01T00:00:00+08:00")  # fmt: skip
    assert past.status_code == 400


def _assistant(client: FlaskClient, game: dict[str, Any], character: str, helper: str) -> Any:
    return client.post(
        f"/api/games/{game['id']}/assistants",
        json={"character": character, "assistant": helper},
        headers=_auth(game["director_token"]),
    )


def test_assistant_eligibility_at_three_and_four_games(reg: Flask) -> None:
    client = reg.test_client()
    for ruleset, character in (("m08", "凛"), ("wa004", "角色1"), ("m72", "软件1")):
        new_game(client, ruleset, {character: "新人"})
    third = new_game(client, "m72", {"软件5": "新人"})  # three games already played
    seats = client.get(f"/api/games/{third['id']}/seats", headers=_auth(third["director_token"]))
    mine = next(s for s in seats.get_json()["seats"] if s["player"] == "新人")
    assert mine["assistant"]["games_played"] == 3 and mine["assistant"]["eligible"] is True
    ok = _assistant(client, third, "软件5", "老手")
    assert ok.status_code == 201, ok.get_json()
    assert ok.get_json()["eligibility"]["games_played"] == 3
    assert (
        ok.get_json()["eligibility"]["rule"] == "版杀游戏场次累计三场或以下的玩家允许申请场外助理。"
    )

    fourth = new_game(client, "m72", {"软件5": "新人"})  # four played: refused
    refused = _assistant(client, fourth, "软件5", "老手")
    assert refused.status_code == 409
    error = refused.get_json()["error"]
    assert error["rule"] == "assistant_games_limit"
    assert "已参加4场" in error["message"]
    assert "禁止已参加四场或以上版杀的玩家申请场外助理" in error["message"]
    # M08 sets no such limit: the director decides
    m08 = new_game(client, "m08", {"凛": "新人"})
    assert _assistant(client, m08, "凛", "老手").status_code == 201


def test_the_assistant_is_checked_for_the_substitute_who_holds_the_character(reg: Flask) -> None:
    client = reg.test_client()
    for _ in range(4):
        new_game(client, "m72", {"软件2": "老玩家"})
    game = new_game(client, "m72", {"软件2": "新手"})
    assert _assistant(client, game, "软件2", "助理甲").status_code == 201
    action(client, game, {"type": "substitute", "character": "软件2", "player": "老玩家"})
    refused = _assistant(client, game, "软件2", "助理乙")
    assert (
        refused.status_code == 409 and "老玩家已参加4场" in refused.get_json()["error"]["message"]
    )


def test_who_sees_what(reg: Flask) -> None:
    client = reg.test_client()
    game = new_game(client, "m72", {"软件1": "张三", "软件2": "王五"})
    other = new_game(client, "m72", {"软件1": "路人甲"})
    card(client, game, "软件1", "blue")
    red = card(client, game, "软件1", "red")
    finish(client, game)
    zhang = player_id(reg, "张三")
    made = _ban(client, ADMIN, player_id=zhang, card_id=red, reason="红牌", games=2)
    assert made.status_code == 201
    own = game["player_tokens"]["软件1"]
    views = {
        "admin": ADMIN,
        "director": game["director_token"],
        "own player": own,
        "other player": game["player_tokens"]["软件2"],
        "other director": other["director_token"],
        "public": None,
    }
    full = {name: record(client, zhang, token)["full"] for name, token in views.items()}
    assert full == {
        "admin": True,
        "director": True,
        "own player": True,
        "other player": False,
        "other director": False,
        "public": False,
    }
    public = record(client, zhang, None)
    assert [c["colour"] for c in public["cards"]] == ["red"]  # red cards only, not the blue
    assert public["games"] == [] and public["games_played"] is None
    assert len(public["bans"]) == 1
    assert [c["colour"] for c in record(client, zhang)["cards"]] == ["blue", "red"]
    # search: the public finds the red-carded player only; the admin finds everyone
    names = {
        who: [p["player"]["name"] for p in client.get(
            "/api/registry/players", query_string={"name": "五"},
            headers=_auth(token) if token else {}).get_json()["players"]]
        for who, token in (("public", None), ("admin", ADMIN))
    }  # fmt: skip
    assert names == {"public": [], "admin": ["王五"]}
    found = client.get("/api/registry/players", query_string={"name": "张"}).get_json()
    assert [p["player"]["id"] for p in found["players"]] == [zhang]

    # the writes and the seats: admin and the game's director only (bans: the admin alone)
    body = {"player_id": zhang, "card_id": red, "reason": "红牌", "games": 1}
    expected = {"admin": 201, "director": 403, "own player": 403, "other player": 403,
                "other director": 403, "public": 401}  # fmt: skip
    assert {n: _ban(client, t, **body).status_code for n, t in views.items()} == expected
    seat_codes = {
        name: client.get(
            f"/api/games/{game['id']}/seats", headers=_auth(token) if token else {}
        ).status_code
        for name, token in views.items()
    }
    assert seat_codes == {"admin": 200, "director": 200, "own player": 403,
                          "other player": 403, "other director": 403, "public": 401}  # fmt: skip
    assistant_codes = {}
    for i, (name, token) in enumerate(views.items()):
        assistant_codes[name] = client.post(
            f"/api/games/{game['id']}/assistants",
            json={"character": "软件2", "assistant": f"助理{i}"},
            headers=_auth(token) if token else {},
        ).status_code
    assert assistant_codes == {**seat_codes, "admin": 201, "director": 201}
    for missing in ("999999", "abc", "٣", "99999999999999999999"):
        assert client.get(f"/api/registry/players/{missing}").status_code == 404, missing
    bad = client.get("/api/registry/players/1", headers=_auth("not-a-token"))
    assert bad.status_code == 401


def test_what_the_public_sees_is_the_forums_choice(db_url: str, make_app: Any) -> None:
    closed = make_app(db_url, ADMIN_TOKEN=ADMIN, REGISTRY_PUBLIC=frozenset())
    client = closed.test_client()
    game = new_game(client, "m72", {"软件1": "张三"})
    card(client, game, "软件1", "red")
    public = record(client, player_id(closed, "张三"), None)
    assert public["cards"] == [] and public["bans"] == []
    assert record(client, player_id(closed, "张三"))["red_cards"] == 1


def test_bansha_registry_export_csv(
    reg: Flask, db_url: str, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    client = reg.test_client()
    game = new_game(client, "m08", {"穗乃果": "张三"})
    card(client, game, "穗乃果", "yellow")
    action(client, game, {"type": "substitute", "character": "穗乃果", "player": "李四"})
    card(client, game, "穗乃果", "red")
    out = tmp_path / "registry.csv"
    assert registry_main(["export", "--csv", "--out", str(out), "--url", db_url]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    cards = {(r["player"], r["colour"]) for r in rows if r["line"] == "card"}
    assert cards == {("张三", "黄牌"), ("李四", "红牌")}
    li = [r for r in rows if r["player"] == "李四" and r["line"] == "game"]
    assert li[0]["substitute"] == "替补" and li[0]["character"] == "穗乃果"
    red = next(r for r in rows if r["colour"] == "红牌")
    assert "由吧务组单独记录" in red["separate_record"]
    assert registry_main(["export", "--csv", "--out", str(out), "--url", db_url]) == 1
    assert "already exists" in capsys.readouterr().err


def test_only_the_admin_may_override_a_ban(client: FlaskClient) -> None:
    """Without BANSHA_ADMIN_TOKEN anyone may create games, but nobody may let a banned player in
    (and nobody may ban)."""
    body = {"ruleset": "m72", "players": [f"软件{i}" for i in range(1, 13)],
            "ban_overrides": [{"ban": 1, "reason": "想玩"}]}  # fmt: skip
    refused = client.post("/api/games", json=body)
    assert refused.status_code == 403 and "管理员令牌" in refused.get_json()["error"]["message"]
    del body["ban_overrides"]
    assert client.post("/api/games", json=body).status_code == 201
    ban = client.post(
        "/api/registry/bans",
        json={"player_id": 1, "card_id": 1, "reason": "x", "games": 1},
        headers=_auth("anything"),
    )
    assert ban.status_code == 401


def test_an_alias_seats_the_same_player(reg: Flask) -> None:
    client = reg.test_client()
    new_game(client, "m72", {"软件1": "张三"})
    zhang = player_id(reg, "张三")
    added = client.post(
        f"/api/registry/players/{zhang}/names", json={"name": "ＺＳ"}, headers=_auth(ADMIN)
    )
    assert added.status_code == 201 and added.get_json()["names"] == ["张三", "ZS"]
    new_game(client, "m08", {"凛": "ZS"})  # the forum name under its alias
    assert record(client, zhang)["games_played"] == 2
    taken = client.post(
        f"/api/registry/players/{zhang}/names", json={"name": "m72路人1"}, headers=_auth(ADMIN)
    )
    assert taken.status_code == 409 and taken.get_json()["error"]["rule"] == "name_taken"
    director = new_game(client, "m72", {})["director_token"]
    refused = client.post(
        f"/api/registry/players/{zhang}/names", json={"name": "别名"}, headers=_auth(director)
    )
    assert refused.status_code == 403
