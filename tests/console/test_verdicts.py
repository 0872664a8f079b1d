"""判负 and the direct card take a second step: the first POST shows what will happen (found by
applying the verdict and rolling it back), nothing is stored until 确认 sends ``confirmed=1``."""

from __future__ import annotations

from html import unescape
from typing import Any

from tests.console.conftest import Console


def view(console: Console, game: dict[str, Any]) -> dict[str, Any]:
    return console.director_view(game)


def test_direct_red_asks_first_and_stores_nothing(console: Console, game: dict[str, Any]) -> None:
    console.login(game["director_token"])
    data = {"character": "百度", "colour": "red", "category": "multi_account", "reason": "串号"}
    first = console.form("/card", data, page="/players")
    assert first.status_code == 200
    page = unescape(first.get_data(as_text=True))
    assert "确认判罚：百度" in page and "判红牌：红牌将罚下 百度" in page
    assert "公示：百度被红牌罚下" in page  # the preview: what the red card will announce
    assert 'name="confirmed" value="1"' in page and "取消，返回角色与牌" in page
    assert "百度" in view(console, game)["living"]
    assert "百度被红牌罚下" not in console.announcements(game)
    assert console.suggestions(game) == []  # not even the manual suggestion is kept
    done = console.form("/card", {**data, "confirmed": "1"}, page="/players")
    assert done.status_code == 302
    assert "百度被红牌罚下" in console.announcements(game)
    assert "百度" not in view(console, game)["living"]


def test_blue_is_given_at_once_and_an_escalation_to_red_asks(
    console: Console, game: dict[str, Any]
) -> None:
    console.login(game["director_token"])
    data = {"character": "淘宝", "colour": "yellow", "category": "insult", "reason": "骂人"}
    for _ in range(2):
        assert console.form("/card", data, page="/players").status_code == 302
    third = console.form("/card", data, page="/players")
    assert third.status_code == 200
    page = unescape(third.get_data(as_text=True))
    assert "判黄牌：将升级为红牌并罚下 淘宝" in page
    assert "淘宝：红牌" in page  # the escalation the preview found
    assert "淘宝" in view(console, game)["living"]
    blue = {**data, "character": "知乎", "colour": "blue"}
    assert console.form("/card", blue, page="/players").status_code == 302
    assert "已判罚：知乎：蓝牌" in console.html("/players")


def test_red_with_faction_lost_shows_the_end_of_the_game(
    console: Console, game: dict[str, Any]
) -> None:
    console.login(game["director_token"])
    data = {"character": "微博", "colour": "red", "category": "cheating", "reason": "作弊",
            "faction_lost": "1"}  # fmt: skip
    first = console.form("/card", data, page="/players")
    page = unescape(first.get_data(as_text=True))
    assert "同时判负妖狐阵营（微博所在阵营）" in page
    assert "妖狐阵营判负" in page
    assert view(console, game)["director"]["outcome"]["results"]["foxes"] == "undecided"
    console.form("/card", {**data, "confirmed": "1"}, page="/players")
    assert view(console, game)["director"]["outcome"]["results"]["foxes"] == "lose"


def test_forfeit_panel_preview_and_confirm(console: Console, game: dict[str, Any]) -> None:
    console.login(game["director_token"])
    players = console.html("/players")
    assert 'id="forfeit-form"' in players
    for name in ("狼人阵营", "村民阵营", "妖狐阵营"):
        assert f">{name}</option>" in players
    first = console.form("/forfeit", {"faction": "wolves", "reason": "集体作弊"}, page="/players")
    assert first.status_code == 200
    page = unescape(first.get_data(as_text=True))
    assert "确认判负：狼人阵营" in page and "判负狼人阵营：集体作弊" in page
    assert "<li><bdi>狼人阵营判负</bdi></li>" in page
    assert view(console, game)["director"]["outcome"]["results"]["wolves"] == "undecided"
    done = console.form(
        "/forfeit", {"faction": "wolves", "reason": "集体作弊", "confirmed": "1"}, page="/players"
    )
    assert done.status_code == 302
    results = view(console, game)["director"]["outcome"]["results"]
    assert results["wolves"] == "lose"
    after = console.html("/players")
    assert "狼人阵营判负" in after  # the flash
    assert ">狼人阵营</option>" not in after  # no longer offered


def test_forfeit_refusals_change_nothing(console: Console, game: dict[str, Any]) -> None:
    console.login(game["director_token"])
    for data, message in (
        ({"faction": "", "reason": "x"}, "请选择判负的阵营"),
        ({"faction": "wolves", "reason": "  "}, "请写明判负原因"),
        ({"faction": "wolves", "reason": "x" * 2001}, "判负原因不能超过2000字"),
        ({"faction": "pirates", "reason": "x", "confirmed": "1"}, "没有“pirates”这个阵营"),
    ):
        response = console.form("/forfeit", data, page="/players")
        assert response.status_code == 302, data
        assert message in unescape(console.html("/players")), message
    assert set(view(console, game)["director"]["outcome"]["results"].values()) == {"undecided"}
    # M72: two factions lost leaves one, which may not be judged lost in its turn.
    for faction in ("wolves", "foxes"):
        console.form("/forfeit", {"faction": faction, "reason": "x", "confirmed": "1"},
                     page="/players")  # fmt: skip
    assert view(console, game)["director"]["outcome"]["ended"]
    assert 'id="forfeit-form"' not in console.html("/players")  # nothing after the game's end


def test_queue_red_with_faction_lost_names_the_faction(
    console: Console, game: dict[str, Any]
) -> None:
    sid = console.post(game, "微博", "曹尼玛")["suggestion"]["id"]
    console.login(game["director_token"])
    response = console.form(f"/queue/{sid}", {"colour": "red", "faction_lost": "1"})
    page = unescape(response.get_data(as_text=True))
    assert "同时判负妖狐阵营（<bdi>微博</bdi>所在阵营）" in page
    assert "并判负妖狐阵营" in page
    assert view(console, game)["director"]["outcome"]["results"]["foxes"] == "undecided"


def test_queue_faction_lost_needs_a_red_card(console: Console, game: dict[str, Any]) -> None:
    # three yellows make a red by escalation; a 判负 is still refused before any confirmation
    for text in ("曹尼玛", "草泥马"):
        sid = console.post(game, "淘宝", text)["suggestion"]["id"]
        console.login(game["director_token"])
        console.form(f"/queue/{sid}", {"colour": "yellow"})
    sid = console.post(game, "淘宝", "曹尼玛")["suggestion"]["id"]
    response = console.form(f"/queue/{sid}", {"colour": "yellow", "faction_lost": "1"})
    assert response.status_code == 302
    assert "只有红牌可以附带判负" in unescape(console.html("/queue"))
    assert "淘宝" in view(console, game)["living"]
    assert [s["status"] for s in console.suggestions(game) if s["id"] == sid] == ["pending"]


def test_forfeit_needs_csrf_and_login(console: Console, game: dict[str, Any]) -> None:
    body = {"faction": "wolves", "reason": "x", "confirmed": "1"}
    assert console.client.post("/forfeit", data=body).status_code == 400  # no CSRF token
    logged_out = console.form("/forfeit", body, page="/login")
    assert logged_out.status_code == 302 and logged_out.headers["Location"].endswith("/login")
    console.login(game["director_token"])
    assert console.client.post("/forfeit", data=body).status_code == 400
    assert view(console, game)["director"]["outcome"]["results"]["wolves"] == "undecided"
