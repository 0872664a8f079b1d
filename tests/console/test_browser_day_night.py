"""A whole M08 night and day run from the console in Debian's Chromium: a night action entered
and corrected, the private notices with their copy buttons, the close confirmed in the page's
second step, a 公示 item copied and marked 已发布; axe-core finds no critical or serious
violation on the 日夜 page's states, at 1280 px and at 390 px (where the night forms fit)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.console.browser_director import axe_violations
from tests.console.test_browser import api_post, chromium, page, server  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("console-browser")]

NAMES = ["穗乃果", "绘里", "小鸟", "海未", "凛", "真姬", "希", "花阳", "妮可", "千歌", "梨子"]
ROLES = dict(zip(NAMES, ["wolf"] * 4 + ["villager"] * 4 + ["seer", "witch", "hunter"],
                 strict=True))  # fmt: skip


def fits(tab: Any, selector: str) -> bool:
    """Whether every element matching ``selector`` lies within the viewport's width."""
    return bool(
        tab.evaluate(
            """s => [...document.querySelectorAll(s)].every(
                   e => e.getBoundingClientRect().right <= window.innerWidth + 1)""",
            selector,
        )
    )


def test_m08_night_and_day_from_the_console(server: str, page: Any) -> None:  # noqa: F811
    from playwright.sync_api import expect

    errors: list[str] = []
    dialogs: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    body = {"ruleset": "m08", "players": NAMES, "roles": ROLES, "seed": "browser-daynight"}
    game = api_post(server, "/api/games", "-", body)
    token, actions = game["director_token"], f"/api/games/{game['id']}/actions"
    page.goto(server + "/login")
    page.fill("#token", token)
    with page.expect_navigation():
        page.click("#login-submit")

    # Day 1: the close asks first, and says what will happen.
    page.goto(server + "/day")
    assert axe_violations(page) == []
    page.check("#close-day-form input[name=accelerated]")
    with page.expect_navigation():
        page.click("#close-day")
    expect(page.locator("#confirm")).to_contain_text("确认关门：将会发生")
    assert axe_violations(page) == []
    with page.expect_navigation():
        page.click("#confirm-close")
    for wolf in NAMES[:4]:
        vote = {"type": "skill", "actor": wolf, "skill": "leader_vote", "target": "穗乃果"}
        api_post(server, actions, token, vote)
    page.goto(server + "/day")

    def row(skill: str, actor: str) -> Any:
        return page.locator(f"form.skill-{skill}:has(input[name=actor][value='{actor}'])")

    # The witch's 救药 waits for the kill; targets start at 「请选择」.
    expect(page.locator("form.skill-save")).to_have_count(0)
    poison = row("poison", "千歌").locator("select[name=target]")
    expect(poison).to_have_value("__pick__")
    proposal = row("propose", "绘里")
    proposal.locator("select[name=target]").select_option("凛")
    proposal.locator("input[name=reason]").fill("冲锋")
    with page.expect_navigation():
        proposal.locator("button[type=submit]").click()
    proposal = row("propose", "小鸟")
    proposal.locator("select[name=target]").select_option("希")
    proposal.locator("input[name=reason]").fill("划水")
    with page.expect_navigation():
        proposal.locator("button[type=submit]").click()
    kill = row("kill", "穗乃果")
    kill.locator("select[name=target]").select_option("凛")
    with page.expect_navigation():
        kill.locator("button[type=submit]").click()

    # The witch is told whom the wolves chose, with a copy button; now 救药 is offered.
    notice = page.locator("#notices .notice", has_text="通灵：今晚被指杀的角色是凛")
    expect(notice).to_have_count(1)
    notice.locator("button.copy").click()
    assert page.evaluate("navigator.clipboard.readText()") == "通灵：今晚被指杀的角色是凛"
    expect(page.locator("form.skill-save")).to_have_count(1)

    # Correct the kill before the night is resolved.
    entry = page.locator("#tonight li.chosen-row.skill-kill")
    expect(entry).to_contain_text("穗乃果 <杀人> → 凛（冲锋）")
    entry.locator("select[name=target]").select_option("希")
    with page.expect_navigation():
        entry.get_by_role("button", name="更正").click()
    expect(page.locator(".flash-ok")).to_have_text("已更正：穗乃果的行动")
    expect(page.locator("#tonight li.chosen-row.skill-kill")).to_contain_text("→ 希（划水）")
    expect(page.locator("#notices")).to_contain_text("通灵：今晚被指杀的角色是希")
    expect(page.locator("#notices")).not_to_contain_text("被指杀的角色是凛")

    seer = row("divine", "妮可")
    seer.locator("select[name=target]").select_option("海未")
    with page.expect_navigation():
        seer.locator("button[type=submit]").click()

    # At 390 px the night forms fit and nothing fails axe.
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    assert fits(page, "#night-actions form, #tonight form, #notices textarea")
    assert axe_violations(page) == []
    page.set_viewport_size({"width": 1280, "height": 900})

    # Close the night: the confirmation names who goes out.
    with page.expect_navigation():
        page.click("#close-night")
    expect(page.locator("#confirm")).to_contain_text("希出局")
    with page.expect_navigation():
        page.click("#confirm-close")
    expect(page.locator("#notices")).to_contain_text("预言结果：海未<非村民阵营>")

    # Day 2: the opening 公示 is an item: copy it, mark it 已发布, and the mark stays.
    item = page.locator("#announcements .ann").first
    expect(item).to_contain_text("夜晚出局角色：希")
    item.locator("button.copy").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert "夜晚出局角色：希" in copied
    item_id = item.get_attribute("id")
    with page.expect_navigation():
        item.get_by_role("button", name="标记已发布").click()
    page.reload()
    expect(page.locator(f"#{item_id} .posted-mark")).to_have_text("已发布")
    assert axe_violations(page) == []
    assert errors == [] and dialogs == [], (errors, dialogs)
