"""The console in Debian's Chromium (headless, driven by Playwright; no browser download).

A live server runs the real app in a thread on a temporary SQLite file. The director creates an
M72 game in the page, logs out and back in with the token, posts arrive through the JSON API,
suggestions are decided with the keyboard and the mouse, a red card ejects a character and the
ejection shows in the announcements; a hostile post stays inert text (in the queue and in the
posts list); a 替补 is entered on the players page. An M08 night is entered in the page: the
指杀理由 input, the 决战 plan selects and the 同意/不同意 buttons.
"""

from __future__ import annotations

import json
import shutil
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("console-browser")]

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PLAYERS = ["微信", "支付宝", "淘宝", "抖音", "微博", "知乎", "百度", "美团", "滴滴", "高德",
           "网易云", "哔哩哔哩"]  # fmt: skip
HOSTILE = (
    "傻逼<script>alert('xss')</script>[url=javascript:alert(1)]x[/url]"
    '<img src=x onerror="alert(2)">'
)


@pytest.fixture(scope="module")
def chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        pytest.skip("Debian's chromium is not installed (make browser-deps); browser test skipped")
    pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")
    return path


@pytest.fixture
def server(chromium: str, tmp_path: Path, template_db: Path) -> Iterator[str]:
    from api import create_app
    from api.console.liveserver import LiveServer

    db = tmp_path / "browser.sqlite3"
    shutil.copy(template_db, db)
    app = create_app(
        {
            "DATABASE_URL": f"sqlite:///{db}",
            "SECRET_KEY": "browser-test",
            "USE_CLASSIFIER": False,
            "RATE_LIMIT_POSTS": (100_000, 60),
            "RATE_LIMIT_GAMES": (100_000, 60),
            "RATE_LIMIT_WRITES": (100_000, 60),
        }
    )
    with LiveServer(app) as live:
        yield live.url
    app.extensions["bansha_db"].dispose()


@pytest.fixture
def page(chromium: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        # generous: the live server loads the lexicons on its first screened post, and CI runs
        # two test workers on two cores
        page.set_default_timeout(30_000)
        yield page
        context.close()
        browser.close()


def api_post(base: str, path: str, token: str, body: Any) -> Any:
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body, ensure_ascii=False).encode("utf-8"),
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read().decode("utf-8"))


def post(base: str, game_id: str, token: str, fid: str, author: str, body: str) -> Any:
    item = {
        "forum_post_id": fid,
        "author": author,
        "thread": "discussion",
        "day": 1,
        "body": body,
        "posted_at": "2026-11-29T20:00:00+08:00",
    }
    return api_post(base, f"/api/games/{game_id}/posts", token, item)


