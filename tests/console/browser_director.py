"""A director in Chromium, for the whole-game browser tests: the console's pages clicked as a
person would, posts sent through the JSON API as a forum bot sends them, and axe-core run on
every page state the director passes through (no critical or serious violation)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

AXE = Path(__file__).resolve().parents[2] / "var/axe/node_modules/axe-core/axe.min.js"


def api(base: str, method: str, path: str, token: str | None = None, body: Any = None) -> Any:
    """One JSON API call (the way a forum bot talks to the service)."""
    data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read().decode("utf-8"))


def axe_violations(tab: Any) -> list[str]:
    """Critical and serious axe-core violations on the page as it is now (evaluated through
    the DevTools protocol, which the page's CSP does not govern)."""
    if not AXE.exists():
        pytest.skip("axe-core is not installed (make axe-deps)")
    if not tab.evaluate("() => typeof window.axe !== 'undefined'"):
        tab.evaluate(AXE.read_text(encoding="utf-8"))
    found = tab.evaluate(
        """async () => {
            const r = await axe.run(document, {resultTypes: ["violations"]});
            return r.violations
                .filter(v => v.impact === "critical" || v.impact === "serious")
                .map(v => v.id + ": " + v.nodes.map(n => n.target.join(" ")).join(", "));
        }"""
    )
    return list(found)


class Director:
    """The director's browser tab on one game, with the forum bot's API calls beside it.

    ``checked`` collects every page state axe-core was run on (its title and width)."""

    def __init__(self, page: Any, base: str) -> None:
        self.page = page
        self.base = base
        self.token = ""
        self.game_id = ""
        self.roles: dict[str, str] = {}
        self.player_tokens: dict[str, str] = {}
        self.checked: list[str] = []
        self._post = 0
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])

    # -- axe ------------------------------------------------------------------------------
    def axe(self, state: str) -> None:
        """No critical or serious axe-core violation on the page as it is now."""
        found = axe_violations(self.page)
        assert found == [], (state, found)
        width = self.page.viewport_size["width"]
        self.checked.append(f"{state} @{width}")

    # -- navigation -------------------------------------------------------------------------
    def go(self, path: str, state: str | None = None) -> None:
        self.page.goto(self.base + path)
        if state:
            self.axe(state)

    def submit(self, locator: Any) -> None:
        """Click a control that submits a form and wait for the answer."""
        with self.page.expect_navigation():
            locator.click()

    def flash(self, kind: str = "ok") -> str:
        return str(self.page.locator(f".flash-{kind}").all_inner_texts())

    def no_error(self) -> None:
        errors = self.page.locator(".flash-error").all_inner_texts()
        assert errors == [], errors

    # -- the game ---------------------------------------------------------------------------
    def create(self, ruleset: str, players: list[str], seed: str) -> None:
        """New game in the page; the deal read from the page (身份分配)."""
        self.go("/new", "新建游戏")
        self.page.check(f"input[name=ruleset][value={ruleset}]")
        self.page.fill("#players", "\n".join(players))
        self.page.fill("#seed", seed)
        self.submit(self.page.locator("#create"))
        self.axe("新游戏的令牌与身份")
        self.token = self.page.input_value("#director-token")
        for tr in self.page.locator("table.tokens tbody tr").all():
            character, token = tr.locator("td").all_inner_texts()
            self.player_tokens[character.strip()] = token.strip()
        self.game_id = self.page.locator("h1 .muted").inner_text().lstrip("#").strip()
        self.go("/deal", "身份分配")
        for tr in self.page.locator("table.deal tbody tr").all():
            cells = tr.locator("td").all_inner_texts()
            self.roles[cells[1].strip()] = cells[3].strip()

    def with_role(self, role: str) -> list[str]:
        return [c for c, r in self.roles.items() if r == role]

    def view(self) -> dict[str, Any]:
        """The director's view through the API (for the test's own checks)."""
        found: dict[str, Any] = api(self.base, "GET", f"/api/games/{self.game_id}/view", self.token)
        return found

    def living(self) -> list[str]:
        return list(self.view()["living"])

    def forum_posts(self, day: int, posts: list[tuple[str, str, str]]) -> None:
        """Posts (author, thread, body) of ``day`` as the forum bot sends them."""
        items = []
        for author, thread, body in posts:
            self._post += 1
            items.append(
                {
                    "forum_post_id": f"t{self._post}",
                    "author": author,
                    "thread": thread,
                    "day": day,
                    "body": body,
                    "posted_at": f"2026-11-{9 + day:02d}T{8 + self._post % 12:02d}:"
                    f"{self._post % 60:02d}:00+08:00",
                }
            )
        api(self.base, "POST", f"/api/games/{self.game_id}/posts", self.token, {"posts": items})

    def votes(self, day: int, target: str) -> None:
        """Every living character votes for ``target`` in the vote thread."""
        self.forum_posts(
            day, [(c, "vote", f"投票对象：{target}\n投票理由：盘了一天") for c in self.living()]
        )

    def rule(self, sid: int, colour: str) -> None:
        """Press a colour on queue item ``sid``."""
        self.go(f"/queue?status=all#s-{sid}")
        self.submit(self.page.locator(f"#s-{sid} button[value={colour}]"))

    def act(
        self,
        prefer: Callable[[str, str, list[str]], str | None],
        skip: frozenset[str] = frozenset(),
        limit: int = 40,
    ) -> list[str]:
        """Enter every offered night skill or required decision in the page but the ``skip``
        skills, the target chosen by ``prefer(actor, skill, options)`` (None: the first
        option); the rows entered."""
        done: list[str] = []
        for _ in range(limit):
            forms = [
                f
                for f in self.page.locator("#night-actions form").all()
                if f.locator("input[name=skill]").get_attribute("value") not in skip
            ]
            if not forms:
                break
            form = forms[0]
            actor = form.locator("input[name=actor]").get_attribute("value") or ""
            skill = form.locator("input[name=skill]").get_attribute("value") or ""
            select = form.locator("select[name=target]")
            if select.count():
                options = [
                    v
                    for v in select.locator("option").evaluate_all("os => os.map(o => o.value)")
                    if v not in ("__pick__", "")
                ]
                chosen = prefer(actor, skill, options) or (options[0] if options else "")
                select.select_option(value=chosen)
            reason = form.locator("input[name=reason]")
            if reason.count():
                reason.fill("刀人")
            plans = form.locator("select[name=plan]").all()
            for i, plan in enumerate(plans):
                values = plan.locator("option").evaluate_all("os => os.map(o => o.value)")
                values = [v for v in values if v]
                plan.select_option(value=values[i % len(values)])
            self.submit(form.locator("button[type=submit]").first)
            self.no_error()
            done.append(f"{actor}<{skill}>")
        return done

    def close_day(self, accelerated: bool = True) -> None:
        """计票并关门, then the confirmation's second step."""
        self.go("/day")
        if accelerated:
            self.page.check("#close-day-form input[name=accelerated]")
        self.submit(self.page.locator("#close-day"))
        assert "确认关门：将会发生" in self.page.locator("#confirm").inner_text()
        self.axe("关门确认")
        self.submit(self.page.locator("#confirm-close"))
        self.no_error()

    def close_night(self) -> None:
        """时限已到 when offered, then 结算夜晚 and its second step."""
        self.go("/day")
        if self.page.locator("#deadline").count():
            self.submit(self.page.locator("#deadline"))
        self.submit(self.page.locator("#close-night"))
        assert "确认结算夜晚：将会发生" in self.page.locator("#confirm").inner_text()
        self.axe("结算夜晚确认")
        self.submit(self.page.locator("#confirm-close"))
        self.no_error()

    def copy_announcements(self) -> int:
        """Copy every 公示 item not yet marked, check the clipboard holds exactly its text, and
        mark it 已发布; how many were copied."""
        copied = 0
        self.go("/day#announcements")
        while True:
            items = self.page.locator("#announcements .ann:not(.posted)")
            if items.count() == 0:
                return copied
            item = items.first
            text = item.locator("textarea").input_value()
            self.page.evaluate("navigator.clipboard.writeText('')")
            item.locator("button.copy").click()
            assert self.page.evaluate("navigator.clipboard.readText()") == text
            item_id = item.get_attribute("id")
            self.submit(item.locator("button.mark-posted"))
            assert self.page.locator(f"#{item_id} .posted-mark").inner_text() == "已发布"
            copied += 1

    def ended(self) -> bool:
        return bool(self.view()["director"]["outcome"]["ended"])
