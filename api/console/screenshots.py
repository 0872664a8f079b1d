"""Screenshots of every console page: ``python -m api.console.screenshots [--out DIR]``.

Plays a short M72 demo game (``demo.yaml``) on a throw-away SQLite database: the game is created
through the console's own form, the day's posts arrive through the JSON API as a forum bot would
send them, and the director's rulings, night actions and closings are clicked in the page. Each
page state (the confirmation steps too) is saved as a PNG in ``docs/screenshots/`` at 1440 px
(``name.png``) and at 390 px (``name-390.png``). Needs Debian's ``chromium`` (never
downloads a browser) and Python Playwright; exits 2 with a message when chromium is missing.
"""

from __future__ import annotations

import argparse
import json
import secrets
import shutil
import sys
import tempfile
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from api.console.liveserver import LiveServer

DEMO_FILE = Path(__file__).with_name("demo.yaml")
DEFAULT_OUT = Path("docs") / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    """Debian's chromium, if installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def load_demo() -> dict[str, Any]:
    """The demo game (ruleset, seed, players, posts per day)."""
    data: dict[str, Any] = yaml.safe_load(DEMO_FILE.read_text(encoding="utf-8"))
    return data


def api_call(base: str, method: str, path: str, token: str | None, body: Any = None) -> Any:
    """One JSON API call against the live server (the way a forum bot talks to the service)."""
    data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read().decode("utf-8"))


def demo_posts(demo: dict[str, Any], day: int, start: int) -> list[dict[str, Any]]:
    """The demo's posts for ``day`` as ``POST /api/games/{id}/posts`` items."""
    out = []
    for i, (author, thread, body) in enumerate(demo["days"].get(day, []), start=start):
        out.append(
            {
                "forum_post_id": f"demo-{day}-{i}",
                "author": author,
                "thread": thread,
                "day": day,
                "body": body,
                "posted_at": f"2026-11-2{day}T{10 + i % 12:02d}:{i % 60:02d}:00+08:00",
            }
        )
    return out


def make_app(db_path: Path) -> Any:
    """A service app on a fresh SQLite file (rules-only screening: fast and deterministic)."""
    from api import create_app

    return create_app(
        {
            "DATABASE_URL": f"sqlite:///{db_path}",
            "CREATE_SCHEMA": True,
            "USE_CLASSIFIER": False,
            "SECRET_KEY": secrets.token_hex(16),
            "RATE_LIMIT_POSTS": (100_000, 60),
            "RATE_LIMIT_GAMES": (100_000, 60),
            "RATE_LIMIT_WRITES": (100_000, 60),
        }
    )


#: the widths every page is taken at: a desktop (``name.png``) and a phone (``name-390.png``)
WIDTHS = (1440, 390)


def shot_name(name: str, width: int, widths: Sequence[int] = WIDTHS) -> str:
    """The file name of page ``name`` at ``width``: the first width has no suffix.

    >>> shot_name("queue", 1440), shot_name("queue", 390)
    ('queue.png', 'queue-390.png')
    """
    return f"{name}.png" if width == widths[0] else f"{name}-{width}.png"