def test_m72_red_card_and_inert_hostile_post(server: str, page: Any) -> None:
    from playwright.sync_api import expect

    dialogs: list[str] = []
    errors: list[str] = []

    def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    # Create an M72 game in the page.
    page.goto(server + "/new")
    page.check("input[name=ruleset][value=m72]")
    page.fill("#players", "\n".join(PLAYERS))
    page.fill("#seed", "browser-seed")
    with page.expect_navigation():
        page.click("#create")
    token = page.input_value("#director-token")
    game_id = page.locator("h1 .muted").inner_text().lstrip("#").strip()
    expect(page.locator("table.deal tbody tr")).to_have_count(12)
    assert token not in page.url

    # Log out, then log in with the director token.
    with page.expect_navigation():
        page.click("#logout")
    page.goto(server + "/login")
    page.fill("#token", token)
    with page.expect_navigation():
        page.click("#login-submit")
    assert page.url.endswith("/queue") and token not in page.url

    # Posts arrive through the JSON API, as a forum bot sends them.
    first = post(server, game_id, token, "b1", "支付宝", "曹尼玛，谁投我我跟谁急")
    hostile = post(server, game_id, token, "b2", "抖音", HOSTILE)
    third = post(server, game_id, token, "b3", "淘宝", "我发誓我是村民")
    sids = [r["suggestion"]["id"] for r in (first, hostile, third)]
    page.goto(server + "/queue")
    expect(page.locator("article.item")).to_have_count(3)

    # The hostile post is shown literally and nothing in it runs.
    body = page.locator(f"#s-{sids[1]} .post")
    expect(body).to_have_text(HOSTILE)
    expect(body.locator("mark")).to_have_text("傻逼")
    assert page.locator("#queue script, #queue img, a[href^='javascript']").count() == 0
    expect(page.locator(f"#s-{sids[0]} .how").first).to_have_text("“曹尼玛” → 音近 操你妈")

    # Keyboard: j/k move the selection; Enter confirms the suggested colour (blue).
    expect(page.locator(f"#s-{sids[0]}")).to_have_class("item colour-blue current")
    page.keyboard.press("j")
    page.keyboard.press("j")
    expect(page.locator(f"#s-{sids[2]}")).to_have_class("item colour-blue current")
    page.keyboard.press("k")
    page.keyboard.press("k")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page.locator(".flash-ok")).to_contain_text(f"#{sids[0]} 已判蓝牌")
    expect(page.locator("article.item")).to_have_count(2)

    # A note, then a direct red card with the mouse: 抖音 is ejected and it is announced.
    page.fill(f"#s-{sids[1]} .note-input", "恶意贴代码")
    with page.expect_navigation():
        page.click(f"#s-{sids[1]} button[value=red]")
    expect(page.locator("#confirm-warning")).to_have_text("判红牌：红牌将罚下 抖音")
    with page.expect_navigation():
        page.click("#confirm-red-submit")
    expect(page.locator(".flash-red").first).to_have_text("公示：抖音被红牌罚下")
    page.goto(server + "/day")
    # the red card's 公示 is an item of its own, first (posted at once and alone)
    expect(page.locator("#announcements .ann").first.locator("textarea")).to_have_value(
        "抖音被红牌罚下"
    )

    # Press "g" on the last one: dismissed (green).
    page.goto(server + "/queue")
    with page.expect_navigation():
        page.keyboard.press("g")
    expect(page.locator(".flash-ok")).to_contain_text("已驳回")
    page.goto(server + "/queue?status=all")
    expect(page.locator(f"#s-{sids[1]} .decided-line")).to_contain_text("红牌")
    expect(page.locator(f"#s-{sids[1]} .note")).to_have_text("备注：恶意贴代码")

    # The ejection reaches the game: M72 applies it after the day's vote.
    page.goto(server + "/day")
    with page.expect_navigation():
        page.click("#close-day")
    with page.expect_navigation():
        page.click("#confirm-close")
    page.goto(server + "/players")
    row = page.locator("table.players tbody tr", has_text="抖音")
    expect(row).to_contain_text("出局")
    expect(row).to_contain_text("红牌罚下")

    # The posts list: the hostile post is inert there too, and links to its ruling.
    page.goto(server + "/posts")
    expect(page.locator("#posts article.item")).to_have_count(3)
    page.select_option("#post-filters select[name=character]", "抖音")
    with page.expect_navigation():
        page.click("#post-filters-submit")
    expect(page.locator("#posts article.item")).to_have_count(1)
    expect(page.locator("#posts .post")).to_have_text(HOSTILE)
    assert page.locator("#posts script, #posts img, #posts a[href^='javascript']").count() == 0
    with page.expect_navigation():
        page.click("#posts .suggest-link")
    assert page.url.endswith(f"/queue?status=decided&character=%E6%8A%96%E9%9F%B3#s-{sids[1]}")
    expect(page.locator(f"#s-{sids[1]}")).to_be_visible()

    # 替补 through the players page's form.
    page.goto(server + "/players")
    page.select_option("#substitute-form select[name=character]", "百度")
    page.fill("#substitute-form input[name=player]", "新玩家")
    with page.expect_navigation():
        page.click("#substitute-submit")
    expect(page.locator(".flash-ok")).to_have_text("已更换替补：新玩家 接替 百度（百度）")

    assert dialogs == [], dialogs
    assert errors == [], errors  # no CSP violation, no script error


