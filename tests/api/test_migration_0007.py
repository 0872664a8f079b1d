"""Migration 0007: closed sets as CHECK constraints (PostgreSQL) or their trigger twins (SQLite).

Its frozen sets are the models' constraints at head; after it, a value outside a set is refused
on both backends; a database whose rows already hold such a value is refused with a message that
names them, and is left at 0006 unchanged; once the rows are corrected the upgrade goes through.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Connection, text
from sqlalchemy.exc import DBAPIError

import models
from api.cli import db_main
from models.base import Base
from models.database import make_engine
from models.migrate import MIGRATIONS_DIR, MigrationRefused, current_revision, upgrade


def _revision_0007() -> Any:
    path = MIGRATIONS_DIR / "versions" / "0007_closed_sets.py"
    spec = importlib.util.spec_from_file_location("revision_0007", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def model_closed_sets() -> dict[tuple[str, str], tuple[str, ...]]:
    """(table, column) -> values of every ``one_of`` CHECK the models declare at head."""
    assert models.__name__  # every table registered
    found = {}
    for table in Base.metadata.tables.values():
        for constraint in table.constraints:
            if "one_of" in constraint.info:
                column, values = constraint.info["one_of"]
                found[(table.name, column)] = values
    return found


def test_the_migration_freezes_the_models_sets_at_head() -> None:
    frozen = _revision_0007().CLOSED_SETS
    assert frozen == model_closed_sets()
    assert len(frozen) >= 15


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def empty_url(request: pytest.FixtureRequest, tmp_path: Any, make_pg_schema: Any) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'closed.sqlite3'}"
        return
    with make_pg_schema() as schema:
        yield schema.url


def _game(connection: Connection, game_id: str = "g1") -> None:
    connection.execute(
        text(
            "INSERT INTO games (id, ruleset, seed, players, commitment, version, finished, "
            "accelerated_days, created_at) VALUES (:id, 'm08', 's', '[]', 'c', 0, false, '[]', "
            ":at)"
        ),
        {"id": game_id, "at": "2026-12-01 00:00:00"},
    )


def _token(connection: Connection, kind: str, n: int, game_id: str = "g1") -> None:
    connection.execute(
        text(
            "INSERT INTO tokens (token_hash, game_id, kind, character, created_at) "
            "VALUES (:h, :g, :kind, NULL, :at)"
        ),
        {"h": f"{n:064d}", "g": game_id, "kind": kind, "at": "2026-12-01 00:00:00"},
    )


def _post(connection: Connection, thread: str, n: int) -> None:
    connection.execute(
        text(
            "INSERT INTO posts (game_id, forum_post_id, author, thread, day, body, posted_at, "
            "is_water, counts_activity, zombie, findings, vote, created_at) VALUES "
            "('g1', :fid, 'a', :thread, 1, 'b', :at, false, true, false, '[]', NULL, :at)"
        ),
        {"fid": f"p{n}", "thread": thread, "at": "2026-12-01 00:00:00"},
    )


def test_after_0007_a_value_outside_its_set_is_refused(empty_url: str) -> None:
    upgrade(empty_url)
    assert current_revision(empty_url) == "0007"
    engine = make_engine(empty_url)
    try:
        with engine.begin() as connection:
            _game(connection)
            _token(connection, "player", 1)
            _post(connection, "vote", 1)
        for insert, bad, name in [
            (_token, "robot", "ck_tokens_kind"),
            (_post, "chat", "ck_posts_thread"),
        ]:
            with pytest.raises(DBAPIError, match=name), engine.begin() as connection:
                insert(connection, bad, 2)
        with engine.connect() as connection:
            kinds = connection.execute(text("SELECT kind FROM tokens")).scalars().all()
            assert kinds == ["player"]
    finally:
        engine.dispose()


def test_rows_outside_a_set_stop_the_upgrade_and_change_nothing(
    empty_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    upgrade(empty_url, "0006")
    engine = make_engine(empty_url)
    try:
        with engine.begin() as connection:
            _game(connection)
            _token(connection, "robot", 1)
            _token(connection, "robot", 2)
            _post(connection, "chat", 1)
        with pytest.raises(MigrationRefused) as refused:
            upgrade(empty_url)
        message = str(refused.value)
        assert "tokens.kind: 'robot' ×2 (allowed: director, player)" in message
        assert "posts.thread: 'chat' ×1" in message and "bansha db upgrade" in message
        assert current_revision(empty_url) == "0006"
        with engine.begin() as connection:  # nothing of 0007 is in place: still accepted
            _token(connection, "android", 3)
        assert db_main(["upgrade", "--url", empty_url]) == 1
        assert "tokens.kind: 'android' ×1, 'robot' ×2" in capsys.readouterr().err
        with engine.begin() as connection:  # the operator corrects the rows
            connection.execute(text("DELETE FROM tokens WHERE kind IN ('robot', 'android')"))
            connection.execute(text("UPDATE posts SET thread = 'discussion'"))
        upgrade(empty_url)
        assert current_revision(empty_url) == "0007"
    finally:
        engine.dispose()