def take(out: Path, widths: Sequence[int] = WIDTHS) -> list[Path]:
    """Play the demo and write the screenshots of every page state at each of ``widths``;
    the files written."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    if executable is None:
        raise RuntimeError("chromium is not installed (apt-get install chromium)")
    demo = load_demo()
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp) / "demo.sqlite3")
        with LiveServer(app) as server, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": widths[0], "height": 900})
            base = server.url

            def submit(press: str | None = None, click: str | None = None) -> None:
                # A keypress or click that submits a form: wait for the answer.
                with page.expect_navigation():
                    if press is not None:
                        page.keyboard.press(press)
                    elif click is not None:
                        page.click(click)

            def shot(name: str, full: bool = True) -> None:
                # The page as it is now at every width (a resize reflows it without a new
                # request, so a POST's answer such as a confirmation page is taken as it is).
                for width in widths:
                    height = 900 if width >= 640 else 844
                    page.set_viewport_size({"width": width, "height": height})
                    path = out / shot_name(name, width, widths)
                    page.screenshot(path=str(path), full_page=full)
                    written.append(path)
                page.set_viewport_size({"width": widths[0], "height": 900})

            def posts(day: int) -> None:
                body = {"posts": demo_posts(demo, day, 1)}
                api_call(base, "POST", f"/api/games/{game_id}/posts", token, body)

            page.goto(base + "/login")
            shot("login", full=False)
            page.goto(base + "/new")
            page.check(f"input[name=ruleset][value={demo['ruleset']}]")
            page.fill("#players", "\n".join(demo["players"]))
            page.fill("#seed", demo["seed"])
            shot("new_game")
            submit(click="#create")
            shot("created")
            token = page.input_value("#director-token")
            game_id = page.locator("h1 .muted").inner_text().lstrip("#").strip()

            # Day 1: the queue, rulings with the keyboard as a director would.
            posts(1)
            page.goto(base + "/queue")
            shot("queue", full=False)
            for key in ("Enter", "y", "g"):
                submit(press=key)
            page.goto(base + "/day")
            page.fill("#closes-at-input", "2026-11-21T23:00")
            submit(click="#schedule-submit")
            shot("day")
            submit(click="#close-day")
            shot("close_confirm")  # the close's second step: what will happen, cards by name
            submit(click="#confirm-close")

            # Night: every skill (a different target each time), one entry corrected.
            for turn in range(12):
                if turn == 2:
                    shot("night")
                forms = page.locator("#night-actions form")
                if forms.count() == 0:
                    break
                select = forms.first.locator("select")
                values = [
                    o.get_attribute("value") or ""
                    for o in select.locator("option").all()
                    if o.get_attribute("value") != "__pick__"  # 「请选择」 is no target
                ]
                select.select_option(value=values[(turn * 3 + 1) % len(values)])
                with page.expect_navigation():
                    forms.first.locator("button").click()
            fix = page.locator("#tonight form.correct-form").first
            if fix.count():
                options = fix.locator("option").all()
                fix.locator("select").select_option(value=options[-1].get_attribute("value"))
                with page.expect_navigation():
                    fix.locator("button").click()
                shot("night_corrected")
            if page.locator("#close-night").count():
                submit(click="#close-night")
                shot("night_confirm")
                submit(click="#confirm-close")

            # Day 2: a red card through its confirmation page.
            posts(2)
            page.goto(base + "/queue")
            submit(press="r")
            shot("queue_confirm")
            submit(click="#confirm-red-submit")
            page.goto(base + "/posts")
            shot("posts", full=False)
            page.goto(base + "/players")
            shot("players")
            # The two-step pages of 角色与牌, each cancelled: 撤销判罚, 判负, and a token.
            page.click("#revoke a.button")
            page.wait_for_load_state()
            shot("revoke_confirm")
            page.goto(base + "/players#forfeit")
            page.select_option("#forfeit-faction", index=1)
            page.fill("#forfeit-reason", "（示例）全阵营串通作弊")
            submit(click="#forfeit-submit")
            shot("forfeit_confirm")
            page.goto(base + "/players#tokens")
            with page.expect_navigation():
                page.locator("#tokens").get_by_role("button", name="重发令牌").first.click()
            shot("token_issued")
            page.goto(base + "/day")
            shot("announcements")
            for path, name, full in (
                ("/timeline", "timeline", True),
                ("/deal", "deal", False),
                ("/queue?status=all", "queue_all", False),
                ("/audit", "audit", False),
                ("/registry", "registry", True),
                ("/verify", "verify", True),
                ("/forum/import", "forum_import", True),
                ("/no-such-page", "not_found", True),
            ):
                page.goto(base + path)
                shot(name, full=full)
            page.goto(base + "/registry")
            page.click("table.registry-seats tr:has(.tag-out) a")  # a red-carded player
            page.wait_for_load_state()
            shot("registry_player")
            browser.close()
        app.extensions["bansha_db"].dispose()
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m api.console.screenshots", description=__doc__)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    parser.add_argument(
        "--width",
        type=int,
        action="append",
        help="viewport width in pixels, repeatable (default: 1440 and 390)",
    )
    args = parser.parse_args(argv)
    if chromium_path() is None:
        print("chromium not found: install Debian's chromium (make browser-deps)", file=sys.stderr)
        return 2
    for path in take(args.out, tuple(args.width) if args.width else WIDTHS):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
