"""``bansha serve``, ``bansha db``, ``bansha token`` and ``bansha audit``.

``bansha serve`` (what ``make run`` starts) runs the app under gunicorn with a few stateless
workers, the way it runs in production; ``--dev`` uses Flask's own server instead. A production
deployment can call gunicorn directly, e.g.::

    DATABASE_URL=postgresql+psycopg://user@host/db gunicorn -w 4 -b 0.0.0.0:8000 'api:create_app()'
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from gunicorn.app.base import BaseApplication
from sqlalchemy.orm import Session

from api.commands import (
    add_export_command,
    add_url_option,
    export,
    parse,
    ready_database,
    refuse,
    schema_problem,
    shown,
)
from models.database import default_database_url

__all__ = ["audit_main", "db_main", "default_workers", "schema_problem", "serve_main", "token_main"]


def default_workers() -> int:
    """Two workers per core, capped: enough to keep a small host busy without oversubscribing."""
    return max(2, min(8, 2 * (os.cpu_count() or 1)))


def serve_main(argv: Sequence[str]) -> int:
    """``bansha serve [--host H] [--port P] [--workers N] [--dev] [--debug]``: run the service."""
    parser = argparse.ArgumentParser(prog="bansha serve", description="run the referee service")
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (8000)")
    parser.add_argument(
        "--workers", type=int, default=default_workers(), help="gunicorn worker processes"
    )
    parser.add_argument("--dev", action="store_true", help="Flask's development server instead")
    parser.add_argument(
        "--debug", action="store_true", help="Flask debug mode (implies --dev; never in production)"
    )
    args = parser.parse_args(list(argv))

    from api.app import create_app

    url = ready_database("bansha serve", None)
    if url is None:
        return 1
    # Built once in the parent: the model and lexicons load once and the workers share the pages.
    app = create_app()
    print(
        f"Bansha Referee on http://{args.host}:{args.port}/ (database: {shown(url)})",
        file=sys.stderr,
    )
    if args.dev or args.debug:
        app.run(host=args.host, port=args.port, debug=args.debug, threaded=True, use_reloader=False)
        return 0
    from api.screening import warm

    print("bansha serve: loading the lexicons and the model ...", file=sys.stderr, flush=True)
    # before the fork: the workers share the tables and answer their first post at once
    warm(use_classifier=bool(app.config.get("USE_CLASSIFIER", True)))
    _Gunicorn(
        app,
        {
            "bind": f"{args.host}:{args.port}",
            "workers": max(1, args.workers),
            "worker_class": "gthread",
            "threads": 4,
            "accesslog": "-",
            "errorlog": "-",
            "post_fork": _forget_parent_connections(app),
        },
    ).run()
    return 0


def _forget_parent_connections(app: Any) -> Any:
    """A gunicorn ``post_fork`` hook: a worker must never reuse the parent's pooled connections."""

    def post_fork(_server: Any, _worker: Any) -> None:
        database = app.extensions["bansha_db"]
        for engine in {database.write_engine, database.read_engine}:
            engine.dispose(close=False)

    return post_fork


class _Gunicorn(BaseApplication):
    """gunicorn driven from Python, so that ``bansha serve`` needs no separate config file."""

    def __init__(self, app: Any, options: dict[str, Any]) -> None:
        self.application = app
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        return self.application


def db_main(argv: Sequence[str]) -> int:
    """``bansha db upgrade|current|backup PATH|restore PATH``: manage the schema and backups.

    ``backup`` copies a live SQLite database with SQLite's online backup API (safe while the
    service writes); ``restore`` puts such a copy back, then migrates it to this code's schema.
    Restore with the service stopped: its workers cache games by log length, which a restore
    rewinds. PostgreSQL is backed up with pg_dump (docs/api.md, "Backups").
    """
    parser = argparse.ArgumentParser(prog="bansha db", description="manage the database schema")
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("upgrade", help="create or migrate the schema to the latest revision")
    add_url_option(up)
    up.add_argument("--revision", default="head")
    add_url_option(sub.add_parser("current", help="print the schema revision"))
    save = sub.add_parser("backup", help="copy the live SQLite database to a new file")
    save.add_argument("path", type=Path, help="the backup file to create (must not exist)")
    add_url_option(save)
    load = sub.add_parser(
        "restore", help="replace the SQLite database with a backup (service stopped)"
    )
    load.add_argument("path", type=Path, help="a file written by 'bansha db backup'")
    add_url_option(load)
    load.add_argument(
        "--force", action="store_true", help="replace a database that holds games (kept beside it)"
    )
    args = parse(parser, argv)
    if isinstance(args, int):
        return args

    from models.backup import BackupError, backup, restore
    from models.migrate import MigrationRefused, current_revision, upgrade

    url = args.url or default_database_url()
    if args.command == "upgrade":
        try:
            upgrade(url, args.revision)
        except MigrationRefused as exc:
            return refuse("bansha db upgrade", str(exc))
        print(f"database at {shown(url)} is at revision {current_revision(url)}")
        return 0
    if args.command == "current":
        print(current_revision(url) or "(empty: run 'bansha db upgrade')")
        return 0
    try:
        if args.command == "backup":
            revision = backup(url, args.path)
            print(f"backed up {shown(url)} (revision {revision}) to {args.path}")
            return 0
        restored = restore(url, args.path, force=args.force)
    except BackupError as exc:
        return refuse(f"bansha db {args.command}", str(exc))
    if restored.kept is not None:
        print(f"the replaced data is kept in {restored.kept}", file=sys.stderr)
    upgrade(url)
    print(
        f"restored {args.path} (revision {restored.revision}) into {shown(url)}, "
        f"now at revision {current_revision(url)}"
    )
    return 0


