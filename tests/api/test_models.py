"""The models package: migrations both ways, types, URLs and the labelled-examples loader."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from alembic import command
from sqlalchemy import inspect
from sqlalchemy.orm import Session

from models.database import default_database_url, make_engine, normalise_url, sqlite_path
from models.game import Game
from models.labelled import load_labelled_examples
from models.migrate import alembic_config, current_revision, upgrade


def test_migrations_downgrade_and_upgrade_again(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.sqlite3'}"
    upgrade(url)
    assert current_revision(url) == "0006"
    command.downgrade(alembic_config(url), "base")
    assert current_revision(url) is None
    assert "games" not in inspect(make_engine(url)).get_table_names()
    upgrade(url)
    assert current_revision(url) == "0006"


def test_datetimes_come_back_aware_utc(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 't.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    beijing = timezone(timedelta(hours=8))
    with Session(engine) as session, session.begin():
        session.add(Game(id="g", ruleset="m08", seed="s", players=[], commitment="c",
                         version=0, finished=False, accelerated_days=[],
                         created_at=datetime(2026, 11, 29, 20, 0, tzinfo=beijing)))  # fmt: skip
    with Session(engine) as session:
        game = session.get(Game, "g")
        assert game is not None
        assert game.created_at == datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
        assert game.created_at.tzinfo is not None


def test_urls(monkeypatch: object) -> None:
    assert normalise_url("postgresql://u@h/d") == "postgresql+psycopg://u@h/d"
    assert normalise_url("postgresql+psycopg://u@h/d") == "postgresql+psycopg://u@h/d"
    assert sqlite_path("sqlite:///:memory:") is None
    assert sqlite_path("sqlite:////a/b.db") == Path("/a/b.db")
    assert default_database_url().startswith(("sqlite:///", "postgresql+psycopg://"))


def test_no_labelled_examples_in_a_fresh_database(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'l.sqlite3'}"
    upgrade(url)
    assert load_labelled_examples(url) == []
