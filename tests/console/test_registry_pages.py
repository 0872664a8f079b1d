"""The console's 玩家档案 pages: this game's seats with games played and 场外助理 eligibility,
registering an assistant (refused at four games under M72), the search and a player's page."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

from flask.testing import FlaskClient

M72 = ["微信", "支付宝", "淘宝", "抖音", "微博", "知乎", "百度", "美团", "滴滴", "高德", "网易云",
       "哔哩哔哩"]  # fmt: skip


def flashes(html: str) -> list[str]:
    return [unescape(m) for m in re.findall(r'<li class="flash flash-\w+">(.*?)</li>', html, re.S)]


def game_with(client: FlaskClient, seats: dict[str, str]) -> dict[str, Any]:
    players = [{"character": c, "player": seats[c]} if c in seats else c for c in M72]
    response = client.post("/api/games", json={"ruleset": "m72", "players": players})
    assert response.status_code == 201, response.get_json()
    data: dict[str, Any] = response.get_json()
    return data


def test_registry_page_shows_the_count_and_checks_the_assistant(
    client: FlaskClient, console: Any
) -> None:
    for _ in range(4):
        game_with(client, {"微信": "老玩家"})
    for _ in range(3):
        game_with(client, {"支付宝": "新玩家"})
    game = game_with(client, {"微信": "老玩家", "支付宝": "新玩家"})
    console.login(game["director_token"])
    page = unescape(console.html("/registry"))
    assert "玩家档案" in page
    assert "已参加4场（上限3场）" in page and "已参加3场（上限3场）" in page
    assert "不可申请" in page and "可以申请" in page

    ok = console.form(
        "/registry/assistants", {"character": "支付宝", "assistant": "场助甲"}, page="/registry"
    )
    assert ok.status_code == 302
    shown = flashes(console.html("/registry"))
    assert shown == ["已登记场外助理：场助甲（新玩家已参加3场版杀）"]
    console.form(
        "/registry/assistants", {"character": "微信", "assistant": "场助乙"}, page="/registry"
    )
    (refused,) = flashes(console.html("/registry"))
    assert (
        "老玩家已参加4场版杀" in refused and "禁止已参加四场或以上版杀的玩家申请场外助理" in refused
    )

    # a red card shows on the player's page with the seed's 单独记录
    card = {"character": "微信", "colour": "red", "category": "other", "reason": "恶意"}
    headers = {"Authorization": f"Bearer {game['director_token']}"}
    assert (
        client.post(f"/api/games/{game['id']}/cards", json=card, headers=headers).status_code == 201
    )
    found = unescape(console.html("/registry?name=老玩"))
    link = re.search(r'href="/registry/players/(\d+)">老玩家</a>', found)
    assert link is not None
    player = unescape(console.html(f"/registry/players/{link.group(1)}"))
    assert "参加的游戏（5场）" in player
    assert "红牌的赛后记录（小镇）：红牌针对屡教不改" in player
    assert console.client.get("/registry/players/99999").status_code in (400, 404)
