"""The userscript in Debian's Chromium (headless Playwright, no browser download): a fixture
Tieba thread is served from one local server, the referee from another; the served userscript
is injected with a small GM_* shim whose cross-origin requests are made outside the page (as a
userscript manager makes them). The posts arrive in the game once, the panel shows each post's
findings, and the token stays out of the page."""

from __future__ import annotations

import functools
import shutil
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from flask import Flask

from tests.forum.conftest import FIXTURES, stored_posts

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("console-browser")]

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]  # fmt: skip

#: GM_* as a userscript manager provides them: storage outside the page's own storage, and
#: requests made by the privileged side (here: Python), so that no CORS applies
GM_SHIM = """
(() => {
  const store = {};
  window.__banshaStore = store;  // for the test only
  window.GM_getValue = (k, d) => (k in store ? store[k] : d);
  window.GM_setValue = (k, v) => { store[k] = v; };
  window.GM_xmlhttpRequest = (details) => {
    window.__banshaRequest(details.method, details.url, details.headers || {}, details.data || null)
      .then((r) => details.onload(r), () => details.onerror({}));
  };
})();
"""


@pytest.fixture(scope="module")
def chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        pytest.skip("Debian's chromium is not installed; browser test skipped")
    pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")
    return path


@pytest.fixture
def referee(chromium: str, app: Flask) -> Iterator[str]:
    from api.console.liveserver import LiveServer

    with LiveServer(app) as live:
        yield live.url


@pytest.fixture
def forum_site() -> Iterator[str]:
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(FIXTURES))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    yield f"http://{host}:{port}"
    server.shutdown()


@pytest.fixture
def browser_page(chromium: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.set_default_timeout(60_000)
        yield page
        browser.close()


def gm_request(method: str, url: str, headers: dict[str, str], data: str | None) -> Any:
    """The userscript manager's side of GM_xmlhttpRequest: a plain HTTP request, no CORS."""
    request = urllib.request.Request(
        url, data=data.encode() if data else None, method=method, headers=headers
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return {"status": response.status, "responseText": response.read().decode()}
    except urllib.error.HTTPError as exc:
        return {"status": exc.code, "responseText": exc.read().decode()}


def test_userscript_on_a_discuz_thread(
    browser_page: Any, app: Flask, referee: str, forum_site: str, game: dict[str, Any]
) -> None:
    page = browser_page
    userscript = (
        urllib.request.urlopen(f"{referee}/userscript/bansha.user.js?game={game['id']}")
        .read()
        .decode()
    )
    page.expose_function("__banshaRequest", gm_request)
    page.goto(f"{forum_site}/discuz_discussion_p1.html")
    page.add_script_tag(content=GM_SHIM + userscript)
    page.fill("#bansha-token", game["director_token"])
    page.click("#bansha-save-token")
    page.click("#bansha-send")
    page.wait_for_function(
        "document.getElementById('bansha-status').textContent.includes('新收到')"
    )
    assert page.text_content("#bansha-status") == "提交 3 帖，新收到 3 帖。"
    results = page.locator("#bansha-results li").all_text_contents()
    assert "1楼 版杀导演：未对应角色（请在控制台映射账号）" in results
    assert "2楼 微信：已收到，0 项发现" in results
    assert any(r.startswith("5楼 抖音：已收到，") and "0 项" not in r for r in results)
    posts = {p["forum_post_id"]: p for p in stored_posts(app.test_client(), game)}
    assert sorted(posts) == ["30002", "30003", "30005"]  # the deleted floor 4 is not invented
    assert posts["30003"]["body"].startswith("[quote]微信 发表于 2026-11-29 19:40")
    assert posts["30005"]["body"].startswith("本帖最后由 抖音 于 2026-11-29 20:03 编辑")
    assert "签名" not in "".join(p["body"] for p in posts.values())


def test_userscript_sends_the_shown_posts_once_and_shows_their_findings(
    chromium: str, app: Flask, referee: str, forum_site: str, game: dict[str, Any]
) -> None:
    from playwright.sync_api import sync_playwright

    script = urllib.request.urlopen(f"{referee}/userscript/bansha.user.js?game={game['id']}")
    userscript = script.read().decode()
    assert f'const SERVICE = "{referee}"' in userscript and game["id"] in userscript
    assert game["director_token"] not in userscript
    requested: list[tuple[str, str, bool]] = []

    def recorded(method: str, url: str, headers: dict[str, str], data: str | None) -> Any:
        requested.append((method, url, "Authorization" in headers))
        return gm_request(method, url, headers, data)

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.set_default_timeout(60_000)
        page.expose_function("__banshaRequest", recorded)
        page.goto(f"{forum_site}/tieba_discussion.html")
        page.add_script_tag(content=GM_SHIM + userscript)
        page.fill("#bansha-token", game["director_token"])
        page.click("#bansha-save-token")
        assert page.input_value("#bansha-token") == ""
        assert game["director_token"] not in page.content()
        assert game["director_token"] not in page.evaluate("JSON.stringify(localStorage)")
        page.select_option("#bansha-thread", "discussion")
        page.click("#bansha-send")
        page.wait_for_function(
            "document.getElementById('bansha-status').textContent.includes('新收到')"
        )
        assert page.text_content("#bansha-status") == "提交 3 帖，新收到 3 帖。"
        results = page.locator("#bansha-results li").all_text_contents()
        assert "1楼 版杀导演君：未对应角色（请在控制台映射账号）" in results
        assert "2楼 美团：已收到，0 项发现" in results
        assert "2楼·楼中楼 滴滴：已收到，0 项发现" in results
        insult = next(r for r in results if r.startswith("3楼 高德：已收到，"))
        shown = int(insult.split("，")[1].split(" ")[0])
        assert shown >= 1

        # again: nothing new is sent
        page.click("#bansha-send")
        page.wait_for_function(
            "document.getElementById('bansha-status').textContent.includes('没有新帖')"
        )
        # the manager's memory lost (a new browser): the referee answers duplicates
        page.evaluate("(key) => { delete window.__banshaStore[key]; }", f"sent:{game['id']}")
        page.click("#bansha-send")
        page.wait_for_function(
            "document.getElementById('bansha-status').textContent.includes('新收到 0 帖')"
        )
        assert any("已存在" in r for r in page.locator("#bansha-results li").all_text_contents())
        browser.close()

    posts = {p["forum_post_id"]: p for p in stored_posts(app.test_client(), game)}
    assert {k: p["author"] for k, p in posts.items()} == {
        "140001002": "美团", "150001001": "滴滴", "140001003": "高德"
    }  # fmt: skip
    # the same text as the importer reads: the emoticon by its name, the 楼中楼 reply as a quote
    assert posts["140001002"]["body"] == "我是好人，昨晚什么都没看到[表情:滑稽]"
    assert posts["150001001"]["body"] == "[quote]回复 美团：[/quote]你这发言像狼"
    stored_insult = posts["140001003"]
    assert len([f for f in stored_insult["findings"] if f["category"] != "water"]) == shown
    assert all(url.startswith(referee) and auth for _, url, auth in requested)
