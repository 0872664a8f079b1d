"""The 日夜 page's day/night half (issue 13): the night in the seed's order with private
notices, corrections and 「请选择」; the 关门 time and 代投 against it; closes confirmed in a
second step with the activity cards reviewable; nothing automatic once the game has ended;
公示 items with a stored 已发布 mark; 弃权 counted in characters."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html import unescape
from typing import Any
from zoneinfo import ZoneInfo

from werkzeug.datastructures import MultiDict

NAMES = ["穗乃果", "绘里", "小鸟", "海未", "凛", "真姬", "希", "花阳", "妮可", "千歌", "梨子"]
ROLES = dict(zip(NAMES, ["wolf"] * 4 + ["villager"] * 4 + ["seer", "witch", "hunter"],
                 strict=True))  # fmt: skip
WITCH, SEER, LEADER = "千歌", "妮可", "穗乃果"


def text(html: str) -> str:
    """The page's text without isolating tags, unescaped."""
    return unescape(re.sub(r"</?bdi>", "", html))


def flashes(html: str) -> list[str]:
    return [unescape(m) for m in re.findall(r'<li class="flash flash-\w+">(.*?)</li>', html, re.S)]


def cards(console: Any, game: dict[str, Any]) -> list[tuple[str, str]]:
    """(character, colour) of every card of ``game``, from the API's ledgers."""
    data = console.client.get(
        f"/api/games/{game['id']}/cards",
        headers={"Authorization": f"Bearer {game['director_token']}"},
    ).get_json()
    return [(p["character"], c["colour"]) for p in data["players"] for c in p["cards"]]


def act(console: Any, **data: str) -> str:
    response = console.client.post("/action", data={"csrf_token": console.csrf("/day"), **data})
    assert response.status_code == 302
    return str(console.html("/day"))


def m08_night(console: Any) -> dict[str, Any]:
    """An M08 game in its first night, the 狼头 elected and one kill proposed."""
    game = console.new_game("m08", NAMES, ROLES, seed="daynight")
    console.login(game["director_token"])
    console.form("/day/close", {"confirmed": "1", "accelerated": "1"}, page="/day")
    for wolf in NAMES[:4]:
        act(console, actor=wolf, skill="leader_vote", target=LEADER)
    act(console, actor="绘里", skill="propose", target="凛", reason="冲锋")
    act(console, actor="小鸟", skill="propose", target="希", reason="划水")
    return game


def test_night_rows_follow_the_night_order_and_start_at_please_choose(console: Any) -> None:
    m08_night(console)
    html = console.html("/day")
    rows = re.findall(r'<li class="night-row">.*?</li>', html, re.S)
    skills = [re.search(r'class="(?:inline|muted small waiting) skill-(\w+)', r) for r in rows]
    order = [m.group(1) for m in skills if m]
    # 3.(2) wolves, 3.(3) the witch, 3.(4) the seer
    assert order.index("kill") < order.index("poison") < order.index("divine")
    for select in re.findall(r'<select name="target"[^>]*>\s*<option value="([^"]*)"', html):
        assert select == "__pick__"
    # every select has a label
    for sid in re.findall(r'<select name="target" id="([^"]+)"', html):
        assert f'for="{sid}"' in html
    # the seed's words: 救药 and M08's 预言
    page = text(html)
    assert "<预言>" in page and "占卜" not in page and "解药" not in page


def test_save_waits_for_the_kill_and_the_witch_is_told_first(console: Any) -> None:
    m08_night(console)
    page = text(console.html("/day"))
    assert "通灵：今晚被指杀的角色是" not in page
    assert 'class="inline skill-save"' not in console.html("/day")
    assert "须先录入<杀人>" in page or "须先录入&lt;杀人&gt;" in console.html("/day")
    html = act(console, actor=LEADER, skill="kill", target="凛")
    assert 'class="inline skill-save"' in html
    notices = re.findall(
        r'<textarea readonly rows="\d+" id="(told-\d+)" dir="auto">(.*?)</textarea>', html
    )
    texts = {unescape(t) for _i, t in notices}
    assert "通灵：今晚被指杀的角色是凛" in texts
    assert all(f'data-copy="{i}"' in html for i, _t in notices)
    # the proposals were told to the 狼头
    assert any("提交指杀" in t and "凛" in t for t in texts)


def test_please_choose_left_as_it_is_is_refused(console: Any) -> None:
    m08_night(console)
    html = act(console, actor=WITCH, skill="poison", target="__pick__")
    assert "请选择目标（或选择“不选择目标 / 放弃”）" in flashes(html)
    assert "毒药> →" not in text(html)


