"""Whole games run from the console alone, in Debian's Chromium: an M72 game and an M08 game
from the new-game form to the end, the posts arriving through the JSON API as a forum sends
them. On the way: a wrong card taken back (撤销判罚, its two steps), a red card through its
confirmation, a 判负 previewed and cancelled, a night action corrected before the night is
resolved, every 公示 item copied (the clipboard holds exactly its text) and marked 已发布; and
axe-core on every page state the director passes (critical and serious: none), then every page
of the finished game at 1440 px and at 390 px, the 404 and error pages, login and new game."""

from __future__ import annotations

from typing import Any

import pytest

from tests.console.browser_director import Director, api
from tests.console.test_browser import chromium, page, server  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("console-browser")]

M72_NAMES = ["微信", "支付宝", "淘宝", "抖音", "微博", "知乎", "百度", "美团", "滴滴", "高德",
             "网易云", "哔哩哔哩"]  # fmt: skip
M08_NAMES = ["穗乃果", "绘里", "小鸟", "海未", "凛", "真姬", "希", "花阳", "妮可", "千歌", "梨子"]

#: every page of a game, for the final sweep (the path, the state's name)
PAGES = [
    ("/queue", "审核队列"),
    ("/queue?status=all", "审核队列（全部）"),
    ("/posts", "全部帖子"),
    ("/players", "角色与牌"),
    ("/day", "日夜与公示"),
    ("/timeline", "时间线"),
    ("/deal", "身份分配"),
    ("/audit", "审计记录"),
    ("/registry", "玩家档案"),
    ("/verify", "验证随机安排"),
    ("/forum/import", "论坛导入"),
    ("/no-such-page", "404"),
]


def chat(names: list[str], day: int) -> list[tuple[str, str, str]]:
    """A day's ordinary discussion posts, one per character."""
    return [(c, "discussion", f"第{day}天我觉得{names[(i + 1) % len(names)]}发言有问题，先听听")
            for i, c in enumerate(names)]  # fmt: skip


def wrong_card_taken_back(d: Director, day: int, author: str) -> None:
    """A post that is no violation ruled 黄牌 by mistake, then revoked on 角色与牌 in two steps."""
    d.forum_posts(day, [(author, "discussion", "我发誓我是好人")])
    sid = next(
        s["id"]
        for s in api(d.base, "GET", f"/api/games/{d.game_id}/suggestions?status=pending", d.token)[
            "suggestions"
        ]
        if s["character"] == author
    )
    d.go("/queue", "审核队列（有待审）")
    d.rule(sid, "yellow")
    assert f"#{sid} 已判黄牌" in d.flash()
    d.go("/players#revoke", "角色与牌（撤销前）")
    row = d.page.locator("#revoke tr", has_text=author).filter(has_text="黄牌").first
    d.submit(row.get_by_role("link", name="撤销…"))
    assert f"撤销判罚：{author}的黄牌" in d.page.locator("#revoke-confirm h1").inner_text()
    d.axe("撤销判罚确认")
    d.page.fill("#revoke-form textarea[name=reason]", "看错了：这句没有违规")
    d.submit(d.page.get_by_role("button", name="确认撤销"))
    assert f"{author}的黄牌撤销" in d.flash()
    ledgers = api(d.base, "GET", f"/api/games/{d.game_id}/cards", d.token)["players"]
    ledger = next(p for p in ledgers if p["character"] == author)
    assert [c["revoked"] is not None for c in ledger["cards"]] == [True], ledger
    assert ledger["active"].get("yellow", 0) == 0, ledger


def red_card_confirmed(d: Director, day: int, author: str) -> None:
    """An insult ruled 红牌: the confirmation page first (nothing stored), then 确认; the red
    card's 公示 comes first and alone among the items."""
    d.forum_posts(day, [(author, "discussion", "曹尼玛")])
    suggestions = api(d.base, "GET", f"/api/games/{d.game_id}/suggestions?status=pending", d.token)
    sid = next(s["id"] for s in suggestions["suggestions"] if s["character"] == author)
    d.rule(sid, "red")
    assert "确认红牌" in d.page.locator("#confirm-red").inner_text()
    d.axe("红牌确认")
    assert author in d.living()  # nothing yet
    d.submit(d.page.locator("#confirm-red-submit"))
    assert f"公示：{author}被红牌罚下" in d.flash("red")
    d.go("/day#announcements")
    first = d.page.locator("#announcements .ann").first
    assert "ann-red" in (first.get_attribute("class") or "")
    assert first.locator("textarea").input_value() == f"{author}被红牌罚下"


def forfeit_previewed_and_cancelled(d: Director) -> None:
    """判负 asks first and shows what would happen; 取消 leaves the game as it was."""
    d.go("/players#forfeit")
    d.page.select_option("#forfeit-faction", "wolves")
    d.page.fill("#forfeit-reason", "测试：只看后果")
    d.submit(d.page.locator("#forfeit-submit"))
    assert "狼人阵营判负" in d.page.locator("#confirm-lines").inner_text()
    d.axe("判负确认")
    d.submit(d.page.locator("#confirm-verdict-cancel"))
    assert d.view()["director"]["outcome"]["results"]["wolves"] == "undecided"


