"""``bansha db backup`` / ``bansha db restore`` and ``make clean`` sparing the live database."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from api.cli import db_main
from models.database import sqlite_path


def give(api: Any, game: dict[str, Any], character: str, colour: str) -> dict[str, Any]:
    body = {"character": character, "colour": colour, "category": "other", "reason": "测试"}
    result: dict[str, Any] = api.ok(
        "POST", f"/api/games/{game['id']}/cards", game["director_token"], body
    )
    return result


def dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows in a fixed order: the whole stored state."""
    with sqlite3.connect(path) as connection:
        tables = [
            name
            for (name,) in connection.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' "
                "ORDER BY name"
            )
        ]
        return {t: sorted(connection.execute(f'SELECT * FROM "{t}"'), key=repr) for t in tables}


def seen_by_the_service(api: Any, game: dict[str, Any]) -> dict[str, Any]:
    """What the service answers about the game: rebuilt from the replayed event log."""
    token = game["director_token"]
    return {
        "view": api.ok("GET", f"/api/games/{game['id']}/view", token),
        "cards": api.ok("GET", f"/api/games/{game['id']}/cards", token),
        "announcements": api.announcements(game),
    }


def test_backup_and_restore_replay_to_the_same_state(
    api: Any, game: dict[str, Any], app: Flask, db_url: str, make_app: Any, tmp_path: Path
) -> None:
    api.post(game, "软件1", "你个ＳＢ")
    for _ in range(3):
        give(api, game, "软件2", "yellow")  # three yellows: a red, 软件2 ejected
    api.ok("POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "day"})
    live = sqlite_path(db_url)
    assert live is not None
    before = seen_by_the_service(api, game)
    rows = dump(live)
    assert "软件2被红牌罚下" in " ".join(before["announcements"])

    saved = tmp_path / "backups" / "b1.sqlite3"
    assert db_main(["backup", str(saved), "--url", db_url]) == 0  # while the service is up
    assert dump(saved) == rows

    # Later work, then the restore rewinds it (the service stopped first, as documented).
    give(api, game, "软件3", "red")
    api.post(game, "软件4", "另一条帖子")
    later = dump(live)
    assert later != rows
    app.extensions["bansha_db"].dispose()
    assert db_main(["restore", str(saved), "--url", db_url]) == 1  # holds games: needs --force
    assert dump(live) == later
    assert db_main(["restore", str(saved), "--url", db_url, "--force"]) == 0
    assert dump(live) == rows
    kept = list(live.parent.glob(f"{live.name}.before-restore-*"))
    assert len(kept) == 1 and dump(kept[0]) == later  # the replaced data is not lost

    restarted = make_app(db_url)
    again = type(api)(restarted.test_client())
    assert seen_by_the_service(again, game) == before


def test_backup_refuses_to_overwrite_and_restore_refuses_a_foreign_file(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "exists.sqlite3"
    target.write_bytes(b"keep me")
    assert db_main(["backup", str(target), "--url", db_url]) == 1
    assert target.read_bytes() == b"keep me"
    assert "already exists" in capsys.readouterr().err
    empty = tmp_path / "empty.sqlite3"
    sqlite3.connect(empty).close()
    assert db_main(["restore", str(empty), "--url", db_url]) == 1
    assert "not a Bansha database" in capsys.readouterr().err


def test_postgresql_is_pointed_at_pg_dump(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    url = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    assert db_main(["backup", str(tmp_path / "x"), "--url", url]) == 1
    assert "pg_dump" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_make_clean_never_deletes_the_live_database() -> None:
    """A dry run of ``make clean``: no command names var/ itself or the database file in it."""
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        ["make", "-n", "clean"], cwd=root, capture_output=True, text=True, timeout=60, check=True
    )
    commands = result.stdout.split()
    assert "var" not in commands and "var/" not in commands, result.stdout
    assert not any("bansha.sqlite3" in c or c.rstrip("/").endswith("var/*") for c in commands)
    assert "var/model.skops" in commands  # a build product, remade by `make model`


@pytest.mark.postgres
def test_postgresql_pg_dump_and_pg_restore_replay_to_the_same_state(
    pg_app: Any, api: Any, make_app: Any, tmp_path: Path
) -> None:
    """The documented PostgreSQL backup, on the test server's throw-away schema (``-n``)."""
    import shutil

    if shutil.which("pg_dump") is None or shutil.which("pg_restore") is None:
        pytest.skip("pg_dump/pg_restore not installed")
    app, schema = pg_app
    on = type(api)(app.test_client())
    game = on.make_game()
    on.post(game, "软件1", "你个ＳＢ")
    for _ in range(3):
        give(on, game, "软件2", "yellow")
    before = seen_by_the_service(on, game)
    dump = tmp_path / "bansha.dump"
    target = ["-h", "127.0.0.1", "-U", "postgres", "-n", schema.name]
    subprocess.run(["pg_dump", "-Fc", "-f", str(dump), *target, "test"], check=True, timeout=120)
    give(on, game, "软件3", "red")
    assert seen_by_the_service(on, game) != before
    app.extensions["bansha_db"].dispose()
    subprocess.run(
        ["pg_restore", "--clean", "--if-exists", "-d", "test", *target, str(dump)],
        check=True,
        timeout=120,
    )
    restarted = make_app(schema.url)
    assert seen_by_the_service(type(api)(restarted.test_client()), game) == before
    # the append-only triggers came back with the data
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    engine = restarted.extensions["bansha_db"].write_engine
    with engine.connect() as connection, pytest.raises(DBAPIError, match="append-only"):
        connection.execute(text("DELETE FROM cards"))
