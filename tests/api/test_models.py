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
    assert current_revision(url) == "0007"
    command.downgrade(alembic_config(url), "base")
    assert current_revision(url) is None
    assert "games" not in inspect(make_engine(url)).get_table_names()
    upgrade(url)
    assert current_revision(url) == "0007"


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


def test_nullability_is_read_from_the_annotation_alone() -> None:
    """SQLAlchemy 2 style: ``Mapped[X | None]`` makes a column nullable; no model restates it."""
    for path in sorted((Path(__file__).resolve().parents[2] / "models").glob("*.py")):
        assert "nullable=" not in path.read_text(encoding="utf-8"), path.name
    from models.cards import Card

    assert Card.__table__.c.category.nullable and not Card.__table__.c.colour.nullable


def test_rows_that_belong_together_are_reached_by_relationship(tmp_path: Path) -> None:
    from models.cards import Card, CardAppeal, CardRevocation
    from models.game import GameEvent, Token
    from models.registry import ForumPlayer, PlayerName

    url = f"sqlite:///{tmp_path / 'r.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    at = datetime(2026, 12, 1, tzinfo=UTC)
    with Session(engine) as session, session.begin():
        session.add(Game(id="g", ruleset="m08", seed="s", players=[], commitment="c", version=2,
                         finished=False, accelerated_days=[], created_at=at))  # fmt: skip
        session.flush()
        for seq in (2, 1):
            session.add(GameEvent(game_id="g", seq=seq, kind="k", payload={}, created_at=at))
        session.add(Token(token_hash="0" * 64, game_id="g", kind="director", created_at=at))
        card = Card(game_id="g", character="a", colour="red", source="fixed", category="cheating",
                    escalated_from=[], reason="r", issued_by="d", day=1, created_at=at)  # fmt: skip
        session.add(card)
        session.flush()
        session.add(CardAppeal(game_id="g", card_id=card.id, character="a", text="t",
                               appealed_by="a", created_at=at))  # fmt: skip
        player = ForumPlayer(name="张三", created_at=at)
        session.add(player)
        session.flush()
        session.add_all([PlayerName(name=n, player_id=player.id, created_at=at) for n in "甲乙"])
        card_id, player_id = card.id, player.id
    with Session(engine) as session:
        game = session.get(Game, "g")
        assert game is not None
        assert [e.seq for e in game.events] == [1, 2] and game.events[0].game is game
        assert [t.kind for t in game.tokens] == ["director"]
        stored = session.get(Card, card_id)
        assert stored is not None and stored.revocation is None
        assert stored.appeal is not None and stored.appeal.card is stored
        assert stored.appeal.ruling is None
        assert session.query(CardRevocation).count() == 0
        found = session.get(ForumPlayer, player_id)
        assert found is not None and [n.name for n in found.names] == ["甲", "乙"]
    engine.dispose()


def test_every_audit_action_the_service_writes_is_in_the_closed_set() -> None:
    """The CHECK on ``audit_log.action`` (revision 0007) would refuse any other key at run time."""
    import ast

    from models.audit import AuditAction

    written = set()
    for path in sorted((Path(__file__).resolve().parents[2] / "api").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "audit":
                action = node.args[3] if len(node.args) > 3 else None
                if isinstance(action, ast.Constant):
                    written.add(action.value)
    assert {"forum_intake", "forum_account_mapped", "appeal"} <= written
    assert written <= {a.value for a in AuditAction}
