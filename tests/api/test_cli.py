"""``bansha db`` and ``bansha serve``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import inspect

from api.cli import db_main, serve_main
from models.database import make_engine


def test_db_upgrade_creates_the_default_sqlite_file_from_any_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert db_main(["upgrade"]) == 0
    path = tmp_path / "var" / "bansha.sqlite3"
    assert path.is_file()
    tables = set(inspect(make_engine(f"sqlite:///{path}")).get_table_names())
    assert {"games", "game_events", "posts", "suggestions", "decisions", "cards", "audit_log",
            "labelled_examples", "rate_windows", "tokens",
            "idempotency_keys"} <= tables  # fmt: skip
    assert db_main(["upgrade"]) == 0  # idempotent
    assert db_main(["current"]) == 0
    assert capsys.readouterr().out.strip().endswith("0007")


def test_db_rejects_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert db_main(["frobnicate"]) == 2
    assert db_main([]) == 2


def test_serve_refuses_an_unmigrated_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'empty.sqlite3'}")
    assert serve_main(["--port", "0"]) == 1
    assert "bansha db upgrade" in capsys.readouterr().err


def test_console_script_runs_db_upgrade_elsewhere(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    bansha = Path(sys.executable).with_name("bansha")
    result = subprocess.run(
        [str(bansha), "db", "upgrade"], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "var" / "bansha.sqlite3").is_file()


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_runs_gunicorn_workers_that_share_one_database(tmp_path: Path) -> None:
    """What ``make run`` starts: several forked workers, each answering from the same database."""
    import json
    import time
    import urllib.request

    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["BANSHA_MODEL"] = str(tmp_path / "no-model.skops")  # rules only: start fast
    bansha = str(Path(sys.executable).with_name("bansha"))
    subprocess.run([bansha, "db", "upgrade"], cwd=tmp_path, env=env, check=True, timeout=120)
    port = _free_port()
    server = subprocess.Popen(
        [bansha, "serve", "--port", str(port), "--workers", "2"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=2) as response:
                    assert json.load(response) == {"status": "ok"}
                break
            except OSError:
                assert server.poll() is None, "bansha serve exited early"
                assert time.monotonic() < deadline, "bansha serve did not answer within 60 s"
                time.sleep(0.2)
        players = [
            *("穗乃果", "绘里", "小鸟", "海未", "凛", "真姬"),
            *("希", "花阳", "妮可", "千歌", "梨子"),
        ]
        request = urllib.request.Request(
            f"{base}/api/games",
            data=json.dumps({"ruleset": "m08", "players": players}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            created = json.load(response)
        # Many requests spread over both workers: every one sees the game the other created.
        for _ in range(10):
            with urllib.request.urlopen(
                f"{base}/api/games/{created['id']}/announcements", timeout=10
            ) as response:
                assert response.status == 200
    finally:
        server.terminate()
        output, _ = server.communicate(timeout=30)
    assert output.count("Booting worker") == 2, output
    assert "Traceback" not in output, output