def token_main(argv: Sequence[str]) -> int:
    """``bansha token rotate-director GAME`` / ``bansha token list GAME``: the operator's tokens.

    A director token is the root of its game, so only the operator (who holds the database)
    revokes it: ``rotate-director`` revokes the game's live director token and prints a new one,
    once. Running servers refuse the old token from the commit on. ``list`` shows a game's tokens
    (who holds each, when issued, whether revoked), never the tokens themselves.
    """
    parser = argparse.ArgumentParser(prog="bansha token", description="revoke and reissue tokens")
    sub = parser.add_subparsers(dest="command", required=True)
    rotate = sub.add_parser(
        "rotate-director", help="revoke a game's director token and print a new one (once)"
    )
    rotate.add_argument("game_id")
    rotate.add_argument("--reason", default="", help="why, for the audit trail")
    add_url_option(rotate)
    listing = sub.add_parser("list", help="a game's tokens: holder, issued, revoked")
    listing.add_argument("game_id")
    add_url_option(listing)
    args = parse(parser, argv)
    if isinstance(args, int):
        return args

    from api.errors import NotFound
    from models.database import make_engine

    url = ready_database("bansha token", args.url)
    if url is None:
        return 1
    engine = make_engine(url)
    from api.actors import OPERATOR, acting_as

    try:
        with acting_as(OPERATOR), Session(engine) as session, session.begin():
            if args.command == "list":
                lines = _token_lines(session, args.game_id)
            else:
                revoked, token = _rotate_director(session, args.game_id, args.reason)
    except NotFound as exc:
        return refuse("bansha token", exc.message)
    finally:
        engine.dispose()
    if args.command == "list":
        print("\n".join(lines))
        return 0
    print(
        f"revoked {revoked} director token(s) of game {args.game_id}; the new one, shown only now:",
        file=sys.stderr,
    )
    print(token)
    return 0


def _token_lines(session: Session, game_id: str) -> list[str]:
    """One tab-separated line per token of the game: id, kind, character, issued, state."""
    from sqlalchemy import select

    from api.store import get_game
    from models.game import Token

    get_game(session, game_id)
    lines = []
    for row in session.scalars(select(Token).where(Token.game_id == game_id).order_by(Token.id)):
        state = f"revoked {row.revoked_at.isoformat()}" if row.revoked_at else "live"
        fields = (row.id, row.kind, row.character or "-", row.created_at.isoformat(), state)
        lines.append("\t".join(str(f) for f in fields))
    return lines


def _rotate_director(session: Session, game_id: str, reason: str) -> tuple[int, str]:
    """Under the game's lock: revoke its live director token, issue a new one, audit both."""
    from api.auth import DIRECTOR
    from api.store import lock_game
    from api.tokens import replace_token

    lock_game(session, game_id)
    revoked, token = replace_token(
        session,
        game_id,
        DIRECTOR,
        None,
        reissue=True,
        actor="operator",
        detail={"reason": reason},
    )
    assert token is not None
    return len(revoked), token


def audit_main(argv: Sequence[str]) -> int:
    """``bansha audit export [--game ID] [--action A] [--format csv|jsonl] [--out PATH]``.

    Every entry (of one game, or of all) in the order written, with the authenticated identity
    of each; to standard output unless ``--out`` names a new file.
    """
    parser = argparse.ArgumentParser(prog="bansha audit", description="read the audit trail")
    command = add_export_command(parser, "write the audit trail as CSV or JSON Lines")
    command.add_argument("--game", help="only this game's entries")
    command.add_argument("--action", help="only this kind of entry (decision, card, revocation, …)")
    command.add_argument("--format", choices=("csv", "jsonl"), default="jsonl")
    args = parse(parser, argv)
    if isinstance(args, int):
        return args

    from api.audit_trail import WRITERS, entries, parse_action
    from api.errors import ApiError
    from api.store import get_game

    def prepare(session: Session) -> Callable[[TextIO], int]:
        action = parse_action(args.action)
        if args.game:
            get_game(session, args.game)
        rows = entries(session, args.game, action=action)
        return lambda out: WRITERS[args.format](rows, out)

    try:
        count = export("bansha audit", args, prepare)
    except ApiError as exc:
        return refuse("bansha audit", exc.message)
    if count is None:
        return 1
    print(f"{count} audit entries", file=sys.stderr)
    return 0
