"""Revoking a card given in error (the ledger recomputed, a latest ejection withdrawn) and
appealing a card after the game (a player appeals, the director or an admin rules)."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select, text
from sqlalchemy.exc import DBAPIError

from models.audit import AuditEntry
from models.cards import AppealRuling, CardAppeal, CardRevocation
from models.game import Token

ADMIN = "admin-secret-for-tests"


def give(api: Any, game: dict[str, Any], character: str, colour: str, **extra: Any) -> Any:
    body = {
        "character": character,
        "colour": colour,
        "category": "other",
        "reason": "测试",
        **extra,
    }
    return api.ok("POST", f"/api/games/{game['id']}/cards", game["director_token"], body)


def revoke(api: Any, game: dict[str, Any], card_id: int, reason: str = "判错了") -> Any:
    return api.call(
        "POST",
        f"/api/games/{game['id']}/cards/{card_id}/revoke",
        game["director_token"],
        {"reason": reason},
    )


def ledger(api: Any, game: dict[str, Any], character: str, token: str | None = None) -> Any:
    data = api.ok("GET", f"/api/games/{game['id']}/cards", token or game["director_token"])
    return next(p for p in data["players"] if p["character"] == character)


def living(api: Any, game: dict[str, Any]) -> list[str]:
    return list(api.ok("GET", f"/api/games/{game['id']}/view")["living"])


def count(app: Flask, model: Any) -> int:
    with app.extensions["bansha_db"].read() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


def audit_entries(app: Flask, action: str) -> list[AuditEntry]:
    with app.extensions["bansha_db"].read() as session:
        query = select(AuditEntry).where(AuditEntry.action == action).order_by(AuditEntry.id)
        return list(session.scalars(query))


# -- the ledger recomputed ---------------------------------------------------------------------


def test_revoking_a_blue_undoes_the_escalation_it_made(api: Any, game: dict[str, Any]) -> None:
    blues = [give(api, game, "软件11", "blue")["cards"][0]["id"] for _ in range(2)]
    third = give(api, game, "软件11", "blue")
    escalation = third["cards"][1]
    assert escalation["colour"] == "yellow"
    r = revoke(api, game, blues[1])
    assert r.status_code == 200
    body = r.get_json()
    assert body["revocation"]["kind"] == "director" and body["revocation"]["reason"] == "判错了"
    assert [c["id"] for c in body["undone"]] == [escalation["id"]] and body["cards"] == []
    led = ledger(api, game, "软件11")
    assert led["active"] == {"blue": 2, "yellow": 0, "red": 0}
    marks = {c["id"]: c["revoked"] for c in led["cards"]}
    assert marks[blues[1]]["kind"] == "director"
    assert marks[escalation["id"]]["kind"] == "recomputed"
    assert marks[escalation["id"]]["cause_id"] == body["revocation"]["id"]
    assert marks[blues[0]] is None
    # the next blue escalates again, from the cards that count
    fourth = give(api, game, "软件11", "blue")
    again = fourth["cards"][1]
    assert again["escalated_from"] == [blues[0], third["cards"][0]["id"], fourth["cards"][0]["id"]]


def test_a_revocation_stores_the_escalation_the_remaining_cards_make(
    api: Any, game: dict[str, Any]
) -> None:
    ids = [give(api, game, "软件10", "blue")["cards"][0]["id"] for _ in range(4)]  # b1-b3 → y, b4
    body = revoke(api, game, ids[1]).get_json()
    assert len(body["undone"]) == 1
    assert [(c["colour"], c["escalated_from"]) for c in body["cards"]] == [
        ("yellow", [ids[0], ids[2], ids[3]])
    ]
    assert ledger(api, game, "软件10")["active"] == {"blue": 0, "yellow": 1, "red": 0}
    # suggestions read the same ledger: a first offence after this is judged on it
    later = api.post(game, "软件10", "我拿人格担保我是好人")
    history = later["suggestion"]["reasons"][-1]["history"]["cards"]
    assert len(history) == 4  # b1, b3, b4 and the new yellow; b2 and the old yellow left out


# -- a red card's ejection ----------------------------------------------------------------


def test_revoking_a_red_while_its_ejection_is_latest_brings_the_character_back(
    api: Any, game: dict[str, Any], app: Flask
) -> None:
    red = give(api, game, "软件12", "red")
    assert red["ejected"]["applied"] is True
    r = revoke(api, game, red["cards"][0]["id"], "看错了人")
    assert r.status_code == 200
    body = r.get_json()
    assert body["revocation"]["ejection_withdrawn"] is True
    assert body["ejection_withdrawn"]["announcements"] == ["软件12的红牌已撤销，软件12回到游戏"]
    assert "软件12的红牌已撤销，软件12回到游戏" in api.announcements(game)
    assert "软件12" in living(api, game)
    assert ledger(api, game, "软件12")["red"] is False
    # back in the game: the day's close no longer takes them out
    closed = api.ok(
        "POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "day"}
    )
    assert ("软件12", "red_card") not in [
        (e["character"], e["cause"]) for e in closed["outcome"]["eliminations"]
    ]
    [withdrawn] = audit_entries(app, "ejection_withdrawn")
    assert withdrawn.detail["character"] == "软件12"


def test_revoking_a_yellow_under_an_escalated_red_withdraws_that_ejection(
    api: Any, game: dict[str, Any]
) -> None:
    yellows = [give(api, game, "软件9", "yellow") for _ in range(3)]
    assert yellows[-1]["ejected"]["applied"] is True
    body = revoke(api, game, yellows[0]["cards"][0]["id"]).get_json()
    assert [c["colour"] for c in body["undone"]] == ["red"]
    assert body["ejection_withdrawn"] is not None and "软件9" in living(api, game)
    assert ledger(api, game, "软件9")["active"] == {"blue": 0, "yellow": 2, "red": 0}


def test_once_anything_else_happened_the_red_card_can_only_be_appealed(
    api: Any, game: dict[str, Any], app: Flask
) -> None:
    red = give(api, game, "软件12", "red")
    give(api, game, "软件3", "blue")  # something else happens in the game's records
    voted = api.post(game, "软件4", "投票对象：软件5\n投票理由：x", thread="vote")
    assert voted["vote"]["status"] == "counted"  # and in the game
    before = api.announcements(game)
    r = revoke(api, game, red["cards"][0]["id"])
    assert r.status_code == 409
    error = r.get_json()["error"]
    assert error["rule"] == "withdrawal_not_latest"
    assert "不能再撤销" in error["message"] and "必须等该版杀结束后进行" in error["message"]
    # nothing changed: no revocation, still red, still out, no announcement
    assert count(app, CardRevocation) == 0
    assert ledger(api, game, "软件12")["red"] is True
    assert api.announcements(game) == before


def test_escalations_and_revoked_cards_cannot_be_revoked(api: Any, game: dict[str, Any]) -> None:
    for _ in range(3):
        last = give(api, game, "软件8", "blue")
    r = revoke(api, game, last["cards"][1]["id"])
    assert r.status_code == 409 and r.get_json()["error"]["rule"] == "escalation_not_revocable"
    assert revoke(api, game, last["cards"][0]["id"]).status_code == 200
    r = revoke(api, game, last["cards"][0]["id"])
    assert r.status_code == 409 and r.get_json()["error"]["rule"] == "already_revoked"
    assert revoke(api, game, 99999).status_code == 404


def test_revocation_rows_are_append_only(api: Any, game: dict[str, Any], app: Flask) -> None:
    card = give(api, game, "软件8", "blue")["cards"][0]
    revoke(api, game, card["id"])
    engine = app.extensions["bansha_db"].write_engine
    for statement in ("UPDATE card_revocations SET reason = 'x'", "DELETE FROM card_revocations"):
        with pytest.raises(DBAPIError, match="append-only"), engine.begin() as conn:
            conn.execute(text(statement))


def test_a_player_token_may_not_revoke(api: Any, game: dict[str, Any]) -> None:
    card = give(api, game, "软件8", "blue")["cards"][0]
    r = api.call(
        "POST",
        f"/api/games/{game['id']}/cards/{card['id']}/revoke",
        game["player_tokens"]["软件8"],
        {"reason": "x"},
    )
    assert r.status_code == 403


# -- appeals after the game ----------------------------------------------------------------


def end_game(api: Any, game: dict[str, Any]) -> None:
    """M72: the wolves judged lost with a red card ends the game (the foxes win)."""
    result = give(api, game, "软件1", "red", category="cheating", faction_lost=True)
    assert result["outcome"]["ended"] is True


def appeal(api: Any, game: dict[str, Any], card_id: int, character: str, why: str = "冤枉") -> Any:
    return api.call(
        "POST",
        f"/api/games/{game['id']}/cards/{card_id}/appeal",
        game["player_tokens"][character],
        {"text": why},
    )


def test_a_card_can_be_appealed_only_after_the_game(
    api: Any, game: dict[str, Any], app: Flask
) -> None:
    card = give(api, game, "软件7", "yellow")["cards"][0]
    r = appeal(api, game, card["id"], "软件7")
    assert r.status_code == 409
    assert r.get_json()["error"]["rule"] == "appeal_after_game"
    assert "如需投诉法官的不当判罚，必须等该版杀结束后进行" in r.get_json()["error"]["message"]
    end_game(api, game)
    # after the game a revocation is refused: the appeal is the way
    r = revoke(api, game, card["id"])
    assert r.status_code == 409 and r.get_json()["error"]["rule"] == "appeal_after_game"
    assert appeal(api, game, card["id"], "软件6").status_code == 403  # not their card
    r = appeal(api, game, card["id"], "软件7", "我只是在分析")
    assert r.status_code == 201
    made = r.get_json()
    assert made["character"] == "软件7" and made["ruling"] is None
    twice = appeal(api, game, card["id"], "软件7")  # once per card
    assert twice.status_code == 409 and twice.get_json()["error"]["rule"] == "already_appealed"
    # the director rules; the ruling is recorded with the card
    path = f"/api/games/{game['id']}/appeals/{made['id']}/ruling"
    ruled = api.call("POST", path, game["director_token"], {"ruling": "overturned", "note": "误判"})
    assert ruled.status_code == 201 and ruled.get_json()["ruling"]["ruled_by"] == "director"
    again = api.call("POST", path, game["director_token"], {"ruling": "upheld"})
    assert again.status_code == 409 and again.get_json()["error"]["rule"] == "already_ruled"
    shown = ledger(api, game, "软件7", game["player_tokens"]["软件7"])
    [mine] = shown["cards"]
    assert mine["appeal"]["ruling"]["ruling"] == "overturned"
    assert mine["appeal"]["ruling"]["note"] == "误判"
    assert count(app, CardAppeal) == 1 and count(app, AppealRuling) == 1
    [entry] = audit_entries(app, "appeal")
    assert entry.actor == "player:软件7" and entry.actor_kind == "player"
    with app.extensions["bansha_db"].read() as session:
        token = session.get(Token, entry.actor_token_id)
        assert token is not None and token.character == "软件7"


def test_an_admin_may_rule_and_the_ruling_names_the_admin(
    api: Any, db_url: str, make_app: Any
) -> None:
    admin_app = make_app(db_url, ADMIN_TOKEN=ADMIN)
    admin_api = type(api)(admin_app.test_client())
    created = admin_api.client.post(
        "/api/games",
        json={"ruleset": "m72", "players": api.M72_PLAYERS, "roles": api.M72_ROLES, "seed": "s"},
        headers=api.auth(ADMIN),
    )
    game = created.get_json()
    card = give(admin_api, game, "软件7", "blue")["cards"][0]
    end_game(admin_api, game)
    made = appeal(admin_api, game, card["id"], "软件7").get_json()
    path = f"/api/games/{game['id']}/appeals/{made['id']}/ruling"
    other = admin_api.call("POST", path, "not-the-admin-token", {"ruling": "upheld"})
    assert other.status_code == 401
    ruled = admin_api.call("POST", path, ADMIN, {"ruling": "upheld", "note": "维持"})
    assert ruled.status_code == 201 and ruled.get_json()["ruling"]["ruled_by"] == "admin"
    listed = admin_api.ok("GET", f"/api/games/{game['id']}/appeals", ADMIN)
    assert [a["ruling"]["ruling"] for a in listed["appeals"]] == ["upheld"]
    [entry] = audit_entries(admin_app, "appeal_ruling")
    assert entry.actor_kind == "admin" and entry.actor_ref is not None
    assert ADMIN not in entry.actor_ref  # a fingerprint, never the token


def test_a_player_sees_only_its_own_ledger(api: Any, game: dict[str, Any]) -> None:
    give(api, game, "软件3", "blue")
    data = api.ok("GET", f"/api/games/{game['id']}/cards", game["player_tokens"]["软件4"])
    assert [p["character"] for p in data["players"]] == ["软件4"]
    assert data["players"][0]["cards"] == []


# -- both backends --------------------------------------------------------------------------------


def test_revocation_and_appeal_on_each_backend(any_app: Flask, api: Any) -> None:
    """The same way back on SQLite and PostgreSQL (triggers, the correlated NOT EXISTS, the
    replayed ejection check)."""
    on = type(api)(any_app.test_client())
    game = on.make_game()
    blues = [give(on, game, "软件11", "blue") for _ in range(3)]
    undone = revoke(on, game, blues[0]["cards"][0]["id"]).get_json()["undone"]
    assert [c["id"] for c in undone] == [blues[2]["cards"][1]["id"]]
    red = give(on, game, "软件12", "red")
    body = revoke(on, game, red["cards"][0]["id"]).get_json()
    assert body["ejection_withdrawn"] is not None and "软件12" in living(on, game)
    late = give(on, game, "软件10", "red")
    on.post(game, "软件4", "投票对象：软件5\n投票理由：x", thread="vote")
    r = revoke(on, game, late["cards"][0]["id"])
    assert r.status_code == 409 and r.get_json()["error"]["rule"] == "withdrawal_not_latest"
    end_game(on, game)
    made = appeal(on, game, late["cards"][0]["id"], "软件10")
    assert made.status_code == 201
    path = f"/api/games/{game['id']}/appeals/{made.get_json()['id']}/ruling"
    assert on.call("POST", path, game["director_token"], {"ruling": "upheld"}).status_code == 201
    with any_app.extensions["bansha_db"].write_engine.connect() as connection:
        for table in ("card_revocations", "card_appeals", "appeal_rulings"):
            with pytest.raises(DBAPIError), connection.begin():
                connection.execute(text(f"DELETE FROM {table}"))
