"""What the service's ``bansha`` subcommands do alike (``api/cli.py``, ``api/intake_cli.py``,
``api/registry_cli.py``): the database URL option, argument parsing that returns an exit code
instead of exiting, the schema check before touching the database, and writing an export to
standard output or to a new file.

Each refusal is printed as ``<prog>: <why>`` on standard error and the command exits 1; nothing
is written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from models.database import default_database_url

URL_HELP = "database URL (default: $DATABASE_URL or var/bansha.sqlite3)"


def shown(url: str) -> str:
    """A database URL fit for printing (password hidden).

    >>> shown("postgresql+psycopg://bansha:s3cret@db/bansha")
    'postgresql+psycopg://bansha:***@db/bansha'
    """
    return make_url(url).render_as_string(hide_password=True)


def add_url_option(parser: argparse.ArgumentParser) -> None:
    """``--url URL``: the database to work on (default: the service's)."""
    parser.add_argument("--url", help=URL_HELP)


def parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace | int:
    """The parsed arguments, or the exit code argparse chose (``--help``: 0, bad arguments: 2)."""
    try:
        return parser.parse_args(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)


def schema_problem(url: str) -> str | None:
    """Why the code cannot run on the database at ``url`` (no schema, or an older one), or None."""
    from alembic.script import ScriptDirectory

    from models.migrate import alembic_config, current_revision

    current = current_revision(url)
    if current is None:
        return f"the database at {shown(url)} has no schema; run 'bansha db upgrade' first"
    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    if current != head:
        return (
            f"the database at {shown(url)} is at schema revision {current}, this code needs "
            f"{head}; run 'bansha db upgrade' first"
        )
    return None


def refuse(prog: str, why: str) -> int:
    """Print ``prog: why`` on standard error; the exit code of a refusal (1)."""
    print(f"{prog}: {why}", file=sys.stderr)
    return 1


def ready_database(prog: str, url: str | None) -> str | None:
    """The database URL to use (``url`` or the service's), or None after saying why it is not
    ready (no schema, or an older one)."""
    chosen = url or default_database_url()
    problem = schema_problem(chosen)
    if problem:
        refuse(prog, problem)
        return None
    return chosen


def free_path(prog: str, out: Path | None) -> bool:
    """Whether ``out`` (None: standard output) may be written; an existing file is refused."""
    if out is not None and out.exists():
        refuse(prog, f"{out} already exists; choose a new file name")
        return False
    return True


def write_out(out: Path | None, write: Callable[[TextIO], int]) -> int:
    """``write`` to standard output, or to the new file ``out``; what ``write`` returns."""
    if out is None:
        return write(sys.stdout)
    with out.open("x", encoding="utf-8", newline="") as stream:
        return write(stream)


def add_export_command(parser: argparse.ArgumentParser, help: str) -> argparse.ArgumentParser:
    """``PROG export [--out PATH] [--url URL]``: the export subcommand, for more options."""
    export = parser.add_subparsers(dest="command", required=True).add_parser("export", help=help)
    export.add_argument("--out", type=Path, help="a new file to write (default: standard output)")
    add_url_option(export)
    return export


def export(
    prog: str, args: argparse.Namespace, prepare: Callable[[Session], Callable[[TextIO], int]]
) -> int | None:
    """Run an export read-only: ``prepare(session)`` checks the request and returns the writer,
    which then writes to ``args.out`` (or standard output). The count written, or None after a
    refusal (the database not ready, the file already there); ``prepare``'s errors propagate
    before any file is made."""
    from models.database import make_engine

    url = ready_database(prog, args.url)
    if url is None or not free_path(prog, args.out):
        return None
    engine = make_engine(url, write=False)
    try:
        with Session(engine) as session:
            return write_out(args.out, prepare(session))
    finally:
        engine.dispose()
