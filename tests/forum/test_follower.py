"""``bansha follow`` against a stand-in Discuz! server on 127.0.0.1 serving fixture JSON, and the
real referee on a live server: an error, the forum's rate limits, a restart, a new page, a
replayed state file; no post lost or doubled, and it stops when the game ends."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from flask import Flask

from forum.follower import Follower, FollowState
from tests.forum.conftest import fixture, stored_posts

#: what the stand-in forum answers for each page, in order (the last answer repeats)
Answer = tuple[int, dict[str, str], bytes]


def ok(name: str) -> Answer:
    return 200, {"Content-Type": "application/json"}, fixture(name)


class StandIn:
    """A Discuz! mobile API stand-in: ``script[page]`` is consumed one answer per request."""

    def __init__(self, script: dict[int, list[Answer]]) -> None:
        self.script = script
        self.requests: list[dict[str, list[str]]] = []
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = parse_qs(parts.query)
                stand_in.requests.append(query)
                assert parts.path == "/bbs/api/mobile/index.php"
                assert query["module"] == ["viewthread"] and query["tid"] == ["5140"]
                answers = stand_in.script[int(query["page"][0])]
                status, headers, body = answers.pop(0) if len(answers) > 1 else answers[0]
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def thread_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/bbs/forum.php?mod=viewthread&tid=5140"

    def pages_asked(self) -> list[int]:
        return [int(q["page"][0]) for q in self.requests]


@pytest.fixture
def referee(app: Flask) -> Iterator[str]:
    from api.console.liveserver import LiveServer

    with LiveServer(app) as live:
        yield live.url


@pytest.fixture
def forum() -> Iterator[StandIn]:
    stand_in = StandIn(
        {
            1: [(500, {}, b"<h1>Discuz! Database Error</h1>"), ok("mobile_p1.json")],
            2: [
                ok("mobile_flood.json"),
                (429, {"Retry-After": "7"}, b""),
                ok("mobile_p2_partial.json"),
                ok("mobile_p2_full.json"),
            ],
            3: [ok("mobile_p3.json")],
        }
    )
    stand_in.thread.start()
    yield stand_in
    stand_in.server.shutdown()


def follower(
    forum: StandIn, referee: str, game: dict[str, Any], state: Path, sleeps: list[float]
) -> Follower:
    return Follower(
        forum.thread_url,
        game_id=game["id"],
        thread="vote",
        referee_url=referee,
        token=game["director_token"],
        state_path=state,
        sleep=sleeps.append,
        log=lambda line: None,
        poll_seconds=5,
        max_backoff=40,
    )


def test_follow_through_errors_rate_limits_a_restart_and_new_pages(
    app: Flask, forum: StandIn, referee: str, game: dict[str, Any], tmp_path: Path
) -> None:
    client = app.test_client()
    state = tmp_path / "follow.json"
    sleeps: list[float] = []
    # error, page 1 (full: on to page 2), flood notice, 429, page 2 with one post
    assert follower(forum, referee, game, state, sleeps).run(max_steps=5) == 0
    assert forum.pages_asked() == [1, 1, 2, 2, 2]
    assert sleeps == [5, 120, 10, 5]  # backoff 5, the flood notice 120 s, Retry-After over 5*2
    ids = [p["forum_post_id"] for p in stored_posts(client, game)]
    assert ids == ["40002", "40003", "40004"]
    saved = FollowState.load(state)
    assert (saved.page, saved.last_pid) == (2, 40004)
    assert [w["account"] for w in saved.waiting] == ["版杀导演"]  # listed, never guessed

    # a restart: a new process reads the state file; page 2 has filled up, then page 3
    before_replay = tmp_path / "before.json"
    shutil.copy(state, before_replay)
    assert follower(forum, referee, game, state, sleeps).run(max_steps=2) == 0
    ids = [p["forum_post_id"] for p in stored_posts(client, game)]
    assert ids == ["40002", "40003", "40004", "40005", "40006", "40007"]
    change = stored_posts(client, game)[3]
    assert change["vote"]["status"] == "counted" and change["vote"]["is_change"]

    # a crash after submitting but before saving: the old state replays page 2, nothing doubles
    shutil.copy(before_replay, state)
    forum.script[2] = [ok("mobile_p2_full.json")]
    assert follower(forum, referee, game, state, sleeps).run(max_steps=2) == 0
    assert [p["forum_post_id"] for p in stored_posts(client, game)] == ids

    # the game ends (two wolves red-carded, the day closed): the follower stops by itself
    headers = {"Authorization": f"Bearer {game['director_token']}"}
    for who in ("微信", "支付宝"):
        card = {"character": who, "colour": "red", "category": "cheating", "reason": "作弊"}
        assert (
            client.post(f"/api/games/{game['id']}/cards", json=card, headers=headers).status_code
            == 201
        )
    client.post(
        f"/api/games/{game['id']}/actions",
        json={"type": "schedule_day", "accelerated": False},
        headers=headers,
    )
    assert (
        client.post(
            f"/api/games/{game['id']}/advance", json={"close": "day"}, headers=headers
        ).status_code
        == 200
    )
    asked = len(forum.requests)
    assert follower(forum, referee, game, state, sleeps).run() == 0
    assert len(forum.requests) == asked  # it did not even read the forum again


def test_a_wrong_token_stops_the_follower(
    forum: StandIn, referee: str, game: dict[str, Any], tmp_path: Path
) -> None:
    wrong = {**game, "director_token": game["player_tokens"]["微信"]}
    assert follower(forum, referee, wrong, tmp_path / "s.json", []).run(max_steps=3) == 1


def test_the_state_file_is_written_atomically(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    FollowState(page=3, last_pid=41, comments=["cmt-1-a"]).save(path)
    assert json.loads(path.read_text())["last_pid"] == 41
    assert not (tmp_path / "state.json.tmp").exists()
    assert FollowState.load(path) == FollowState(page=3, last_pid=41, comments=["cmt-1-a"])


def test_a_failed_submission_is_retried_not_lost(
    app: Flask, forum: StandIn, referee: str, game: dict[str, Any], tmp_path: Path
) -> None:
    from forum.follower import FollowError, http_json

    failures = iter([True])

    def flaky(url: str, **kwargs: Any) -> Any:
        # the referee's connection drops on the first submission (a real network failure mode)
        if url.endswith("/posts") and next(failures, False):
            raise FollowError("无法连接裁判服务")
        return http_json(url, **kwargs)

    forum.script[1] = [ok("mobile_p1.json")]
    state = tmp_path / "follow.json"
    sleeps: list[float] = []
    one = follower(forum, referee, game, state, sleeps)
    one.fetch = flaky
    assert one.run(max_steps=2) == 0
    assert sleeps[0] == 5  # backed off once
    ids = [p["forum_post_id"] for p in stored_posts(app.test_client(), game)]
    assert ids == ["40002", "40003"]


def test_a_waiting_post_goes_in_once_its_account_is_mapped(
    app: Flask, forum: StandIn, referee: str, game: dict[str, Any], tmp_path: Path
) -> None:
    from api.intake import map_account

    forum.script[1] = [ok("mobile_p1.json")]
    forum.script[2] = [ok("mobile_p2_partial.json")]
    state = tmp_path / "follow.json"
    assert follower(forum, referee, game, state, []).run(max_steps=1) == 0
    assert "40001" not in {p["forum_post_id"] for p in stored_posts(app.test_client(), game)}
    with app.app_context():
        map_account(game["id"], "版杀导演", "哔哩哔哩", actor="t")
    assert follower(forum, referee, game, state, []).run(max_steps=1) == 0
    posts = {p["forum_post_id"]: p["author"] for p in stored_posts(app.test_client(), game)}
    assert posts["40001"] == "哔哩哔哩" and posts["40004"] == "淘宝"
    assert FollowState.load(state).waiting == []