def test_m08_night_form_reason_plan_and_choice(server: str, page: Any) -> None:
    """The night-action rows' extra inputs in the browser: the 指杀理由 is required and sent,
    the three 决战 selects send the plan in order, 同意/不同意 buttons send their choice."""
    from playwright.sync_api import expect

    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    names = ["穗乃果", "绘里", "小鸟", "海未", "凛", "真姬", "希", "花阳", "妮可", "千歌", "梨子"]
    roles = dict(zip(names, ["wolf"] * 4 + ["villager"] * 4 + ["seer", "witch", "hunter"],
                     strict=True))  # fmt: skip
    game = api_post(server, "/api/games", "-", {"ruleset": "m08", "players": names,
                                                "roles": roles, "seed": "browser-m08"})  # fmt: skip
    token, actions = game["director_token"], f"/api/games/{game['id']}/actions"
    page.goto(server + "/login")
    page.fill("#token", token)
    with page.expect_navigation():
        page.click("#login-submit")
    page.goto(server + "/day")
    page.check("#close-day-form input[name=accelerated]")
    with page.expect_navigation():
        page.click("#close-day")
    with page.expect_navigation():
        page.click("#confirm-close")
    for wolf in names[:4]:
        body = {"type": "skill", "actor": wolf, "skill": "leader_vote", "target": "穗乃果"}
        api_post(server, actions, token, body)
    page.goto(server + "/day")

    def row(actor: str, skill: str) -> Any:
        return page.locator(f"form.skill-{skill}:has(input[name=actor][value='{actor}'])")

    proposal = row("绘里", "propose")
    proposal.locator("select[name=target]").select_option("凛")
    proposal.locator("button[type=submit]").click()  # empty reason: the browser holds it back
    assert proposal.locator("input[name=reason]").evaluate("e => e.validity.valueMissing")
    proposal.locator("input[name=reason]").fill("冲锋")
    with page.expect_navigation():
        proposal.locator("button[type=submit]").click()
    expect(page.locator(".flash-ok")).to_have_text("已记录：绘里的行动")

    duel = row("穗乃果", "duel")
    for select, name in zip(duel.locator("select[name=plan]").all(), ("梨子", "凛", "希"),
                            strict=True):  # fmt: skip
        select.select_option(name)
    with page.expect_navigation():
        duel.locator("button[type=submit]").click()
    with page.expect_navigation():
        row("绘里", "duel_agree").get_by_role("button", name="不同意", exact=True).click()
    chosen = page.locator("#tonight ul.chosen")
    expect(chosen).to_contain_text("绘里 <提交指杀> → 凛（冲锋）")
    expect(chosen).to_contain_text("穗乃果 <决战> → 梨子、凛、希")
    expect(chosen).to_contain_text("绘里 <同意决战> → 不同意")
    assert errors == [], errors


AXE = (
    Path(__file__).resolve().parents[2] / "var" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
)


def axe_violations(page: Any) -> list[str]:
    """axe-core's critical and serious violations on the page as it is now (injected from
    var/axe, installed by ``make axe-deps`` from the npm registry)."""
    if not AXE.exists():
        pytest.skip("axe-core is not installed (make axe-deps)")
    # through the DevTools protocol: the console's CSP (script-src 'self') rightly refuses an
    # injected <script>, and the test must not loosen it
    cdp = page.context.new_cdp_session(page)
    cdp.send("Runtime.evaluate", {"expression": AXE.read_text(encoding="utf-8")})
    cdp.detach()
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): {len(v['nodes'])}× {v['nodes'][0]['target']}"
        for v in result["violations"]
        if v["impact"] in ("critical", "serious")
    ]


def login(page: Any, server: str, token: str) -> None:
    page.goto(server + "/login")
    page.fill("#token", token)
    with page.expect_navigation():
        page.click("#login-submit")


