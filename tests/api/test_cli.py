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
            "labelled_examples", "rate_windows", "tokens"} <= tables  # fmt: skip
    assert db_main(["upgrade"]) == 0  # idempotent
    assert db_main(["current"]) == 0
    assert capsys.readouterr().out.strip().endswith("0002")


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
