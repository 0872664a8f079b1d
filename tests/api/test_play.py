"""Game actions, closing days and nights, announcements, and rebuilding games after a restart."""

from __future__ import annotations

from typing import Any

from flask import Flask
from sqlalchemy import func, select

from api import create_app
from models.game import GameEvent


def events_count(app: Flask) -> int:
    with app.extensions["bansha_db"].read() as session:
        return int(session.scalar(select(func.count()).select_from(GameEvent)) or 0)


def act(api: Any, game: dict[str, Any], body: dict[str, Any]) -> Any:
    return api.call("POST", f"/api/games/{game['id']}/actions", game["director_token"], body)


def test_illegal_action_is_409_naming_the_rule_and_changes_nothing(
    api: Any, game: dict[str, Any], app: Flask
) -> None:
    before = events_count(app)
    view_before = api.ok("GET", f"/api/games/{game['id']}/view", game["director_token"])
    # a night skill during the day
    response = act(
        api, game, {"type": "skill", "actor": "软件6", "skill": "divine", "target": "软件1"}
    )
    assert response.status_code == 409
    error = response.get_json()["error"]
    assert error["code"] == "conflict" and error["rule"]
    # a villager has no skill; an unknown character
    api.ok("POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "day"})
    response = act(
        api, game, {"type": "skill", "actor": "软件11", "skill": "divine", "target": "软件1"}
    )
    assert response.status_code == 409 and response.get_json()["error"]["rule"] == "not_your_skill"
    response = act(
        api, game, {"type": "skill", "actor": "软件8", "skill": "guard", "target": "软件8"}
    )
    assert response.status_code == 409 and "guard" in response.get_json()["error"]["rule"]
    response = act(
        api, game, {"type": "skill", "actor": "路人", "skill": "divine", "target": "软件1"}
    )
    assert response.status_code == 409
    after_close = events_count(app)
    assert after_close > before
    # nothing was appended by the rejected actions
    response = act(
        api, game, {"type": "skill", "actor": "软件6", "skill": "divine", "target": "软件6"}
    )
    assert response.status_code == 409
    assert events_count(app) == after_close
    assert view_before["director"]["roles"] == api.M72_ROLES


def test_legal_action_returns_events_and_is_private(api: Any, game: dict[str, Any]) -> None:
    api.ok("POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "day"})
    result = api.ok(
        "POST",
        f"/api/games/{game['id']}/actions",
        game["director_token"],
        {"type": "skill", "actor": "软件6", "skill": "divine", "target": "软件1"},
    )
    assert result["events"][0]["type"] == "action_taken"
    assert result["announcements"] == []
    night = api.ok(
        "POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "night"}
    )
    assert night["closed"] == {"phase": "night", "day": 1}
    seer = api.ok("GET", f"/api/games/{game['id']}/view", game["player_tokens"]["软件6"])
    assert any("是狼" in m["text"] for m in seer["me"]["messages"])


def test_advance_in_the_wrong_phase_is_409(api: Any, game: dict[str, Any], app: Flask) -> None:
    response = api.call(
        "POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "night"}
    )
    assert response.status_code == 409 and response.get_json()["error"]["rule"] == "wrong_phase"
    api.ok("POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "day"})
    before = events_count(app)
    response = api.call(
        "POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "day"}
    )
    assert response.status_code == 409
    assert events_count(app) == before


def test_bad_action_bodies_are_400(api: Any, game: dict[str, Any]) -> None:
    for body in (
        {"type": "skill", "actor": "软件6"},
        {"type": "teleport"},
        {"type": "vote", "voter": "软件6", "target": 3},
        {"type": "schedule_day", "closes_at": "tomorrow"},
        {"type": "schedule_day", "closes_at": "2026-11-29T20:00:00"},
    ):
        response = act(api, game, body)
        assert response.status_code == 400, body
    response = api.call(
        "POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "week"}
    )
    assert response.status_code == 400


def test_day_close_issues_lurking_and_no_vote_yellows(api: Any, game: dict[str, Any]) -> None:
    result = api.ok(
        "POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "day"}
    )
    per = {}
    for card in result["cards"]:
        per.setdefault(card["character"], []).append(card["category"])
    assert per["软件1"] == ["lurking", "no_vote"]
    assert len(per) == 12
    assert all("判罚依据" in c["reason"] for c in result["cards"])


def test_accelerated_day_has_no_activity_penalties(api: Any, game: dict[str, Any]) -> None:
    result = api.ok(
        "POST",
        f"/api/games/{game['id']}/advance",
        game["director_token"],
        {"close": "day", "accelerated": True},
    )
    assert result["cards"] == []


def test_schedule_day_sets_acceleration_through_the_engine(api: Any, game: dict[str, Any]) -> None:
    api.ok(
        "POST",
        f"/api/games/{game['id']}/actions",
        game["director_token"],
        {"type": "schedule_day", "closes_at": "2026-11-29T23:00:00+08:00", "accelerated": True},
    )
    result = api.ok(
        "POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "day"}
    )
    assert result["cards"] == []


def test_proxy_vote_and_tally(api: Any, game: dict[str, Any]) -> None:
    for voter in ("软件1", "软件2", "软件3"):
        api.ok(
            "POST",
            f"/api/games/{game['id']}/actions",
            game["director_token"],
            {"type": "proxy_vote", "voter": voter, "target": "软件12"},
        )
    result = api.ok(
        "POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "day"}
    )
    assert any("软件12获得3票" in a for a in result["announcements"])
    voters = {c["character"] for c in result["cards"] if c["category"] == "no_vote"}
    assert voters.isdisjoint({"软件1", "软件2", "软件3"})


def test_game_is_rebuilt_from_the_database_after_a_restart(
    api: Any, game: dict[str, Any], db_url: str
) -> None:
    api.ok("POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "day"})
    api.ok(
        "POST",
        f"/api/games/{game['id']}/actions",
        game["director_token"],
        {"type": "skill", "actor": "软件1", "skill": "kill", "target": "软件11"},
    )
    before = api.ok("GET", f"/api/games/{game['id']}/view", game["director_token"])
    fresh = create_app({"DATABASE_URL": db_url})  # a new process: empty cache
    client = fresh.test_client()
    headers = {"Authorization": f"Bearer {game['director_token']}"}
    after = client.get(f"/api/games/{game['id']}/view", headers=headers).get_json()
    assert after == before
    night = client.post(
        f"/api/games/{game['id']}/advance", json={"close": "night"}, headers=headers
    )
    assert night.status_code == 200
    out = [e["character"] for e in night.get_json()["outcome"]["eliminations"]]
    assert "软件11" in out
    # and the first app, whose cache holds the older game, sees the newer state
    seen = api.ok("GET", f"/api/games/{game['id']}/view", game["director_token"])
    assert "软件11" not in seen["living"]
    fresh.extensions["bansha_db"].dispose()


def test_openapi_document_lists_every_route(client: Any, app: Flask) -> None:
    doc = client.get("/openapi.json").get_json()
    assert doc["openapi"].startswith("3.1")
    documented = {(method.upper(), path) for path, ops in doc["paths"].items() for method in ops}
    routes = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = rule.rule.replace("<", "{").replace(">", "}")
        for method in rule.methods or ():
            if method not in ("HEAD", "OPTIONS"):
                routes.add((method, path))
    assert routes == documented
    post = doc["paths"]["/api/games/{game_id}/posts"]["post"]
    assert post["security"] == [{"bearer": []}]
    assert "413" in post["responses"] and "429" in post["responses"]
    assert doc["paths"]["/api/games"]["post"]["security"] == []


def test_m08_wolf_missing_the_leader_vote_gets_the_fixed_yellow(api: Any) -> None:
    game = api.make_game("m08")
    token = game["director_token"]
    api.ok("POST", f"/api/games/{game['id']}/advance", token, {"close": "day", "accelerated": True})
    for wolf in ("穗乃果", "绘里", "小鸟"):  # 海未 does not vote
        api.ok(
            "POST",
            f"/api/games/{game['id']}/actions",
            token,
            {"type": "skill", "actor": wolf, "skill": "leader_vote", "target": "穗乃果"},
        )
    night = api.ok("POST", f"/api/games/{game['id']}/advance", token, {"close": "night"})
    assert [(c["character"], c["colour"], c["category"]) for c in night["cards"]] == [
        ("海未", "yellow", "missed_action")
    ]
    assert "狼人未提交选举狼头的选票" in night["cards"][0]["reason"]
    # a fixed card is the director's and the player's business, not the public's
    feed = api.ok("GET", f"/api/games/{game['id']}/announcements")
    assert all("狼头" not in a["text"] for a in feed["announcements"])


def test_action_errors_name_the_field(api: Any, game: dict[str, Any]) -> None:
    response = act(api, game, {"type": "teleport"})
    assert response.get_json()["error"]["path"] == "$.type"
    assert "skill" in response.get_json()["error"]["message"]
    response = act(api, game, {"type": "skill", "actor": "软件6"})
    assert response.get_json()["error"]["path"] == "$.skill"
    response = act(api, game, {"type": "vote", "voter": "软件6", "target": 3})
    assert response.get_json()["error"]["path"] == "$.target"
