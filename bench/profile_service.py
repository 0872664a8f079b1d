"""The request path in one process: CPU time per ``GET /healthz`` and per screened post.

``bench_service`` measures the whole server under load, where the machine's other work moves
every figure; this calls the app's WSGI callable directly, the way a gunicorn worker does
(the same environ keys, no test client in between), and counts each thread's CPU time, best of
five slices, so that what the request path itself costs can be compared change by change.
``--profile`` adds cProfile's table (CPU time, not wall time) for the posts.

Run: ``python -m bench.profile_service [--rules] [--posts N] [--profile cumulative|tottime]``.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.bench_service import PLAYERS, _post

#: what gunicorn's environ carries for a loopback request (see gunicorn.http.wsgi)
BASE_ENVIRON: dict[str, Any] = {
    "SCRIPT_NAME": "",
    "QUERY_STRING": "",
    "SERVER_NAME": "127.0.0.1",
    "SERVER_PORT": "8000",
    "SERVER_PROTOCOL": "HTTP/1.1",
    "REMOTE_ADDR": "127.0.0.1",
    "REMOTE_PORT": "50000",
    "HTTP_HOST": "127.0.0.1:8000",
    "HTTP_ACCEPT_ENCODING": "identity",
    "wsgi.url_scheme": "http",
    "wsgi.errors": sys.stderr,
    "wsgi.multithread": True,
    "wsgi.multiprocess": True,
    "wsgi.run_once": False,
    "wsgi.version": (1, 0),
}


def environ(method: str, path: str, body: bytes = b"", token: str = "") -> dict[str, Any]:
    """A request's WSGI environ."""
    env = {**BASE_ENVIRON, "REQUEST_METHOD": method, "PATH_INFO": path, "RAW_URI": path}
    env["wsgi.input"] = io.BytesIO(body)
    if body:
        env["CONTENT_TYPE"] = "application/json"
        env["CONTENT_LENGTH"] = str(len(body))
    if token:
        env["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    return env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", action="store_true", help="lexicons and patterns only")
    parser.add_argument("--posts", type=int, default=2000, help="posts measured (default 2000)")
    parser.add_argument("--profile", choices=("cumulative", "tottime"), help="cProfile's table")
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bansha-profile-"))
    try:
        return _measure(args, f"sqlite:///{tmp / 'p.sqlite3'}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _measure(args: argparse.Namespace, url: str) -> int:
    from api import create_app
    from api.screening import warm
    from models.migrate import upgrade

    upgrade(url)
    unlimited = (10**9, 60)
    app = create_app(
        {
            "DATABASE_URL": url,
            "RATE_LIMIT_POSTS": unlimited,
            "RATE_LIMIT_GAMES": unlimited,
            "RATE_LIMIT_WRITES": unlimited,
            "USE_CLASSIFIER": not args.rules,
        }
    )
    warm(use_classifier=not args.rules)
    created = app.test_client().post(
        "/api/games", json={"ruleset": "m72", "players": PLAYERS, "seed": "profile"}
    )
    game = created.get_json()
    path, token = f"/api/games/{game['id']}/posts", game["director_token"]

    def call(env: dict[str, Any]) -> str:
        status: list[str] = []

        def start_response(line: str, headers: Any, exc_info: Any = None) -> Callable[..., Any]:
            status.append(line)
            return lambda data: None

        b"".join(app.wsgi_app(env, start_response))
        return status[0]

    def post(prefix: str, i: int) -> dict[str, Any]:
        body = json.dumps(_post(prefix, i), ensure_ascii=False).encode()
        return environ("POST", path, body, token)

    for i in range(100):  # caches, the pool, the model's first calls
        assert call(post("warm", i)).startswith("200")

    def best(make: Callable[[int], dict[str, Any]], n: int) -> float:
        """Best of five slices of ``n // 5`` requests: CPU seconds per request."""
        envs = [make(i) for i in range(n)]
        k = n // 5
        slices = []
        for r in range(5):
            started = time.thread_time()
            for env in envs[r * k : (r + 1) * k]:
                status = call(env)
            slices.append((time.thread_time() - started) / k)
            assert status.startswith("200"), status
        return min(slices)

    health = best(lambda i: environ("GET", "/healthz"), 5000)
    single = best(lambda i: post("p", i), args.posts)
    print(f"GET /healthz: {health * 1e6:.0f} µs CPU; single post: {single * 1e6:.0f} µs CPU")
    if args.profile:
        import cProfile
        import pstats

        envs = [post("q", i) for i in range(args.posts)]
        profile = cProfile.Profile(time.thread_time)
        profile.enable()
        for env in envs:
            call(env)
        profile.disable()
        pstats.Stats(profile).sort_stats(args.profile).print_stats(60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
