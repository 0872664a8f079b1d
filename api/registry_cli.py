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
from typing import IO, Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.commands import add_export_command, export, parse

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
    command = add_export_command(parser, "write every player's record as CSV")
    command.add_argument("--csv", action="store_true", required=True, help="CSV (the one format)")
    args = parse(parser, argv)
    if isinstance(args, int):
        return args
    count = export(
        "bansha registry", args, lambda session: lambda out: write_csv(rows(session), out)
    )
    if count is None:
        return 1
    print(f"{count} registry lines", file=sys.stderr)
    return 0
