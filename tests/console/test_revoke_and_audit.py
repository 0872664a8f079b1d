"""The console's way back from a wrong card (a second, server-side confirmation step) and its
审计记录 page."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

from flask import Flask
from sqlalchemy import func, select

from models.cards import CardRevocation


def flashes(html: str) -> list[str]:
    return [unescape(m) for m in re.findall(r'<li class="flash flash-\w+">(.*?)</li>', html, re.S)]


def give(console: Any, game: dict[str, Any], character: str, colour: str) -> dict[str, Any]:
    response = console.client.post(
        f"/api/games/{game['id']}/cards",
        json={"character": character, "colour": colour, "category": "other", "reason": "看错人"},
        headers={"Authorization": f"Bearer {game['director_token']}"},
    )
    assert response.status_code == 201
    data: dict[str, Any] = response.get_json()
    return data


def revocations(app: Flask) -> int:
    with app.extensions["bansha_db"].read() as session:
        return int(session.scalar(select(func.count()).select_from(CardRevocation)) or 0)


def test_revoking_a_red_card_takes_a_second_confirmation(
    app: Flask, console: Any, game: dict[str, Any]
) -> None:
    character = game["characters"][11]
    red = give(console, game, character, "red")["cards"][0]
    console.login(game["director_token"], name="导演甲")
    players = console.html("/players")
    link = f"/cards/{red['id']}/revoke"
    assert f'href="{link}"' in players and "confirm(" not in players
    # step one: the consequences, nothing changed yet
    page = console.html(link)
    preview = unescape(re.search(r'id="revoke-preview">(.*?)</ul>', page, re.S).group(1))  # type: ignore[union-attr]
    assert f"公示：{character}的红牌已撤销，{character}回到游戏" in preview
    assert 'id="revoke-form"' in page
    assert revocations(app) == 0
    assert f"{character}被红牌罚下" in console.announcements(game)
    assert f"{character}的红牌已撤销" not in " ".join(console.announcements(game))
    # a confirmation without a reason is refused and changes nothing
    console.form(link, {"reason": " "}, page=link)
    assert "请写明撤销的理由" in flashes(console.html("/players"))
    assert revocations(app) == 0
    # step two: confirmed
    response = console.form(link, {"reason": "看错了发帖人"}, page=link)
    assert response.status_code == 302
    shown = flashes(console.html("/players"))
    assert f"公示：{character}的红牌已撤销，{character}回到游戏" in shown
    assert revocations(app) == 1
    assert f"{character}的红牌已撤销，{character}回到游戏" in console.announcements(game)
    # the revoked card is shown struck through and is no longer offered
    players = console.html("/players")
    assert "chip-red revoked" in players and f'href="{link}"' not in players


def test_a_refused_revocation_says_why_and_offers_no_confirmation(
    app: Flask, console: Any, game: dict[str, Any]
) -> None:
    character = game["characters"][11]
    red = give(console, game, character, "red")["cards"][0]
    voted = console.post(
        game,
        game["characters"][0],
        f"投票对象：{game['characters'][1]}\n投票理由：划水",
        thread="vote",
    )
    assert voted["vote"]["status"] == "counted"  # something happened in the game since
    console.login(game["director_token"])
    page = console.html(f"/cards/{red['id']}/revoke")
    refused = unescape(re.search(r'id="revoke-refused">(.*?)</p>', page, re.S).group(1))  # type: ignore[union-attr]
    assert "不能再撤销" in refused and "必须等该版杀结束后进行" in refused
    assert 'id="revoke-form"' not in page
    # posting the form anyway is refused by the same rule
    console.form(f"/cards/{red['id']}/revoke", {"reason": "x"}, page="/players")
    assert any("不能再撤销" in f for f in flashes(console.html("/players")))
    assert revocations(app) == 0


def test_the_audit_page_lists_acts_with_the_token_behind_them(
    console: Any, game: dict[str, Any]
) -> None:
    character = game["characters"][3]
    card = give(console, game, character, "blue")["cards"][0]
    console.login(game["director_token"], name="导演甲")
    link = f"/cards/{card['id']}/revoke"
    console.form(link, {"reason": "误判"}, page=link)
    page = unescape(console.html("/audit"))
    assert "审计记录" in page
    rows = re.findall(r"<tr><td class=\"num\">(\d+)</td>(.*?)</tr>", page, re.S)
    texts = [r[1] for r in rows]
    assert any("撤销牌" in t and "director:导演甲" in t and "导演令牌 #" in t for t in texts)
    assert any("给牌" in t and "导演令牌 #" in t for t in texts)
    only = unescape(console.html("/audit?action=revocation"))
    assert "误判" in only and "看错人" not in only
    assert "未知的审计类别" in " ".join(flashes(console.html("/audit?action=nope")))


def test_the_timeline_marks_a_revoked_card(console: Any, game: dict[str, Any]) -> None:
    character = game["characters"][5]
    card = give(console, game, character, "yellow")["cards"][0]
    console.login(game["director_token"])
    link = f"/cards/{card['id']}/revoke"
    console.form(link, {"reason": "发帖人看错"}, page=link)
    assert "（已撤销：发帖人看错）" in unescape(console.html("/timeline"))