def test_an_entry_is_corrected_and_withdrawn_before_the_night_is_resolved(console: Any) -> None:
    game = m08_night(console)
    act(console, actor=LEADER, skill="kill", target="凛")
    act(console, actor=SEER, skill="divine", target="绘里")
    page = text(console.html("/day"))
    assert f"{LEADER} <杀人> → 凛（冲锋）" in page and f"{SEER} <预言> → 绘里" in page
    # correct the kill: the other proposal; the witch's notice follows
    console.form(
        "/action/withdraw",
        {"actor": LEADER, "skill": "kill", "correct": "1", "target": "希"},
        page="/day",
    )
    html = console.html("/day")
    assert f"已更正：{LEADER}的行动" in flashes(html)
    page = text(html)
    assert f"{LEADER} <杀人> → 希（划水）" in page
    assert "通灵：今晚被指杀的角色是希" in page and "通灵：今晚被指杀的角色是凛" not in page
    # withdraw the divination: its row is back
    console.form("/action/withdraw", {"actor": SEER, "skill": "divine"}, page="/day")
    html = console.html("/day")
    assert f"已撤回：{SEER}的行动" in flashes(html)
    assert f"{SEER} <预言> →" not in text(html) and 'class="inline skill-divine"' in html
    # a proposal the kill depends on cannot be withdrawn: a message, nothing changed
    console.form("/action/withdraw", {"actor": "小鸟", "skill": "propose"}, page="/day")
    assert any("请先撤回它" in f for f in flashes(console.html("/day")))
    act(console, actor=SEER, skill="divine", target="海未")
    console.form("/night/close", {"confirmed": "1"}, page="/day")
    page = text(console.html("/day"))
    assert "预言结果：海未<非村民阵营>" in page  # the seer's result, to pass on
    view = console.director_view(game)
    assert "希" not in view["living"] and "凛" in view["living"]


def test_closing_needs_the_second_step_and_cards_can_be_deselected(console: Any) -> None:
    game = console.new_game("m08", NAMES, ROLES, seed="confirm")
    console.login(game["director_token"])
    console.post(game, "绘里", "投票对象：凛\n投票理由：测试", thread="vote")
    response = console.form("/day/close", {}, page="/day")
    assert response.status_code == 302 and "confirm=day" in response.headers["Location"]
    assert console.director_view(game)["phase"] == "day"  # nothing happened yet
    html = console.html("/day?confirm=day")
    page = text(html)
    assert "确认关门：将会发生" in page
    picks = re.findall(r'name="give" value="([^"]+)" checked', html)
    assert "穗乃果" in picks and "海未" in picks  # lurking, by name
    kept = [p for p in picks if p != "海未"]
    response = console.client.post(
        "/day/close",
        data=MultiDict([("csrf_token", console.csrf("/day")), ("confirmed", "1"),
                        *(("give", p) for p in kept), *(("reviewed", p) for p in picks)]),
    )  # fmt: skip
    assert response.status_code == 302
    assert "未给：海未" in " ".join(flashes(console.html("/day")))
    carded = {c for c, _colour in cards(console, game)}
    assert "海未" not in carded and "穗乃果" in carded


def test_night_close_confirmation_lists_the_eliminations(console: Any) -> None:
    m08_night(console)
    act(console, actor=LEADER, skill="kill", target="凛")
    response = console.form("/night/close", {}, page="/day")
    assert "confirm=night" in response.headers["Location"]
    page = text(console.html("/day?confirm=night"))
    assert "确认结算夜晚：将会发生" in page and "凛出局" in page


def red(console: Any, game: dict[str, Any], character: str) -> None:
    response = console.client.post(
        f"/api/games/{game['id']}/cards",
        json={"character": character, "colour": "red", "category": "other", "reason": "串号"},
        headers={"Authorization": f"Bearer {game['director_token']}"},
    )
    assert response.status_code == 201, response.get_json()


def test_nothing_automatic_once_the_close_ends_the_game(console: Any) -> None:
    game = console.make_game(seed="ended")
    console.login(game["director_token"])
    # M72 carries out a day's red cards after the vote: the close takes both wolves out
    for wolf in ("微信", "支付宝"):
        red(console, game, wolf)
    before = cards(console, game)
    html = console.html("/day?confirm=day")
    assert "游戏将结束：之后不再有任何自动判罚" in text(html)
    assert 'name="give"' not in html
    console.form("/day/close", {"confirmed": "1"}, page="/day")
    assert console.director_view(game)["ended"]
    # nobody voted or posted: every 潜水/未投票 yellow would be due, none is given after the end
    assert cards(console, game) == before


