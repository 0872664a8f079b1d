"""Statements run on the driver's cursor (models.driver) store what ``execute`` would store.

The single-post path inserts its row through :class:`models.driver.Prepared`; a batch takes
SQLAlchemy's ``execute``. The same post stored both ways must leave the same bytes in the table.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from typing import Any

from flask import Flask

from api.ingest import _INSERT_NEW_POSTS, _INSERT_ONE_POST
from models.database import sqlite_path

FINDINGS = [
    {
        "category": "insult",
        "article": {"ruleset": "m72", "code": "2(5)", "text": "人身攻击"},
        "start": 0,
        "end": 2,
        "match": "傻逼",
        "confidence": 0.9,
    }
]


def _row(game_id: str, forum_id: str) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "forum_post_id": forum_id,
        "author": "软件2",
        "thread": "discussion",
        "day": 1,
        "body": "傻逼，站边软件5",
        "posted_at": datetime(2026, 11, 29, 20, 0, tzinfo=UTC),
        "is_water": False,
        "counts_activity": True,
        "zombie": False,
        "findings": FINDINGS,
        "vote": None,
        "created_at": datetime(2026, 11, 29, 20, 0, 1, 250, tzinfo=UTC),
    }


def _stored(app: Flask, forum_id: str) -> tuple[Any, ...]:
    """The raw row as SQLite holds it (no type processing on the way out), without its keys."""
    path = sqlite_path(app.config["DATABASE_URL"])
    with sqlite3.connect(str(path)) as raw:
        cursor = raw.execute("SELECT * FROM posts WHERE forum_post_id = ?", (forum_id,))
        names = [d[0] for d in cursor.description]
        row = cursor.fetchone()
    return tuple(v for n, v in zip(names, row, strict=True) if n not in ("id", "forum_post_id"))


def test_a_prepared_insert_stores_the_bytes_execute_stores(app: Flask, dealt_game: Any) -> None:
    gid, _ = dealt_game(app, "driver")
    database = app.extensions["bansha_db"]
    with database.write_connection() as connection:
        through_core = list(connection.execute(_INSERT_NEW_POSTS["sqlite"], _row(gid, "core")))
        through_driver = list(_INSERT_ONE_POST.run(connection, _row(gid, "driver")))
    assert [f for _, f in through_core] == ["core"] and [f for _, f in through_driver] == ["driver"]
    assert _stored(app, "driver") == _stored(app, "core")


def test_a_prepared_insert_skips_a_stored_forum_id(app: Flask, dealt_game: Any) -> None:
    gid, _ = dealt_game(app, "driver-dup")
    database = app.extensions["bansha_db"]
    with database.write_connection() as connection:
        assert len(list(_INSERT_ONE_POST.run(connection, _row(gid, "same")))) == 1
        assert list(_INSERT_ONE_POST.run(connection, _row(gid, "same"))) == []
