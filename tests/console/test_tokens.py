"""吊销令牌 / 重发令牌 on 角色与牌: the API's token functions, shown once, CSRF, audit."""

from __future__ import annotations

import logging
import re
from html import unescape
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select

from api.auth import hash_token
from models.audit import AuditEntry
from models.game import Token


def flashes(html: str) -> list[str]:
    return [unescape(m) for m in re.findall(r'<li class="flash flash-\w+">(.*?)</li>', html, re.S)]


def token_row(html: str, character: str) -> str:
    """The 玩家令牌 table's row of ``character``."""
    panel = re.search(r'<section class="panel narrowish" id="tokens">.*?</section>', html, re.S)
    assert panel is not None, "no 玩家令牌 panel"
    row = re.search(
        rf"<tr id=\"token-\d+\">\s*<td><b>{character}</b>.*?</tr>", panel.group(0), re.S
    )
    assert row is not None, f"no token row for {character}"
    return row.group(0)


def live_field(html: str, character: str) -> str:
    found = re.search(r'name="live" value="([^"]*)"', token_row(html, character))
    assert found is not None
    return found.group(1)


def view_status(console: Any, game: dict[str, Any], token: str) -> int:
    response = console.client.get(
        f"/api/games/{game['id']}/view", headers={"Authorization": f"Bearer {token}"}
    )
    if response.status_code == 401:
        assert response.get_json()["error"]["code"] == "token_revoked"
    return int(response.status_code)


def tokens(app: Flask, game_id: str) -> list[tuple[Any, ...]]:
    """Every token row of the game: id, kind, character, hash, revoked."""
    with app.extensions["bansha_db"].read() as session:
        rows = session.scalars(select(Token).where(Token.game_id == game_id).order_by(Token.id))
        return [(t.id, t.kind, t.character, t.token_hash, t.revoked_at) for t in rows]


def token_audit(app: Flask, game_id: str) -> list[AuditEntry]:
    with app.extensions["bansha_db"].read() as session:
        rows = session.scalars(
            select(AuditEntry)
            .where(
                AuditEntry.game_id == game_id,
                AuditEntry.action.in_(("revoke_token", "issue_token")),
            )
            .order_by(AuditEntry.id)
        )
        return list(rows)


def player_row_id(app: Flask, game_id: str, token: str) -> int:
    with app.extensions["bansha_db"].read() as session:
        found = session.scalar(select(Token.id).where(Token.token_hash == hash_token(token)))
    assert found is not None
    return int(found)


def test_every_character_shows_a_live_token(console: Any, game: dict[str, Any]) -> None:
    console.login(game["director_token"])
    html = console.html("/players")
    for character in game["player_tokens"]:
        row = token_row(html, character)
        assert "有效" in row and "发放于" in row and "已吊销" not in row
        assert "重发令牌" in row and "吊销令牌" in row
    # The page lists token states, never a token.
    assert all(t not in html for t in game["player_tokens"].values())
    assert game["director_token"] not in html


def test_revoke_stops_the_old_token_at_once(app: Flask, console: Any, game: dict[str, Any]) -> None:
    old = game["player_tokens"]["微信"]
    row_id = player_row_id(app, game["id"], old)
    assert view_status(console, game, old) == 200
    console.login(game["director_token"], name="导演甲")

    response = console.form("/tokens/revoke", {"character": "微信"}, page="/players")
    assert response.status_code == 302
    assert response.headers["Location"].endswith("/players#tokens")
    assert view_status(console, game, old) == 401
    # only that character's token
    assert view_status(console, game, game["player_tokens"]["支付宝"]) == 200
    html = console.html("/players")
    assert "已吊销微信的玩家令牌：旧令牌立即失效。需要新令牌时请点「重发令牌」" in flashes(html)
    row = token_row(html, "微信")
    assert "已吊销" in row and "有效" not in row and "确认吊销" not in row
    assert re.search(r"\d\d-\d\d \d\d:\d\d", row), "revocation time missing"
    assert "有效" in token_row(html, "支付宝")

    entries = token_audit(app, game["id"])
    assert len(entries) == 1
    assert entries[0].action == "revoke_token" and entries[0].actor == "director:导演甲"
    assert entries[0].detail == {
        "kind": "player", "character": "微信", "tokens": [row_id], "reason": "", "via": "console",
    }  # fmt: skip

    # Revoking again changes nothing and says so.
    before = tokens(app, game["id"])
    console.form("/tokens/revoke", {"character": "微信"}, page="/players")
    assert "微信没有有效的玩家令牌，无需吊销" in flashes(console.html("/players"))
    assert tokens(app, game["id"]) == before
    assert len(token_audit(app, game["id"])) == 1
    # The director's own session and token are untouched.
    assert view_status(console, game, game["director_token"]) == 200
    assert console.client.get("/queue").status_code == 200


