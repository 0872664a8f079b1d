"""The production setup (deploy/nginx.conf in front of deploy/gunicorn.conf.py) keeps answering
while 50 slow clients trickle request bodies: nginx holds them, no gunicorn thread waits on one.

Both servers run on loopback ports with the repository's own configuration files, only the ports
and paths changed; the test is bounded (50 sockets, about 8 s of trickling) and stops both.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from models.migrate import upgrade

REPO = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx", path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
SLOW_CLIENTS = 50
TRICKLE_SECONDS = 8.0
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(NGINX is None, reason="nginx is not installed (make nginx-deps)"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _healthz(port: int, timeout: float) -> tuple[int, float]:
    """GET /healthz: the status (0 when it failed) and the seconds it took."""
    start = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", "/healthz")
        status = conn.getresponse().status
    except OSError:
        status = 0
    finally:
        conn.close()
    return status, time.monotonic() - start


def _wait_for(port: int, seconds: float, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"server exited ({process.returncode}): {log.read_text()[-2000:]}")
        if _healthz(port, 2.0)[0] == 200:
            return
        time.sleep(0.2)
    pytest.fail(f"server not up after {seconds} s: {log.read_text()[-2000:]}")


def render_site(gunicorn_port: int, nginx_port: int) -> str:
    """deploy/nginx.conf with the test's ports instead of 80 and 8000."""
    text = (REPO / "deploy" / "nginx.conf").read_text()
    text, listens = re.subn(
        r"^(\s*)listen 80;", rf"\1listen 127.0.0.1:{nginx_port};", text, flags=re.M
    )
    text, upstreams = re.subn(
        r"server 127\.0\.0\.1:8000;", f"server 127.0.0.1:{gunicorn_port};", text
    )
    assert listens == 1 and upstreams == 1, "deploy/nginx.conf no longer has the lines rendered"
    return text


def _main_conf(tmp: Path, site: Path) -> str:
    """What Debian's /etc/nginx/nginx.conf provides around the site file, in ``tmp``."""
    user = "user root;" if os.geteuid() == 0 else ""  # workers can then write the temp dirs
    temp = "\n".join(
        f"    {kind}_temp_path {tmp / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        f"{user}\nworker_processes 1;\npid {tmp / 'nginx.pid'};\n"
        f"error_log {tmp / 'nginx-error.log'} warn;\n"
        "events { worker_connections 1024; }\n"
        f"http {{\n    access_log off;\n{temp}\n    include {site};\n}}\n"
    )


def _stop(process: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


@pytest.fixture(scope="module")
def production(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path]]:
    """gunicorn and nginx started with the repository's configurations: nginx's port, and the
    file holding gunicorn's access log."""
    assert NGINX is not None
    tmp_path = tmp_path_factory.mktemp("production")
    db_url = f"sqlite:///{tmp_path / 'bansha.sqlite3'}"
    upgrade(db_url)
    gunicorn_port, nginx_port = _free_port(), _free_port()
    gunicorn_log = tmp_path / "gunicorn.log"
    env = {
        **os.environ,
        "DATABASE_URL": db_url,
        "BANSHA_BIND": f"127.0.0.1:{gunicorn_port}",
        "BANSHA_WORKERS": "2",
        "BANSHA_CLASSIFIER": "0",
        "BANSHA_TRUSTED_PROXIES": "1",
    }
    with gunicorn_log.open("wb") as out:
        gunicorn = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(REPO / "deploy" / "gunicorn.conf.py")],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    nginx: subprocess.Popen[bytes] | None = None
    try:
        _wait_for(gunicorn_port, 120, gunicorn, gunicorn_log)
        site = tmp_path / "bansha.conf"
        site.write_text(render_site(gunicorn_port, nginx_port))
        main = tmp_path / "nginx.conf"
        main.write_text(_main_conf(tmp_path, site))
        nginx_log = tmp_path / "nginx.out"
        with nginx_log.open("wb") as out:
            nginx = subprocess.Popen(
                [NGINX, "-p", str(tmp_path), "-c", str(main), "-g", "daemon off;"],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        _wait_for(nginx_port, 20, nginx, tmp_path / "nginx-error.log")
        yield nginx_port, gunicorn_log
    finally:
        if nginx is not None:
            _stop(nginx, signal.SIGQUIT)
        _stop(gunicorn)


def _slow_client(port: int) -> socket.socket:
    """A client that has sent a POST's headers and none of its 100,000-byte body."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(
        b"POST /api/games HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100000\r\n\r\n{"
    )
    return sock


def test_healthz_answers_within_a_second_while_50_clients_trickle_bodies(
    production: tuple[int, Path],
) -> None:
    port, gunicorn_log = production
    clients = [_slow_client(port) for _ in range(SLOW_CLIENTS)]
    stop = threading.Event()
    broken: list[int] = []

    def trickle() -> None:
        while not stop.wait(0.5):
            for i, sock in enumerate(clients):
                try:
                    sock.sendall(b" ")
                except OSError:
                    broken.append(i)

    trickler = threading.Thread(target=trickle, daemon=True)
    trickler.start()
    probes: list[tuple[int, float]] = []
    try:
        end = time.monotonic() + TRICKLE_SECONDS
        while time.monotonic() < end:
            probes.append(_healthz(port, 1.0))
            time.sleep(0.2)
    finally:
        stop.set()
        trickler.join(timeout=10)
        for sock in clients:
            sock.close()
    slow = [
        (status, round(seconds, 2)) for status, seconds in probes if status != 200 or seconds >= 1
    ]
    assert slow == [], f"{len(slow)} of {len(probes)} /healthz probes failed or took 1 s or more"
    assert len(probes) >= 10
    # The slow clients were held open the whole time (none was simply refused) ...
    assert broken == []
    # ... by nginx: not one of their bodies reached gunicorn.
    assert "POST /api/games" not in gunicorn_log.read_text(errors="replace")


def _raw(port: int, request: bytes) -> tuple[int, str, bytes]:
    """Send ``request`` as is; the status, Content-Type and body of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, response.getheader("Content-Type") or "", response.read()


def test_what_nginx_refuses_itself_is_json_in_the_documented_shape(
    production: tuple[int, Path],
) -> None:
    port, _log = production
    too_big = _raw(
        port,
        b"POST /api/games HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        b"Content-Length: 3000000\r\nConnection: close\r\n\r\n",
    )
    too_long = _raw(
        port,
        b"GET /healthz?"
        + b"a" * 9000
        + b" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    )
    for (status, content_type, body), code in ((too_big, "too_large"), (too_long, "uri_too_long")):
        assert content_type.startswith("application/json"), (status, body[:200])
        error = json.loads(body)["error"]
        assert error["code"] == code and status == {"too_large": 413, "uri_too_long": 414}[code]
        assert "未作任何处理" in error["message"]
    # what the service refuses passes through unchanged
    form = _raw(
        port,
        b"POST /api/games HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\n"
        b"Content-Length: 2\r\nConnection: close\r\n\r\n{}",
    )
    assert form[0] == 415 and json.loads(form[2])["error"]["code"] == "unsupported_media_type"
