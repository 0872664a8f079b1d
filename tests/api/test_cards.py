"""Decisions, card ledgers, escalation, red-card ejection and the audit trail."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError

from models.audit import AuditEntry
from models.cards import Card, Decision


def give(api: Any, game: dict[str, Any], character: str, colour: str, **extra: Any) -> Any:
    body = {
        "character": character,
        "colour": colour,
        "category": "other",
        "reason": "测试",
        **extra,
    }
    return api.ok("POST", f"/api/games/{game['id']}/cards", game["director_token"], body)


def ledger(api: Any, game: dict[str, Any], character: str) -> dict[str, Any]:
    data = api.ok("GET", f"/api/games/{game['id']}/cards", game["director_token"])
    return next(p for p in data["players"] if p["character"] == character)


def queue_activity(api: Any, game: dict[str, Any]) -> list[dict[str, Any]]:
    """Close day 1 with the 潜水/未投票 yellows queued for review (nobody posted or voted)."""
    result = api.ok(
        "POST",
        f"/api/games/{game['id']}/advance",
        game["director_token"],
        {"close": "day", "review_penalties": True},
    )
    return list(result["suggestions"])


def test_three_blues_escalate_to_one_yellow(api: Any, game: dict[str, Any]) -> None:
    first = give(api, game, "软件11", "blue")
    second = give(api, game, "软件11", "blue")
    assert [c["colour"] for c in first["cards"] + second["cards"]] == ["blue", "blue"]
    third = give(api, game, "软件11", "blue")
    colours = [c["colour"] for c in third["cards"]]
    assert colours == ["blue", "yellow"]
    escalation = third["cards"][1]
    assert escalation["source"] == "escalation"
    blue_ids = [first["cards"][0]["id"], second["cards"][0]["id"], third["cards"][0]["id"]]
    assert escalation["escalated_from"] == blue_ids
    assert "三张蓝牌" in escalation["reason"]
    led = ledger(api, game, "软件11")
    assert led["active"] == {"blue": 0, "yellow": 1, "red": 0}
    assert [e["id"] for e in led["escalations"]] == [escalation["id"]]
    assert led["summary"].startswith("黄牌1张")
    assert third["ejected"] is None


def test_three_yellows_make_a_red_that_ejects_and_is_announced(
    api: Any, game: dict[str, Any]
) -> None:
    give(api, game, "软件11", "yellow")
    give(api, game, "软件11", "yellow")
    result = give(api, game, "软件11", "yellow")
    assert [c["colour"] for c in result["cards"]] == ["yellow", "red"]
    assert result["ejected"]["character"] == "软件11"
    assert result["ejected"]["was_alive"] is True
    assert "软件11被红牌罚下" in result["ejected"]["announcements"]
    assert "软件11被红牌罚下" in api.announcements(game)
    # M72: 白天红牌罚下导致的出局结算在投票结算之后执行 — announced now, out after the vote
    assert result["ejected"]["eliminated_now"] is False
    vote = {"type": "vote", "voter": "软件11", "target": "软件1"}
    response = api.call("POST", f"/api/games/{game['id']}/actions", game["director_token"], vote)
    assert response.status_code == 409 and response.get_json()["error"]["rule"] == "carded_voter"
    closed = api.ok(
        "POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "day"}
    )
    out = [(e["character"], e["cause"]) for e in closed["outcome"]["eliminations"]]
    assert ("软件11", "red_card") in out
    director = api.ok("GET", f"/api/games/{game['id']}/view", game["director_token"])
    events = director["director"]["events"]
    assert any(e["type"] == "carded" and e["character"] == "软件11" for e in events)
    # the public log names the escalation, not the director's note
    carded = next(e for e in events if e["type"] == "carded")
    assert "测试" not in carded["cause"]


def test_nine_blues_cascade_to_red(api: Any, game: dict[str, Any]) -> None:
    results = [give(api, game, "软件12", "blue") for _ in range(9)]
    last = results[-1]
    assert [c["colour"] for c in last["cards"]] == ["blue", "yellow", "red"]
    assert last["ejected"]["character"] == "软件12"
    led = ledger(api, game, "软件12")
    assert led["active"] == {"blue": 0, "yellow": 0, "red": 1}
    assert led["red"] is True


def test_direct_red_with_faction_lost(api: Any, game: dict[str, Any]) -> None:
    result = give(api, game, "软件5", "red", category="cheating", faction_lost=True)
    assert result["ejected"]["faction_lost"] is True
    assert result["outcome"]["results"]["foxes"] == "lose"
    assert result["cards"][0]["category"] == "cheating"


def test_faction_lost_needs_a_red(api: Any, game: dict[str, Any]) -> None:
    response = api.call(
        "POST",
        f"/api/games/{game['id']}/cards",
        game["director_token"],
        {"character": "软件5", "colour": "yellow", "category": "other", "reason": "x",
         "faction_lost": True},
    )  # fmt: skip
    assert response.status_code == 400
    assert ledger(api, game, "软件5")["cards"] == []


def test_red_card_for_an_eliminated_character_is_recorded_once(
    api: Any, game: dict[str, Any]
) -> None:
    give(api, game, "软件12", "red")
    api.ok("POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "day"})
    second = give(api, game, "软件12", "red")
    assert second["ejected"]["was_alive"] is False
    director = api.ok("GET", f"/api/games/{game['id']}/view", game["director_token"])
    eliminations = director["director"]["outcome"]["eliminations"]
    assert [e["character"] for e in eliminations].count("软件12") == 1


def test_decisions_confirm_change_dismiss(api: Any, game: dict[str, Any], app: Flask) -> None:
    queued = queue_activity(api, game)
    assert {s["kind"] for s in queued} == {"activity"}
    assert {s["category"] for s in queued} == {"lurking", "no_vote"}
    assert all(s["colour"] == "yellow" for s in queued)
    by_char = [s for s in queued if s["character"] == "软件11"]
    confirm = api.decide(game, by_char[0]["id"], "confirm", note="潜水属实")
    assert confirm["decision"]["colour"] == "yellow"
    assert confirm["cards"][0]["reason"].endswith("导演备注：潜水属实")
    change = api.decide(game, by_char[1]["id"], "change", colour="blue", note="初犯从轻")
    assert change["decision"]["colour"] == "blue" and change["cards"][0]["colour"] == "blue"
    other = next(s for s in queued if s["character"] == "软件12")
    dismissed = api.decide(game, other["id"], "dismiss", note="有事请假")
    assert dismissed["decision"]["colour"] == "green" and dismissed["cards"] == []
    pending = api.pending(game)
    assert other["id"] not in {s["id"] for s in pending}
    decided = api.ok(
        "GET", f"/api/games/{game['id']}/suggestions?status=decided", game["director_token"]
    )["suggestions"]
    assert {s["id"] for s in decided} == {by_char[0]["id"], by_char[1]["id"], other["id"]}
    assert all(s["decision"] is not None for s in decided)
    with app.extensions["bansha_db"].read() as session:
        actions = [a.action for a in session.scalars(select(AuditEntry).order_by(AuditEntry.id))]
    assert actions.count("decision") == 3 and actions.count("card") == 2


def test_deciding_twice_is_409_and_changes_nothing(
    api: Any, game: dict[str, Any], app: Flask
) -> None:
    sid = queue_activity(api, game)[0]["id"]
    api.decide(game, sid, "confirm")
    response = api.call(
        "POST", f"/api/suggestions/{sid}/decision", game["director_token"], {"action": "dismiss"}
    )
    assert response.status_code == 409
    assert response.get_json()["error"]["rule"] == "already_decided"
    with app.extensions["bansha_db"].read() as session:
        assert len(list(session.scalars(select(Decision)))) == 1
        assert len(list(session.scalars(select(Card)))) == 1


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"action": "confirm", "colour": "red"}, "$.colour"),
        ({"action": "change"}, "$.colour"),
        ({"action": "dismiss", "colour": "blue"}, "$.colour"),
        ({"action": "confirm", "faction_lost": True}, "$.faction_lost"),
        ({"action": "burn"}, "$.action"),
        ({"action": "confirm", "note": 5}, "$.note"),
    ],
)
def test_bad_decisions_are_400_and_change_nothing(
    api: Any, game: dict[str, Any], app: Flask, body: dict[str, Any], path: str
) -> None:
    sid = queue_activity(api, game)[0]["id"]
    response = api.call("POST", f"/api/suggestions/{sid}/decision", game["director_token"], body)
    assert response.status_code == 400
    assert response.get_json()["error"]["path"] == path
    assert sid in {s["id"] for s in api.pending(game)}
    with app.extensions["bansha_db"].read() as session:
        assert list(session.scalars(select(Card))) == []


def test_audit_tables_are_append_only(api: Any, game: dict[str, Any], app: Flask) -> None:
    give(api, game, "软件11", "blue")
    engine = app.extensions["bansha_db"].write_engine
    for statement in (
        "UPDATE cards SET colour = 'green'",
        "DELETE FROM cards",
        "UPDATE audit_log SET actor = 'x'",
        "DELETE FROM audit_log",
        "DELETE FROM game_events",
    ):
        with pytest.raises(DBAPIError, match="append-only"), engine.begin() as conn:
            conn.execute(text(statement))
    assert ledger(api, game, "软件11")["cards"][0]["colour"] == "blue"


def test_audit_trail_records_who_when_why(api: Any, game: dict[str, Any], app: Flask) -> None:
    give(api, game, "软件11", "red", director="导演A", reason="串号")
    with app.extensions["bansha_db"].read() as session:
        entries = list(session.scalars(select(AuditEntry).order_by(AuditEntry.id)))
    by_action = {e.action: e for e in entries}
    assert by_action["decision"].actor == "导演A"
    # who was authenticated: the game's director token, whatever name the body gives
    decision = by_action["decision"]
    assert decision.actor_kind == "director" and decision.actor_token_id is not None
    assert by_action["card"].detail["colour"] == "red"
    assert "串号" in by_action["card"].detail["reason"]
    assert by_action["ejection"].detail["character"] == "软件11"
    assert all(e.at is not None and e.at.tzinfo is not None for e in entries)


def test_unknown_character_or_category_for_a_card_is_400(api: Any, game: dict[str, Any]) -> None:
    for body, path in [
        (
            {"character": "路人", "colour": "blue", "category": "other", "reason": "x"},
            "$.character",
        ),
        (
            {"character": "软件1", "colour": "blue", "category": "nonsense", "reason": "x"},
            "$.category",
        ),
        ({"character": "软件1", "colour": "green", "category": "other", "reason": "x"}, "$.colour"),
    ]:
        response = api.call("POST", f"/api/games/{game['id']}/cards", game["director_token"], body)
        assert response.status_code == 400
        assert response.get_json()["error"]["path"] == path


@pytest.mark.parametrize(
    ("ruleset", "players"),
    [
        (
            "m08",
            ["穗乃果", "绘里", "小鸟", "海未", "凛", "真姬", "希", "花阳", "妮可", "千歌", "梨子"],
        ),
        ("m72", [f"软件{i}" for i in range(1, 13)]),
        ("wa004", [f"角色{i}" for i in range(1, 14)]),
    ],
)
def test_every_ruleset_ejects_on_a_red_card(api: Any, ruleset: str, players: list[str]) -> None:
    response = api.client.post(
        "/api/games", json={"ruleset": ruleset, "players": players, "seed": "r"}
    )
    assert response.status_code == 201
    game = response.get_json()
    before = api.announcements(game)
    result = give(api, game, players[-1], "red", category="multi_account")
    assert result["ejected"]["applied"] is True and result["ejected"]["was_alive"] is True
    after = api.announcements(game)
    new = after[len(before) :]
    assert any(players[-1] in text for text in new), new
    assert result["cards"][0]["category"] == "multi_account"