def local(moment: datetime) -> str:
    return moment.astimezone(ZoneInfo("Asia/Shanghai")).strftime("%Y-%m-%dT%H:%M")


def test_close_time_drives_the_proxy_deadline(console: Any) -> None:
    game = console.new_game("m08", NAMES, ROLES, seed="clock")
    console.login(game["director_token"])
    assert "尚未设置关门时间" in console.html("/day")
    soon = datetime.now(UTC) + timedelta(minutes=10)
    console.form("/day/schedule", {"closes_at": local(soon)}, page="/day")
    html = console.html("/day")
    assert soon.astimezone(ZoneInfo("Asia/Shanghai")).strftime("%Y-%m-%d %H:%M") in text(html)
    console.form("/proxy", {"voter": "绘里", "target": "凛"}, page="/day")
    refused = flashes(console.html("/day"))
    assert refused and "代投" in refused[0] and "已代投" not in refused[0]
    later = datetime.now(UTC) + timedelta(hours=3)
    console.form("/day/schedule", {"closes_at": local(later)}, page="/day")
    console.form("/proxy", {"voter": "绘里", "target": "凛"}, page="/day")
    assert "已代投：绘里" in flashes(console.html("/day"))
    # 「请选择」 is not a ballot
    console.form("/proxy", {"voter": "小鸟", "target": "__pick__"}, page="/day")
    assert "请选择投票对象（或弃权）" in flashes(console.html("/day"))


def test_weekend_extension_where_the_seed_gives_one(console: Any) -> None:
    m72 = console.make_game()
    console.login(m72["director_token"])
    html = console.html("/day")
    assert "每逢周末时讨论日延长一天" in html
    console.form("/day/schedule", {"closes_at": "2026-12-05T22:00", "weekend": "1"}, page="/day")
    assert "关门时间：2026-12-06 22:00" in flashes(console.html("/day"))
    m08 = console.new_game("m08", NAMES, ROLES, seed="noweekend")
    console.login(m08["director_token"])
    assert 'name="weekend"' not in console.html("/day")


def test_abstentions_are_counted_in_characters(console: Any) -> None:
    game = console.new_game("m08", NAMES, ROLES, seed="abstain")
    for voter in NAMES:
        console.post(game, voter, "投票对象：梨子\n投票理由：竞岗", thread="vote")
    console.login(game["director_token"])
    console.form("/day/close", {"confirmed": "1", "accelerated": "1"}, page="/day")
    console.settle()
    console.form("/night/close", {"confirmed": "1"}, page="/day")
    if 'id="deadline"' in console.html("/day"):
        console.form("/deadline", {}, page="/day")
    view = console.client.get(f"/api/games/{game['id']}/view").get_json()
    sheriff = view["sheriff"]
    assert sheriff in view["living"]
    console.post(game, sheriff, "投票对象：弃权\n投票理由：不知道", thread="vote", day=2)
    html = console.html("/day")
    assert re.search(r"<td>弃权</td><td class=\"num\">1</td>", html), "weighted 弃权 shown"


def test_announcement_items_red_card_first_and_the_posted_mark(console: Any) -> None:
    game = console.make_game()
    console.login(game["director_token"])
    red(console, game, "抖音")
    html = console.html("/day")
    items = re.findall(r'<div class="ann([^"]*)" id="item-(\d+)">', html)
    assert items and "ann-red" in items[0][0]  # first and alone
    first = items[0][1]
    assert (
        unescape(re.search(rf'id="ann-{first}" dir="auto">(.*?)</textarea>', html, re.S).group(1))
        == "抖音被红牌罚下"
    )
    assert f'data-copy="ann-{first}"' in html
    console.form(f"/announcements/{first}", {}, page="/day")
    html = console.html("/day")  # a new request: the mark is stored
    assert re.search(rf'id="item-{first}">\s*<h3>.*?已发布', html, re.S)
    console.form(f"/announcements/{first}", {"undo": "1"}, page="/day")
    assert not re.search(rf'id="item-{first}">\s*<h3>[^\n]*posted-mark', console.html("/day"))
    console.form("/announcements/999999", {}, page="/day")
    assert "没有这条公示" in flashes(console.html("/day"))