def test_reissue_shows_a_working_token_once(
    app: Flask, console: Any, game: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    old = game["player_tokens"]["支付宝"]
    old_id = player_row_id(app, game["id"], old)
    console.login(game["director_token"], name="导演乙")
    live = live_field(console.html("/players"), "支付宝")
    assert live == str(old_id)

    response = console.form(
        "/tokens/reissue", {"character": "支付宝", "live": live}, page="/players"
    )
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    html = response.get_data(as_text=True)
    found = re.search(r'id="player-token" value="([^"]+)"', html)
    assert found is not None
    new = found.group(1)
    assert new != old and len(new) >= 40
    assert "只显示这一次" in html and "再也无法查看" in html
    assert "支付宝的旧令牌已吊销，立即失效。" in html

    # The new token works (as that character), the old one is refused.
    assert view_status(console, game, old) == 401
    assert view_status(console, game, new) == 200
    assert (
        console.client.get(
            f"/api/games/{game['id']}/view", headers={"Authorization": f"Bearer {new}"}
        ).get_json()["me"]["character"]
        == "支付宝"
    )

    # Shown once: not on the next page, not in the session, the cookie jar or a log line.
    for _ in range(2):
        page = console.html("/players")
        assert new not in page
        assert "有效" in token_row(page, "支付宝") and "重发于" in token_row(page, "支付宝")
    with console.client.session_transaction() as session:
        assert new not in str(dict(session))
    assert all(new not in c.value for c in console.client._cookies.values())
    assert new not in caplog.text

    new_id = player_row_id(app, game["id"], new)
    entries = token_audit(app, game["id"])
    assert [(e.action, e.actor, e.detail["tokens"]) for e in entries] == [
        ("revoke_token", "director:导演乙", [old_id]),
        ("issue_token", "director:导演乙", [new_id]),
    ]
    assert all(e.detail["via"] == "console" and e.detail["character"] == "支付宝" for e in entries)


def test_resubmitted_reissue_keeps_the_token_shown(
    app: Flask, console: Any, game: dict[str, Any]
) -> None:
    """Reloading the result page re-posts the form: refused, the shown token stays live."""
    console.login(game["director_token"])
    live = live_field(console.html("/players"), "淘宝")
    csrf = console.csrf("/players")
    data = {"csrf_token": csrf, "character": "淘宝", "live": live}
    first = console.client.post("/tokens/reissue", data=data)
    found = re.search(r'id="player-token" value="([^"]+)"', first.get_data(as_text=True))
    assert found is not None
    before = tokens(app, game["id"])
    audits = len(token_audit(app, game["id"]))

    again = console.client.post("/tokens/reissue", data=data)
    assert again.status_code == 302 and again.headers["Location"].endswith("/players#tokens")
    messages = flashes(console.html("/players"))
    assert any(m.startswith("「淘宝」的令牌刚刚已经变动") for m in messages), messages
    assert tokens(app, game["id"]) == before
    assert len(token_audit(app, game["id"])) == audits
    assert view_status(console, game, found.group(1)) == 200


def test_reissue_after_revoke(app: Flask, console: Any, game: dict[str, Any]) -> None:
    console.login(game["director_token"])
    console.form("/tokens/revoke", {"character": "抖音"}, page="/players")
    html = console.html("/players")
    assert live_field(html, "抖音") == ""
    response = console.form("/tokens/reissue", {"character": "抖音", "live": ""}, page="/players")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert "抖音原先没有有效的令牌。" in page
    found = re.search(r'id="player-token" value="([^"]+)"', page)
    assert found is not None and view_status(console, game, found.group(1)) == 200
    assert [e.action for e in token_audit(app, game["id"])] == ["revoke_token", "issue_token"]


@pytest.mark.parametrize("path", ("/tokens/revoke", "/tokens/reissue"))
def test_token_forms_need_csrf_and_login(
    app: Flask, console: Any, game: dict[str, Any], path: str
) -> None:
    before = tokens(app, game["id"])
    live = str(player_row_id(app, game["id"], game["player_tokens"]["微博"]))
    response = console.form(path, {"character": "微博", "live": live}, page="/login")
    assert response.status_code == 302 and response.headers["Location"].endswith("/login")
    console.login(game["director_token"])
    for extra in ({}, {"csrf_token": "forged"}):
        response = console.client.post(path, data={"character": "微博", "live": live, **extra})
        assert response.status_code == 400
        assert "CSRF" in response.get_data(as_text=True)
    assert tokens(app, game["id"]) == before
    assert token_audit(app, game["id"]) == []
    assert view_status(console, game, game["player_tokens"]["微博"]) == 200


@pytest.mark.parametrize("path", ("/tokens/revoke", "/tokens/reissue"))
def test_unknown_character_is_refused_and_nothing_changes(
    app: Flask, console: Any, game: dict[str, Any], path: str
) -> None:
    console.login(game["director_token"])
    before = tokens(app, game["id"])
    cases = [
        ("nobody", "没有名为「nobody」的角色，令牌没有改动"),
        ("长" * 65, f"没有名为「{'长' * 65}」的角色，令牌没有改动"),
        ("", "请选择角色"),
    ]
    for character, message in cases:
        response = console.form(path, {"character": character, "live": ""}, page="/players")
        assert response.status_code == 302
        assert response.headers["Location"].endswith("/players#tokens")
        assert message in flashes(console.html("/players")), message
    assert tokens(app, game["id"]) == before
    assert token_audit(app, game["id"]) == []


def test_substitute_points_to_reissue(console: Any, game: dict[str, Any]) -> None:
    console.login(game["director_token"])
    response = console.form(
        "/substitute", {"character": "知乎", "player": "新玩家"}, page="/players"
    )
    assert response.headers["Location"].endswith("/players#tokens")
    assert (
        "替补不会更换玩家令牌：请在「玩家令牌」中为知乎重发令牌，私下发给新玩家，旧令牌随即失效"
        in flashes(console.html("/players"))
    )
    # The token did not change hands by itself.
    assert view_status(console, game, game["player_tokens"]["知乎"]) == 200


def test_token_changes_keep_the_directors_reason(
    app: Flask, console: Any, game: dict[str, Any]
) -> None:
    console.login(game["director_token"])
    console.form(
        "/tokens/revoke", {"character": "微信", "reason": "  玩家说令牌发错了群  "}, page="/players"
    )
    live = token_row(console.html("/players"), "支付宝")
    expected = re.search(r'name="live" value="([^"]*)"', live)
    assert expected is not None
    response = console.client.post(
        "/tokens/reissue",
        data={"csrf_token": console.csrf("/players"), "character": "支付宝",
              "live": expected.group(1), "reason": "换手机"},
    )  # fmt: skip
    assert response.status_code == 200
    reasons = [
        (e.action, e.detail["character"], e.detail["reason"]) for e in token_audit(app, game["id"])
    ]
    assert reasons == [
        ("revoke_token", "微信", "玩家说令牌发错了群"),
        ("revoke_token", "支付宝", "换手机"),
        ("issue_token", "支付宝", "换手机"),
    ]
    before = tokens(app, game["id"])
    console.form("/tokens/revoke", {"character": "抖音", "reason": "长" * 2001}, page="/players")
    assert "原因不能超过2000个字符，令牌没有改动" in flashes(console.html("/players"))
    assert tokens(app, game["id"]) == before
