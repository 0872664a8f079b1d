"""``bansha registry export --csv``: the forum's registry as one CSV row per record line.

Each row is one line of a player's record — a game played (``game``), a card earned (``card``)
or a ban (``ban``) — with the player's id and names, so that a spreadsheet can sort and filter
it. The export is the admin's view (everything, revoked cards and rulings included); it reads
the database directly and needs no token, like ``bansha audit export``.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from models.database import default_database_url

COLUMNS = (
    "player_id",
    "player",
    "names",
    "line",
    "game_id",
    "ruleset",
    "character",
    "substitute",
    "role",
    "faction",
    "result",
    "card_id",
    "colour",
    "article",
    "reason",
    "standing",
    "revoked",
    "appeal_ruling",
    "separate_record",
    "ban_term",
    "ban_in_force",
    "at",
)


def rows(session: Session) -> Iterator[dict[str, Any]]:
    """Every line of every player's record, player by player."""
    from api import player_record as rec
    from api.registry_rules import DEFAULT_PUBLISHED
    from models.registry import ForumPlayer

    for player in session.scalars(select(ForumPlayer).order_by(ForumPlayer.id)):
        record = rec.record(session, player, full=True, published=DEFAULT_PUBLISHED)
        head = {
            "player_id": player.id,
            "player": player.name,
            "names": "、".join(record["player"]["names"]),
        }
        for game in record["games"]:
            yield {
                **head,
                "line": "game",
                "game_id": game["game_id"],
                "ruleset": game["ruleset"],
                "character": game["character"],
                "substitute": "替补" if game["substitute"] else "",
                "role": game["role_name"] or "",
                "faction": game["faction_name"] or "",
                "result": game["result"] or "",
                "at": game["since"],
            }
        for card in record["cards"]:
            appeal = card["appeal"] or {}
            ruling = appeal.get("ruling") or {}
            article = card["article"] or {}
            yield {
                **head,
                "line": "card",
                "game_id": card["game_id"],
                "ruleset": card["ruleset"],
                "character": card["character"],
                "card_id": card["id"],
                "colour": card["colour_name"],
                "article": article.get("code", ""),
                "reason": card["reason"],
                "standing": "yes" if card["standing"] else "no",
                "revoked": (card["revoked"] or {}).get("reason", ""),
                "appeal_ruling": ruling.get("ruling", "") if isinstance(ruling, dict) else "",
                "separate_record": (card["separate_record"] or {}).get("text", ""),
                "at": card["created_at"],
            }
        for ban in record["bans"]:
            yield {
                **head,
                "line": "ban",
                "game_id": ban["game_id"] or "",
                "card_id": ban["card_id"],
                "reason": ban["reason"],
                "ban_term": ban["term"],
                "ban_in_force": "yes" if ban["in_force"] else "no",
                "at": ban["created_at"],
            }


def write_csv(lines: Iterator[dict[str, Any]], out: IO[str]) -> int:
    """Write ``lines`` as CSV with a header; the number of lines written."""
    writer = csv.DictWriter(out, fieldnames=COLUMNS, restval="")
    writer.writeheader()
    count = 0
    for line in lines:
        writer.writerow(line)
        count += 1
    return count


def registry_main(argv: Sequence[str]) -> int:
    """``bansha registry export --csv [--out PATH] [--url URL]``."""
    parser = argparse.ArgumentParser(prog="bansha registry", description="the forum's registry")
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser("export", help="write every player's record as CSV")
    export.add_argument("--csv", action="store_true", required=True, help="CSV (the one format)")
    export.add_argument("--out", type=Path, help="a new file to write (default: standard output)")
    export.add_argument("--url", help="database URL (default: $DATABASE_URL or var/bansha.sqlite3)")
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)

    from api.cli import schema_problem
    from models.database import make_engine

    url = args.url or default_database_url()
    problem = schema_problem(url)
    if problem:
        print(f"bansha registry: {problem}", file=sys.stderr)
        return 1
    if args.out is not None and args.out.exists():
        print(
            f"bansha registry: {args.out} already exists; choose a new file name", file=sys.stderr
        )
        return 1
    engine = make_engine(url, write=False)
    try:
        with Session(engine) as session:
            if args.out is None:
                count = write_csv(rows(session), sys.stdout)
            else:
                with args.out.open("x", encoding="utf-8", newline="") as out:
                    count = write_csv(rows(session), out)
    finally:
        engine.dispose()
    print(f"{count} registry lines", file=sys.stderr)
    return 0
