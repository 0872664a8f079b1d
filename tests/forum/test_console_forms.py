"""The console's 论坛导入 page: upload a saved page, map an account, paste a post by hand."""

from __future__ import annotations

import io
from typing import Any

from flask.testing import FlaskClient

from tests.forum.conftest import csrf, fixture, login, stored_posts


def upload(client: FlaskClient, name: str, thread: str, data: bytes | None = None) -> Any:
    return client.post(
        "/forum/import",
        data={
            "csrf_token": csrf(client, "/forum/import"),
            "thread": thread,
            "day": "",
            "zone": "Asia/Shanghai",
            "page": (io.BytesIO(data if data is not None else fixture(name)), name),
        },
        content_type="multipart/form-data",
    )


def test_forms_need_a_logged_in_director(client: FlaskClient, game: dict[str, Any]) -> None:
    assert client.get("/forum/import").status_code == 302
    assert client.get("/forum/paste").status_code == 302


def test_an_upload_without_the_csrf_token_is_refused_and_stores_nothing(
    client: FlaskClient, game: dict[str, Any]
) -> None:
    login(client, game["director_token"])
    page = (io.BytesIO(fixture("discuz_discussion_p1.html")), "discuz_discussion_p1.html")
    response = client.post(
        "/forum/import",
        data={"thread": "discussion", "day": "", "zone": "Asia/Shanghai", "page": page},
        content_type="multipart/form-data",
    )
    assert response.status_code == 400
    assert "缺少或过期的CSRF令牌" in response.get_data(as_text=True)
    assert stored_posts(client, game) == []


def test_upload_shows_added_existing_and_unmapped_then_maps(
    client: FlaskClient, game: dict[str, Any]
) -> None:
    login(client, game["director_token"])
    first = upload(client, "discuz_discussion_p1.html", "discussion")
    html = first.get_data(as_text=True)
    assert first.status_code == 200
    assert 'id="added-count">4<' in html and 'id="already-count">0<' in html
    assert "版杀导演" in html and "设为该角色的马甲" in html
    assert "4楼" in html  # the deleted floor is named
    again = upload(client, "discuz_discussion_p1.html", "discussion").get_data(as_text=True)
    assert 'id="added-count">0<' in again and 'id="already-count">4<' in again
    mapped = client.post(
        "/forum/map",
        data={
            "csrf_token": csrf(client, "/forum/import"),
            "account": "版杀导演",
            "character": "网易云",
        },
    )
    assert mapped.status_code == 302
    third = upload(client, "discuz_discussion_p1.html", "discussion").get_data(as_text=True)
    assert 'id="added-count">1<' in third
    assert {p["author"] for p in stored_posts(client, game)} == {
        "微信", "支付宝", "淘宝", "抖音", "网易云"
    }  # fmt: skip


def test_a_bad_upload_is_refused_in_chinese_and_nothing_is_stored(
    client: FlaskClient, game: dict[str, Any]
) -> None:
    login(client, game["director_token"])
    response = upload(client, "x.html", "vote", fixture("tieba_vote_p1.html")[:5000])
    assert response.status_code == 400
    assert "网页文件不完整" in response.get_data(as_text=True)
    assert stored_posts(client, game) == []


def test_the_import_form_needs_its_csrf_token(client: FlaskClient, game: dict[str, Any]) -> None:
    login(client, game["director_token"])
    response = client.post("/forum/map", data={"account": "x", "character": "微信"})
    assert response.status_code == 400


def test_paste_a_post_by_hand_once(client: FlaskClient, game: dict[str, Any]) -> None:
    login(client, game["director_token"])
    form = {"author": "美团", "thread": "discussion", "posted_at": "2026-11-29T21:15",
            "zone": "Asia/Shanghai", "day": "", "reply_to": "",
            "body": "QQ上转发来的：你个傻逼"}  # fmt: skip
    first = client.post("/forum/paste", data={**form, "csrf_token": csrf(client, "/forum/paste")})
    assert first.status_code == 302
    page = client.get("/forum/paste").get_data(as_text=True)
    assert "已录入美团的帖子" in page
    client.post("/forum/paste", data={**form, "csrf_token": csrf(client, "/forum/paste")})
    assert "之前已经录入过" in client.get("/forum/paste").get_data(as_text=True)
    posts = stored_posts(client, game)
    assert len(posts) == 1 and posts[0]["findings"]
    assert posts[0]["posted_at"].hour == 13  # 21:15 Beijing time, stored in UTC


def test_paste_without_time_is_refused(client: FlaskClient, game: dict[str, Any]) -> None:
    login(client, game["director_token"])
    form = {"author": "美团", "thread": "discussion", "posted_at": "", "zone": "", "day": "",
            "reply_to": "", "body": "x", "csrf_token": csrf(client, "/forum/paste")}  # fmt: skip
    response = client.post("/forum/paste", data=form)
    assert response.status_code == 400 and "发帖时间" in response.get_data(as_text=True)
    assert stored_posts(client, game) == []


def test_roster_needs_the_director_token(client: FlaskClient, game: dict[str, Any]) -> None:
    assert client.get(f"/forum/api/{game['id']}/roster").status_code == 401
    token = game["player_tokens"]["微信"]
    roster = f"/forum/api/{game['id']}/roster"
    bad = client.get(roster, headers={"Authorization": f"Bearer {token}"})
    assert bad.status_code == 403
    ok = client.get(
        f"/forum/api/{game['id']}/roster",
        headers={"Authorization": f"Bearer {game['director_token']}"},
    ).get_json()
    assert ok["day"] == 1 and ok["accounts"]["weibo_2026"] == "微博"


def test_a_20_mb_upload_is_refused_in_chinese(client: FlaskClient, game: dict[str, Any]) -> None:
    login(client, game["director_token"])
    huge = b"<html>" + b"x" * (20 * 1024 * 1024) + b"</html>"
    response = upload(client, "huge.html", "vote", huge)
    assert response.status_code == 413
    assert "这不像是一页帖子" in response.get_data(as_text=True)
    assert stored_posts(client, game) == []


def test_the_userscript_link_names_the_game_and_the_script_holds_no_token(
    client: FlaskClient, game: dict[str, Any]
) -> None:
    login(client, game["director_token"])
    html = client.get("/forum/import").get_data(as_text=True)
    assert f"/userscript/bansha.user.js?game={game['id']}" in html
    script = client.get(f"/userscript/bansha.user.js?game={game['id']}").get_data(as_text=True)
    assert script.startswith("// ==UserScript==")
    assert f'const GAME = "{game["id"]}"' in script and "// @connect      localhost" in script
    assert game["director_token"] not in script
    hostile = client.get('/userscript/bansha.user.js?game=x";alert(1);"').get_data(as_text=True)
    assert 'const GAME = "";' in hostile
