"""``bansha follow``: poll a Discuz! X thread through its mobile API and submit new posts.

The forum's own mobile API (``api/mobile/index.php?version=4&module=viewthread&tid=…&page=…``,
see :func:`forum.discuz.parse_mobile`) is read page by page. Every poll submits the posts after
the last one submitted, over the referee's HTTP API (``POST /api/games/{id}/posts`` with the
director token), and only then records how far it got in a small JSON state file, written
atomically: after a crash or restart the follower resumes from the last post id, and a post
submitted twice is answered by the referee as a duplicate, never stored twice. Posts by accounts
that play no character wait in the state file until the director maps the account.

Errors back off exponentially (capped); the forum's rate limits (HTTP 429/503 with
``Retry-After``, or Discuz!'s "访问过于频繁" message) wait at least as long as asked. The
follower stops when the referee says the game has ended.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from forum.authors import account_key
from forum.discuz import parse_mobile
from forum.errors import ForumPageError

USER_AGENT = "BanshaReferee-follower/0.1 (polls one thread for a game referee)"
_THREAD_HTML = re.compile(r"thread-(\d+)-\d+-\d+\.html$")
#: Discuz! messages that mean "slow down" rather than "broken"
_FLOOD_WORDS = ("flood", "频繁", "稍后")
BATCH = 100


class FollowError(Exception):
    """A poll that failed; ``retry_after`` (seconds) when the other side asked to wait."""

    def __init__(self, message: str, retry_after: float | None = None, fatal: bool = False):
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after
        self.fatal = fatal


def mobile_api_url(thread_url: str, page: int) -> str:
    """The mobile-API address of page ``page`` of the thread at ``thread_url``.

    >>> mobile_api_url("https://bbs.example.cn/forum.php?mod=viewthread&tid=5140&extra=", 2)
    'https://bbs.example.cn/api/mobile/index.php?version=4&module=viewthread&tid=5140&page=2'
    >>> mobile_api_url("http://127.0.0.1:8080/bbs/thread-5140-1-1.html", 1)
    'http://127.0.0.1:8080/bbs/api/mobile/index.php?version=4&module=viewthread&tid=5140&page=1'
    """
    parts = urlsplit(thread_url)
    tid = (parse_qs(parts.query).get("tid") or [""])[0]
    if not tid:
        found = _THREAD_HTML.search(parts.path)
        tid = found.group(1) if found else ""
    if not tid.isdigit() or parts.scheme not in ("http", "https"):
        raise ForumPageError("not_a_thread", f"不是 Discuz! 帖子的网址（需要 tid）：{thread_url}")
    base = parts.path.rsplit("/", 1)[0]
    query = urlencode({"version": 4, "module": "viewthread", "tid": tid, "page": page})
    return f"{parts.scheme}://{parts.netloc}{base}/api/mobile/index.php?{query}"


@dataclass
class FollowState:
    """How far the follower got: the page it reads and the last floor it submitted."""

    page: int = 1
    last_pid: int = 0
    comments: list[str] = field(default_factory=list)
    #: posts by accounts that play no character yet, kept until the director maps them
    waiting: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> FollowState:
        """The state in ``path``, or a fresh one if there is none yet."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls()
        return cls(
            page=int(data.get("page", 1)),
            last_pid=int(data.get("last_pid", 0)),
            comments=list(data.get("comments", [])),
            waiting=list(data.get("waiting", [])),
        )

    def save(self, path: Path) -> None:
        """Write the state atomically (a crash leaves the old file or the new one)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(json.dumps(asdict(self), ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, path)


def _retry_after(headers: Any) -> float | None:
    value = headers.get("Retry-After")
    if value and value.strip().isdigit():
        return float(value.strip())
    return None


def http_json(url: str, *, body: Any = None, token: str | None = None, timeout: float = 30) -> Any:
    """GET (or POST ``body`` as JSON) and decode the JSON answer; :class:`FollowError` if not."""
    data = None if body is None else json.dumps(body, ensure_ascii=False).encode()
    request = urllib.request.Request(url, data=data, method="GET" if data is None else "POST")
    request.add_header("User-Agent", USER_AGENT)
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json; charset=utf-8")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
    except urllib.error.HTTPError as exc:
        wait = _retry_after(exc.headers)
        if exc.code in (429, 503):
            raise FollowError(f"{url} 要求放慢（HTTP {exc.code}）", wait or 60) from None
        detail = ""
        with contextlib.suppress(ValueError, AttributeError):
            detail = json.loads(exc.read()).get("error", {}).get("message", "")
        fatal = exc.code in (400, 401, 403, 404)
        raise FollowError(f"{url} 返回 HTTP {exc.code} {detail}".strip(), fatal=fatal) from None
    except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
        raise FollowError(f"无法连接 {url}：{getattr(exc, 'reason', exc)}") from None
    try:
        return json.loads(raw.decode("utf-8", errors="replace"))
    except ValueError:
        raise FollowError(f"{url} 返回的不是 JSON") from None


@dataclass
class StepResult:
    """One poll: how many posts were submitted, whether to read the next page right away, and
    whether the game has ended."""

    submitted: int = 0
    advanced: bool = False
    ended: bool = False


class Follower:
    """Follows one thread into one game's ``thread`` (discussion / vote / process)."""

    def __init__(
        self,
        thread_url: str,
        *,
        game_id: str,
        thread: str,
        referee_url: str,
        token: str,
        state_path: Path,
        fetch: Callable[..., Any] = http_json,
        sleep: Callable[[float], None] = time.sleep,
        log: Callable[[str], None] = print,
        poll_seconds: float = 60,
        max_backoff: float = 900,
    ) -> None:
        mobile_api_url(thread_url, 1)  # refuse a wrong address at once
        self.thread_url = thread_url
        self.game_id = game_id
        self.thread = thread
        self.referee = referee_url.rstrip("/")
        self.token = token
        self.state_path = state_path
        self.fetch = fetch
        self.sleep = sleep
        self.log = log
        self.poll_seconds = poll_seconds
        self.max_backoff = max_backoff
        self.state = FollowState.load(state_path)

    def _roster(self) -> Mapping[str, Any]:
        url = f"{self.referee}/forum/api/{self.game_id}/roster"
        answer = self.fetch(url, token=self.token)
        if not isinstance(answer, Mapping) or "accounts" not in answer:
            raise FollowError("裁判服务返回的名单格式不符")
        return answer

    def _page(self) -> Any:
        answer = self.fetch(mobile_api_url(self.thread_url, self.state.page))
        if not isinstance(answer, Mapping):
            raise FollowError("论坛接口返回的不是 JSON 对象")
        message = answer.get("Message")
        if "Variables" not in answer and isinstance(message, Mapping):
            text = f"{message.get('messageval', '')} {message.get('messagestr', '')}"
            if any(word in text for word in _FLOOD_WORDS):
                raise FollowError(f"论坛限制访问频率：{text.strip()}", 120)
        try:
            return parse_mobile(answer)
        except ForumPageError as exc:
            raise FollowError(exc.message) from None

    def step(self) -> StepResult:
        """One poll: read the current page, submit what is new, record it."""
        roster = self._roster()
        if roster.get("ended"):
            return StepResult(ended=True)
        accounts: Mapping[str, str] = roster["accounts"]
        day = int(roster["day"])
        page = self._page()
        floors = [p for p in page.posts if not p.forum_post_id.startswith("cmt-")]
        fresh = [
            p
            for p in page.posts
            if (p.forum_post_id not in self.state.comments)
            if p.forum_post_id.startswith("cmt-") or int(p.forum_post_id) > self.state.last_pid
        ]
        bodies: list[dict[str, Any]] = []
        still_waiting: list[dict[str, Any]] = []
        for waiting in self.state.waiting:
            character = accounts.get(account_key(waiting["account"]))
            if character:
                bodies.append({**waiting["post"], "author": character})
            else:
                still_waiting.append(waiting)
        for post in fresh:
            character = accounts.get(account_key(post.author))
            body = post.api_body(character or "", self.thread, day)
            if character:
                bodies.append(body)
            else:
                still_waiting.append({"account": post.author, "post": body})
        for start in range(0, len(bodies), BATCH):
            self.fetch(
                f"{self.referee}/api/games/{self.game_id}/posts",
                body={"posts": bodies[start : start + BATCH]},
                token=self.token,
            )
        # Only now, with the referee's answer in hand, is the progress recorded.
        for post in fresh:
            if post.forum_post_id.startswith("cmt-"):
                self.state.comments.append(post.forum_post_id)
            else:
                self.state.last_pid = max(self.state.last_pid, int(post.forum_post_id))
        self.state.waiting = still_waiting
        if bodies:
            self.log(f"第{self.state.page}页：提交 {len(bodies)} 帖")
        # A full page is done once submitted: the next poll reads the next page.
        advanced = page.per_page > 0 and len(floors) >= page.per_page
        if advanced:
            self.state.page += 1
        self.state.save(self.state_path)
        return StepResult(submitted=len(bodies), advanced=advanced)

    def run(self, max_steps: int | None = None) -> int:
        """Poll until the game ends (0) or the referee refuses us (1); back off on errors."""
        failures = 0
        steps = 0
        while max_steps is None or steps < max_steps:
            steps += 1
            try:
                result = self.step()
            except FollowError as exc:
                if exc.fatal:
                    self.log(f"停止：{exc.message}")
                    return 1
                failures += 1
                delay = min(self.max_backoff, self.poll_seconds * 2 ** (failures - 1))
                if exc.retry_after is not None:
                    delay = max(delay, exc.retry_after)
                self.log(f"{exc.message}；{delay:.0f} 秒后重试")
                self.sleep(delay)
                continue
            failures = 0
            if result.ended:
                self.log("游戏已结束，停止跟帖")
                return 0
            if not result.advanced:
                self.sleep(self.poll_seconds)
        return 0