def statuses(server: str, game: dict[str, Any]) -> dict[int, str | None]:
    """Each suggestion's decided colour (None while pending), from the API."""
    request = urllib.request.Request(
        server + f"/api/games/{game['id']}/suggestions?status=all",
        headers={"Authorization": f"Bearer {game['director_token']}"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        data = json.loads(response.read().decode("utf-8"))
    out: dict[int, str | None] = {}
    for s in data["suggestions"]:
        decision = s.get("decision") or {}
        out[s["id"]] = decision.get("colour") if s["status"] == "decided" else None
    return out


def test_keys_act_on_the_focused_control_and_shortcuts_on_the_current_item(
    server: str, page: Any
) -> None:
    """Enter and Space on every control of a queue item rule that item with that control's
    colour (a red asks for the confirmation step and rules nothing); shortcuts rule the current
    item only while no control has focus; a shortcut pressed on a focused button does nothing."""
    from playwright.sync_api import expect

    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    game = api_post(server, "/api/games", "-", {"ruleset": "m72", "players": PLAYERS,
                                                "seed": "keys"})  # fmt: skip
    token = game["director_token"]
    sids = [post(server, game["id"], token, f"k{i}", name, "曹尼玛")["suggestion"]["id"]
            for i, name in enumerate(PLAYERS)]  # fmt: skip
    login(page, server, token)
    expected: dict[int, str | None] = dict.fromkeys(sids)

    def check() -> None:
        assert statuses(server, game) == expected

    # Enter / Space on each button of an item that is not the current one.
    free = iter(sids[1:])
    for colour in ("blue", "yellow", "green", "red"):
        for key in ("Enter", " "):
            page.goto(server + "/queue")
            sid = next(free) if colour != "red" else sids[-1]
            button = page.locator(f"#s-{sid} button[value={colour}]")
            button.focus()
            with page.expect_navigation():
                page.keyboard.press("Space" if key == " " else key)
            if colour == "red":
                expect(page.locator("#confirm-warning")).to_contain_text(PLAYERS[sids.index(sid)])
            else:
                expected[sid] = colour
            check()
    # Enter in an item's note rules that item with its suggestion.
    page.goto(server + "/queue")
    sid = next(free)
    page.fill(f"#s-{sid} .note-input", "备注")
    with page.expect_navigation():
        page.press(f"#s-{sid} .note-input", "Enter")
    expected[sid] = "blue"
    check()
    # A shortcut with a button focused does nothing (the focused control is not the item).
    page.goto(server + "/queue")
    page.locator(f"#s-{sids[-1]} button[value=green]").focus()
    for key in ("b", "y", "r", "g"):
        page.keyboard.press(key)
    page.wait_for_timeout(300)
    assert page.url.endswith("/queue")
    check()
    # Shortcuts with nothing focused rule the current item (the first pending one).
    for key, colour in (("b", "blue"), ("y", "yellow"), ("g", "green"), ("Enter", "blue")):
        page.goto(server + "/queue")
        current = int(page.locator("#queue .item.current").get_attribute("data-sid"))
        with page.expect_navigation():
            page.keyboard.press(key)
        expected[current] = colour
        check()
    page.goto(server + "/queue")
    current = int(page.locator("#queue .item.current").get_attribute("data-sid"))
    with page.expect_navigation():
        page.keyboard.press("r")
    expect(page.locator("#confirm-red")).to_be_visible()
    assert axe_violations(page) == []
    check()
    assert errors == [], errors


def test_escalation_to_red_asks_first_and_pages_pass_axe_at_both_widths(
    server: str, page: Any
) -> None:
    """Two yellows and a yellow suggestion: the button says it escalates, pressing it asks for
    the second step; queue, posts (searched) and confirmation pages have no critical or serious
    axe violation at 1440 px and 390 px, nothing overflows sideways at 390 px, and a long URL in
    a finding stays clear of the ruling column."""
    from playwright.sync_api import expect

    game = api_post(server, "/api/games", "-", {"ruleset": "m72", "players": PLAYERS,
                                                "seed": "esc"})  # fmt: skip
    token = game["director_token"]
    login(page, server, token)
    for i in range(2):
        sid = post(server, game["id"], token, f"e{i}", "淘宝", "我发誓我是好人")["suggestion"]["id"]
        page.goto(server + "/queue")
        with page.expect_navigation():
            page.click(f"#s-{sid} button[value=yellow]")
    third = post(server, game["id"], token, "e3", "淘宝", "我发誓")["suggestion"]["id"]
    url = "看这个 http://example.com/" + "a" * 120 + " \u202e反向文字"
    post(server, game["id"], token, "e4", "知乎", url)
    page.goto(server + "/queue")
    expect(page.locator(f"#s-{third} .warn")).to_contain_text("黄牌：将升级为红牌并罚下 淘宝")
    long_item = page.locator("#queue .item", has_text="example.com")
    how = long_item.locator(".findings").bounding_box()
    ruling = long_item.locator(".ruling").bounding_box()
    assert how["x"] + how["width"] <= ruling["x"] + 1, (how, ruling)
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        for path in ("/queue", "/queue?q=%E5%8F%91%E8%AA%93", "/posts", "/posts?q=example"):
            page.goto(server + path)
            assert axe_violations(page) == [], (width, path)
            if width == 390:
                overflow = page.evaluate("document.documentElement.scrollWidth")
                assert overflow <= 390, (path, overflow)
                assert page.locator("header.top").bounding_box()["height"] < 120
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(server + "/queue")
    with page.expect_navigation():
        page.click(f"#s-{third} button[value=yellow]")
    expect(page.locator("#confirm-warning")).to_have_text("判黄牌：将升级为红牌并罚下 淘宝")
    assert axe_violations(page) == []
    assert statuses(server, game)[third] is None
    with page.expect_navigation():
        page.click("#confirm-red-submit")
    assert statuses(server, game)[third] == "yellow"
    expect(page.locator(".flash-red").first).to_have_text("公示：淘宝被红牌罚下")