def correct_first_entry(d: Director) -> None:
    """Correct tonight's first entry that has another target to take; the page shows it."""
    rows = d.page.locator("#tonight li.chosen-row:has(form.correct-form)")
    assert rows.count(), d.page.locator("main").inner_text()
    for entry in rows.all():
        before = entry.locator(".what").inner_text()
        select = entry.locator("select[name=target]")
        options = select.locator("option").evaluate_all("os => os.map(o => o.value)")
        others = [o for o in options if o != "__pick__" and f"→ {o}" not in before]
        if others:
            break
    else:
        raise AssertionError("no entry may take another target")
    new = others[-1]
    select.select_option(value=new)
    d.submit(entry.get_by_role("button", name="更正"))
    assert "已更正" in d.flash()
    assert any(
        f"→ {new}" in t for t in d.page.locator("#tonight li.chosen-row .what").all_inner_texts()
    )


def sweep(d: Director) -> None:
    """axe-core on every page at 1440 px and 390 px (no page wider than the viewport)."""
    for width, height in ((1440, 900), (390, 844)):
        d.page.set_viewport_size({"width": width, "height": height})
        for path, state in PAGES:
            d.go(path, state)
            wide = d.page.evaluate(
                """w => [...document.querySelectorAll('body *')]
                    .filter(e => e.getBoundingClientRect().right > w + 1)
                    .filter(e => !e.closest('.scroll-x, .table-wrap, nav'))
                    .slice(0, 5).map(e => e.tagName + '.' + e.className + '#' + e.id)""",
                width,
            )
            scroll = d.page.evaluate("document.documentElement.scrollWidth")
            assert scroll <= width + 1, (path, wide)
        d.go("/registry")
        d.submit(d.page.locator("table.registry-seats a").first)
        d.axe("玩家档案（玩家）")
        # An error page: a form sent without its CSRF token.
        d.go("/players")
        d.page.evaluate("document.querySelector('#card-form input[name=csrf_token]').remove()")
        d.page.fill("#card-form input[name=reason]", "x")
        d.submit(d.page.locator("#card-form button[type=submit]"))
        assert "400" in d.page.title() or d.page.locator(".error-message, h1").count()
        d.axe("错误页（缺少CSRF）")
        d.page.context.clear_cookies()
        d.go("/login", "登录")
        d.go("/new", "新建游戏")
        d.go("/login")
        d.page.fill("#token", d.token)
        d.submit(d.page.locator("#login-submit"))
    d.page.set_viewport_size({"width": 1280, "height": 900})


def test_m72_whole_game_from_the_console(server: str, page: Any) -> None:  # noqa: F811
    d = Director(page, server)
    d.create("m72", M72_NAMES, "whole-m72")
    wolf, cub = d.with_role("狼人")[0], d.with_role("幼狼")[0]
    madman, fox = d.with_role("狂人")[0], d.with_role("狐狸")[0]
    seer = d.with_role("占卜师")[0]
    wolves = {wolf, cub}
    innocent = next(c for c in M72_NAMES if d.roles[c] == "村民")

    def prefer(actor: str, skill: str, options: list[str]) -> str | None:
        if actor == seer and fox in options:
            return fox  # 占卜 the fox: it dies (呪杀)
        pool = [o for o in options if (o in wolves) != (actor in wolves) and o != actor]
        if actor in wolves:  # the wolves spare the seer and the fox, so the fox dies by 占卜
            pool = [o for o in pool if o not in (seer, fox)]
        return pool[0] if pool else None

    # Day 1 (警长竞选): the 关门 time, chat, a wrong card taken back, a confirmed red card.
    d.go("/day", "日夜与公示（第1天）")
    d.page.fill("#closes-at-input", "2026-11-10T23:00")
    d.submit(d.page.locator("#schedule-submit"))
    assert "关门时间：2026-11-10 23:00" in d.flash()
    d.forum_posts(1, chat(M72_NAMES, 1))
    wrong_card_taken_back(d, 1, innocent)
    red_card_confirmed(d, 1, madman)
    forfeit_previewed_and_cancelled(d)
    d.go("/posts", "全部帖子（第1天）")
    sheriff = innocent
    d.votes(1, sheriff)
    d.go("/day", "日夜与公示（计票）")
    d.close_day()
    assert d.view()["sheriff"] == sheriff

    for day in range(1, 6):
        # Night: every skill entered in the page; the first entry corrected.
        d.go("/day", f"第{day}天夜晚")
        entered = d.act(prefer)
        assert entered, d.page.locator("main").inner_text()
        if day == 1:
            correct_first_entry(d)
            d.axe("夜晚（已更正）")
            d.page.set_viewport_size({"width": 390, "height": 844})
            d.go("/day", "夜晚 390px")
            d.page.set_viewport_size({"width": 1280, "height": 900})
        d.close_night()
        if d.ended():
            break
        d.go("/day", f"第{day + 1}天白天")
        assert d.copy_announcements() >= 1
        d.act(prefer)  # decisions the day may ask for (none expected, but never skipped)
        if day == 1:
            assert fox not in d.living()  # the seer's 占卜 killed the fox
        d.forum_posts(day + 1, chat(d.living(), day + 1))
        target = wolf if wolf in d.living() else cub
        d.votes(day + 1, target)
        d.close_day()
        assert target not in d.living()
        if d.ended():
            break
    outcome = d.view()["director"]["outcome"]
    assert outcome["ended"] and outcome["winner"] == "villagers", outcome
    d.go("/day", "游戏结束后的日夜页")
    assert d.copy_announcements() >= 1  # the last day's items too
    assert d.page.locator("#close-day, #close-night, #night-actions form").count() == 0

    # The finished game: the red-carded player appeals with the player token (the API), the
    # director rules on it; a token reissued (shown once); the audit; then every page.
    ledgers = api(d.base, "GET", f"/api/games/{d.game_id}/cards", d.token)["players"]
    red = next(
        c
        for p in ledgers
        if p["character"] == madman
        for c in p["cards"]
        if c["colour"] == "red" and c["source"] != "escalation"
    )
    api(d.base, "POST", f"/api/games/{d.game_id}/cards/{red['id']}/appeal",
        d.player_tokens[madman], {"text": "我只是在引用别人的话"})  # fmt: skip
    d.go("/players#appeals", "赛后申诉（待裁决）")
    appeal = d.page.locator("#appeals .appeal", has_text="我只是在引用别人的话")
    appeal.locator("input[name=note]").fill("原文确有辱骂")
    d.submit(appeal.get_by_role("button", name="维持原判"))
    assert "已裁决申诉：维持原判" in d.flash(), d.flash()
    assert "裁决：" in d.page.locator("#appeals").inner_text()
    d.axe("赛后申诉（已裁决）")

    d.go("/players#tokens")
    d.submit(d.page.locator("#tokens").get_by_role("button", name="重发令牌").first)
    d.axe("重发令牌（新令牌）")
    d.go("/audit", "审计记录")
    assert d.page.locator("text=撤销牌").count() >= 1
    assert d.errors == [] and d.dialogs == [], (d.errors, d.dialogs)
    sweep(d)
    # the sweep's own 404 and 400 pages are the only resources that failed to load
    assert {e for e in d.errors} <= {
        "Failed to load resource: the server responded with a status of 404 (NOT FOUND)",
        "Failed to load resource: the server responded with a status of 400 (BAD REQUEST)",
    }, d.errors
    assert d.dialogs == []
    assert len(d.checked) >= 50, d.checked


