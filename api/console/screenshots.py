"""Screenshots of the console's main pages: ``python -m api.console.screenshots [--out DIR]``.

Plays a short M72 demo game (``demo.yaml``) on a throw-away SQLite database: the game is created
through the console's own form, the day's posts arrive through the JSON API as a forum bot would
send them, and the director's rulings, night actions and closings are clicked in the page. Each
main page is saved as a PNG in ``docs/screenshots/``. Needs Debian's ``chromium`` (never
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


def take(out: Path, width: int) -> list[Path]:
    """Play the demo and write the screenshots; the files written."""
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
            page = browser.new_page(viewport={"width": width, "height": 900})
            base = server.url

            def submit(press: str | None = None, click: str | None = None) -> None:
                # A keypress or click that submits a form: wait for the redirected page.
                with page.expect_navigation():
                    if press is not None:
                        page.keyboard.press(press)
                    elif click is not None:
                        page.click(click)

            def shot(name: str, full: bool = True) -> None:
                path = out / f"{name}.png"
                page.screenshot(path=str(path), full_page=full)
                written.append(path)

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

            api_call(
                base,
                "POST",
                f"/api/games/{game_id}/posts",
                token,
                {"posts": demo_posts(demo, 1, 1)},
            )
            page.goto(base + "/queue")
            shot("queue", full=False)
            # Rule on a few suggestions with the keyboard, as a director would.
            for key in ("Enter", "y", "g"):
                submit(press=key)
            page.goto(base + "/day")
            shot("day")
            submit(click="#close-day")
            shot("close_confirm")  # the close's second step: what will happen, cards by name
            submit(click="#confirm-close")
            # Night: enter every skill (a different target each time), then resolve the night.
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
            if page.locator("#close-night").count():
                submit(click="#close-night")
                submit(click="#confirm-close")
            api_call(
                base,
                "POST",
                f"/api/games/{game_id}/posts",
                token,
                {"posts": demo_posts(demo, 2, 1)},
            )
            page.goto(base + "/queue")
            submit(press="r")
            page.goto(base + "/posts")
            shot("posts", full=False)
            page.goto(base + "/players")
            shot("players")
            page.goto(base + "/day")
            shot("announcements")
            page.goto(base + "/timeline")
            shot("timeline")
            page.goto(base + "/deal")
            shot("deal", full=False)
            page.goto(base + "/queue?status=all")
            shot("queue_all", full=False)
            page.goto(base + "/registry")
            shot("registry")
            page.click("table.registry-seats tr:has(.tag-out) a")  # a red-carded player
            shot("registry_player")
            browser.close()
        app.extensions["bansha_db"].dispose()
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m api.console.screenshots", description=__doc__)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    parser.add_argument("--width", type=int, default=1360, help="viewport width in pixels")
    args = parser.parse_args(argv)
    if chromium_path() is None:
        print("chromium not found: install Debian's chromium (make browser-deps)", file=sys.stderr)
        return 2
    for path in take(args.out, args.width):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
