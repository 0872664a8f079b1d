"""``bansha serve`` and ``bansha db``.

``bansha serve`` runs Flask's own (threaded) server, meant for development and ``make run``. In
production run several stateless workers with gunicorn, e.g.::

    DATABASE_URL=postgresql+psycopg://user@host/db gunicorn -w 4 -b 0.0.0.0:8000 'api:create_app()'
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from sqlalchemy.engine import make_url

from models.database import default_database_url


def shown(url: str) -> str:
    """A database URL fit for printing (password hidden).

    >>> shown("postgresql+psycopg://bansha:s3cret@db/bansha")
    'postgresql+psycopg://bansha:***@db/bansha'
    """
    return make_url(url).render_as_string(hide_password=True)


def serve_main(argv: Sequence[str]) -> int:
    """``bansha serve [--host H] [--port P] [--debug]``: run the service with Flask's server."""
    parser = argparse.ArgumentParser(prog="bansha serve", description="run the referee service")
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (8000)")
    parser.add_argument(
        "--debug", action="store_true", help="Flask debug mode (never in production)"
    )
    args = parser.parse_args(list(argv))

    from api.app import create_app
    from models.migrate import current_revision

    url = default_database_url()
    if current_revision(url) is None:
        print(
            f"bansha serve: the database at {shown(url)} has no schema; "
            "run 'bansha db upgrade' first",
            file=sys.stderr,
        )
        return 1
    app = create_app()
    print(
        f"Bansha Referee on http://{args.host}:{args.port}/ (database: {shown(url)})",
        file=sys.stderr,
    )
    app.run(host=args.host, port=args.port, debug=args.debug, threaded=True, use_reloader=False)
    return 0


def db_main(argv: Sequence[str]) -> int:
    """``bansha db upgrade [--url URL]`` / ``bansha db current``: manage the schema."""
    parser = argparse.ArgumentParser(prog="bansha db", description="manage the database schema")
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("upgrade", help="create or migrate the schema to the latest revision")
    up.add_argument("--url", help="database URL (default: $DATABASE_URL or var/bansha.sqlite3)")
    up.add_argument("--revision", default="head")
    cur = sub.add_parser("current", help="print the schema revision")
    cur.add_argument("--url")
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)

    from models.migrate import current_revision, upgrade

    url = args.url or default_database_url()
    if args.command == "upgrade":
        upgrade(url, args.revision)
        print(f"database at {shown(url)} is at revision {current_revision(url)}")
        return 0
    print(current_revision(url) or "(empty: run 'bansha db upgrade')")
    return 0