#: M08's optional 决战 (a plan that can end the game at once) is not proposed in this game
NO_DUEL = frozenset({"duel"})


def test_m08_whole_game_from_the_console(server: str, page: Any) -> None:  # noqa: F811
    d = Director(page, server)
    d.create("m08", M08_NAMES, "whole-m08")
    wolves = set(d.with_role("狼人"))
    villager = d.with_role("村民")[0]
    target_order = sorted(wolves, key=M08_NAMES.index)

    def prefer(actor: str, skill: str, options: list[str]) -> str | None:
        pool = [o for o in options if (o in wolves) != (actor in wolves) and o != actor]
        if actor in wolves and skill == "leader_vote":
            pool = [o for o in options if o in wolves]
        return pool[0] if pool else None

    # Day 1 (警长竞选): chat, a wrong card taken back, a wolf red-carded through the confirmation.
    d.forum_posts(1, chat(M08_NAMES, 1))
    wrong_card_taken_back(d, 1, villager)
    red_card_confirmed(d, 1, target_order[0])
    d.votes(1, villager)
    d.close_day()
    assert d.view()["sheriff"] == villager

    for day in range(1, 7):
        d.go("/day", f"第{day}天夜晚")
        entered = d.act(prefer, NO_DUEL)
        assert entered, d.page.locator("main").inner_text()
        if day == 1:
            correct_first_entry(d)
            d.axe("夜晚（已更正）")
            notices = d.page.locator("#notices .notice")
            for i in range(notices.count()):
                box = notices.nth(i)
                text = box.locator("textarea").input_value()
                box.locator("button.copy").click()
                assert d.page.evaluate("navigator.clipboard.readText()") == text
        d.act(prefer, NO_DUEL)  # what the correction may have opened (the witch's 救药)
        d.close_night()
        if d.ended():
            break
        d.go("/day", f"第{day + 1}天白天")
        d.act(prefer, NO_DUEL)  # e.g. a hunter's shot when the night took him
        assert d.copy_announcements() >= 1
        d.forum_posts(day + 1, chat(d.living(), day + 1))
        living_wolves = [w for w in target_order if w in d.living()]
        if not living_wolves:
            break
        d.votes(day + 1, living_wolves[0])
        d.close_day()
        if d.ended():
            break
    outcome = d.view()["director"]["outcome"]
    assert outcome["ended"], outcome
    d.go("/day", "游戏结束后的日夜页")
    d.copy_announcements()
    assert d.page.locator("#close-day, #close-night, #night-actions form").count() == 0
    d.go("/timeline", "时间线（结束）")
    assert d.errors == [] and d.dialogs == [], (d.errors, d.dialogs)
