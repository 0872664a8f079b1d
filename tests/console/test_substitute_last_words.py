"""替补 and 遗言 entered in the console: the API's action path, refusals in Chinese, CSRF."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

from flask import Flask
from sqlalchemy import func, select

from models.audit import AuditEntry
from models.game import GameEvent


def event_count(app: Flask, game_id: str) -> int:
    with app.extensions["bansha_db"].read() as session:
        return int(
            session.scalar(
                select(func.count()).select_from(GameEvent).where(GameEvent.game_id == game_id)
            )
            or 0
        )


def flashes(html: str) -> list[str]:
    return [unescape(m) for m in re.findall(r'<li class="flash flash-\w+">(.*?)</li>', html, re.S)]


def kill_at_night(console: Any, victim: str) -> None:
    """Close day 1 (accelerated: no lurking cards) and let the wolf 微信 kill ``victim``."""
    console.form("/day/close", {"confirmed": "1", "accelerated": "1"}, page="/day")
    console.form("/action", {"actor": "微信", "skill": "kill", "target": victim}, page="/day")
    console.form("/night/close", {"confirmed": "1"}, page="/day")


def last_words_open(html: str) -> list[str]:
    """The characters with a 遗言 form on 角色与牌 (other panels have character fields too)."""
    section = re.search(r'<section[^>]*id="last-words">.*?</section>', html, re.S)
    assert section is not None
    return [unescape(v) for v in re.findall(r'name="character" value="([^"]+)"', section.group(0))]


def substitute_options(html: str) -> list[str]:
    form = re.search(r'<form[^>]*id="substitute-form".*?</form>', html, re.S)
    assert form is not None
    return [unescape(v) for v in re.findall(r'<option value="([^"]+)"', form.group(0))]


# ---------------------------------------------------------------------------------------------
# 替补


def test_substitute_replaces_the_player(app: Flask, console: Any, game: dict[str, Any]) -> None:
    console.login(game["director_token"], name="导演甲")
    assert "百度" in substitute_options(console.html("/players"))
    response = console.form(
        "/substitute", {"character": "百度", "player": " 新来的玩家 "}, page="/players"
    )
    assert response.status_code == 302
    html = console.html("/players")
    assert "已更换替补：新来的玩家 接替 百度（百度）" in flashes(html)
    row = re.search(r"<b>百度</b>.*?</tr>", html, re.S)
    assert row is not None and "新来的玩家" in row.group(0) and "前任玩家：百度" in row.group(0)
    assert "百度" not in substitute_options(html)
    assert "百度：新来的玩家 接替 百度" in unescape(html)
    # The same game-core event the API's substitute action writes, audited as a console action.
    log = console.director_view(game)["director"]["events"]
    assert {"type": "substituted", "character": "百度", "old_player": "百度",
            "new_player": "新来的玩家"}.items() <= log[-1].items()  # fmt: skip
    with app.extensions["bansha_db"].read() as session:
        entry = session.scalars(select(AuditEntry).order_by(AuditEntry.id.desc())).first()
        assert entry is not None and entry.actor == "director:导演甲"
        assert entry.detail["action"]["type"] == "substitute" and entry.detail["via"] == "console"


def test_second_substitute_is_refused_and_changes_nothing(
    app: Flask, console: Any, game: dict[str, Any]
) -> None:
    console.login(game["director_token"])
    console.form("/substitute", {"character": "百度", "player": "替补一号"}, page="/players")
    before = event_count(app, game["id"])
    console.form("/substitute", {"character": "百度", "player": "替补二号"}, page="/players")
    html = console.html("/players")
    assert "每名角色仅限更换一次替补：百度" in flashes(html)
    assert event_count(app, game["id"]) == before
    assert "替补二号" not in html and "替补一号" in html


def test_substitute_bad_input_is_a_message(app: Flask, console: Any, game: dict[str, Any]) -> None:
    console.login(game["director_token"])
    before = event_count(app, game["id"])
    cases = [
        ({"character": "百度", "player": "   "}, "请填写替补玩家的名字"),
        ({"character": "百度", "player": "长" * 65}, "替补玩家名不能超过64个字符"),
        ({"character": "nobody", "player": "某人"}, "没有名为「nobody」的角色"),
        ({"character": "", "player": "某人"}, "请选择要更换替补的角色"),
    ]
    for data, message in cases:
        response = console.form("/substitute", data, page="/players")
        assert response.headers["Location"].endswith("/players#substitute")
        assert any(f.startswith(message) for f in flashes(console.html("/players"))), message
    assert event_count(app, game["id"]) == before
    assert "百度" in substitute_options(console.html("/players"))


def test_substitute_needs_csrf(app: Flask, console: Any, game: dict[str, Any]) -> None:
    console.login(game["director_token"])
    before = event_count(app, game["id"])
    for data in ({}, {"csrf_token": "forged"}):
        response = console.client.post(
            "/substitute", data={"character": "百度", "player": "某人", **data}
        )
        assert response.status_code == 400
        assert "CSRF" in response.get_data(as_text=True)
    assert event_count(app, game["id"]) == before
    assert "百度" in substitute_options(console.html("/players"))


# ---------------------------------------------------------------------------------------------
# 遗言


def test_night_death_leaves_last_words_published_at_once(
    app: Flask, console: Any, game: dict[str, Any]
) -> None:
    console.login(game["director_token"])
    assert 'action="/last-words"' not in console.html("/players")
    kill_at_night(console, "知乎")
    players = console.html("/players")
    assert last_words_open(players) == ["知乎"]
    assert "第1天夜晚出局，有遗言权利" in players
    assert "共2个遗言，已有1名角色获得遗言权利" in players  # M72: as many as the wolves
    assert "尚未提交遗言：知乎" in console.html("/day")
    text = "我是预言家\r\n昨晚查验：微信是狼人"
    response = console.form(
        "/last-words", {"character": "知乎", "text": text, "choice": "give"}, page="/players"
    )
    assert response.status_code == 302
    after = console.html("/players")
    assert "已记录知乎的遗言" in flashes(after)
    assert "公示：知乎的遗言：我是预言家\n昨晚查验：微信是狼人" in flashes(after)
    assert "知乎的遗言：我是预言家\n昨晚查验：微信是狼人" in console.announcements(game)
    assert "知乎" not in last_words_open(after)
    assert "知乎：已留遗言" in after
    assert "尚未提交遗言" not in console.html("/day")


def test_last_words_twice_or_without_right_are_refused(
    app: Flask, console: Any, game: dict[str, Any]
) -> None:
    console.login(game["director_token"])
    kill_at_night(console, "知乎")
    console.form("/last-words", {"character": "知乎", "choice": "abandon"}, page="/players")
    assert "知乎放弃遗言" in flashes(console.html("/players"))
    before = event_count(app, game["id"])
    announced = console.announcements(game)
    console.form(
        "/last-words", {"character": "知乎", "text": "补一句", "choice": "give"}, page="/players"
    )
    html = console.html("/players")
    assert "知乎已经留过（或放弃了）遗言" in flashes(html)
    assert "知乎：放弃遗言" in html
    console.form(
        "/last-words", {"character": "微信", "text": "我不是狼", "choice": "give"}, page="/players"
    )
    assert "微信没有遗言权利" in flashes(console.html("/players"))
    assert event_count(app, game["id"]) == before
    assert console.announcements(game) == announced
    assert not any("遗言：" in a for a in announced)


def test_empty_last_words_are_refused(app: Flask, console: Any, game: dict[str, Any]) -> None:
    console.login(game["director_token"])
    kill_at_night(console, "知乎")
    before = event_count(app, game["id"])
    response = console.form(
        "/last-words", {"character": "知乎", "text": " \r\n ", "choice": "give"}, page="/players"
    )
    assert response.headers["Location"].endswith("/players#last-words")
    html = console.html("/players")
    assert "请粘贴遗言内容；不留遗言请选择“放弃遗言”" in flashes(html)
    assert "知乎" in last_words_open(html)  # the right is still open
    app.config["MAX_POST_CHARS"] = 10
    console.form(
        "/last-words", {"character": "知乎", "text": "字" * 11, "choice": "give"}, page="/players"
    )
    assert "遗言不能超过10字" in flashes(console.html("/players"))
    assert event_count(app, game["id"]) == before


def test_last_words_need_csrf(app: Flask, console: Any, game: dict[str, Any]) -> None:
    console.login(game["director_token"])
    kill_at_night(console, "知乎")
    before = event_count(app, game["id"])
    response = console.client.post(
        "/last-words", data={"character": "知乎", "text": "遗言", "choice": "give"}
    )
    assert response.status_code == 400
    assert event_count(app, game["id"]) == before
    assert "知乎" in last_words_open(console.html("/players"))


def test_day_vote_words_wait_for_the_next_day(console: Any, seed_only: None) -> None:
    """M08: a day-2 vote elimination's words are announced when day 3 starts, not at once."""
    players = ["穗乃果", "绘里", "小鸟", "海未", "凛", "真姬", "希", "花阳", "妮可", "千歌", "梨子"]
    game = console.new_game("m08", players, seed="m08-words")
    console.login(game["director_token"])
    console.form(
        "/day/close", {"confirmed": "1", "accelerated": "1"}, page="/day"
    )  # day 1: sheriff election
    console.settle()
    console.form("/night/close", {"confirmed": "1"}, page="/day")
    console.settle()
    living = console.client.get(f"/api/games/{game['id']}/view").get_json()["living"]
    target = living[0]
    day = console.client.get(f"/api/games/{game['id']}/view").get_json()["day"]
    for voter in living:
        console.post(game, voter, f"投票对象：{target}\n投票理由：测试", thread="vote", day=day)
    console.form("/day/close", {"confirmed": "1", "accelerated": "1"}, page="/day")
    assert target in last_words_open(console.html("/players"))
    console.form(
        "/last-words", {"character": target, "text": "我是好人", "choice": "give"}, page="/players"
    )
    assert f"已记录{target}的遗言，将在下一个游戏日开始时公示" in flashes(console.html("/players"))
    assert f"{target}的遗言：我是好人" not in console.announcements(game)
    console.form(
        "/night/close", {"confirmed": "1"}, page="/day"
    )  # nobody acts: the seed's defaults
    if 'id="deadline"' in console.html("/day"):
        console.form("/deadline", {}, page="/day")
    assert "第3天" in console.html("/day")
    assert f"{target}的遗言：我是好人" in console.announcements(game)
