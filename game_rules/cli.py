"""The game core's commands.

``bansha replay SCRIPT [--json] [--private]``: replay a YAML game script and print what happened.
Exit status: 0 replayed (and every ``expect`` held), 1 an ``expect`` failed, 2 bad script.

``bansha verify RECORD [--secret S] [--seed S] [--json]``: recompute a finished game's deal and
every random pick from its published verification record (:mod:`game_rules.verification`).
Exit status: 0 everything matched the commitment, 1 something did not, 2 unreadable record.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from game_rules.errors import GameRuleError
from game_rules.script import ReplayResult, replay_file
from game_rules.state import NIGHT
from game_rules.verification import record_from_json, verify_record


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bansha replay",
        description="Replay a YAML game script: announcements day by day, then the outcome.",
    )
    p.add_argument("script", help="path to the game script (see docs/game-script.md)")
    p.add_argument("--json", action="store_true", help="print one JSON document instead of text")
    p.add_argument(
        "--private",
        action="store_true",
        help="also print, day by day, what each character was told privately (the director's "
        "view: roles, results, 牛头人 questions...); never show this to players mid-game",
    )
    return p


def format_text(result: ReplayResult, *, private: bool = False) -> str:
    """The human-readable replay: 公示 day by day (with ``private``, each day's 私下告知 after
    it), notes, then the outcome."""
    game = result.game
    view = game.public_view()
    told: dict[int, list[str]] = {}
    if private:
        for day, items in result.told().items():
            told[day] = [
                f"{'、'.join(t['to'])}：{line}" for t in items for line in t["text"].splitlines()
            ]
    lines = [f"{game.params.name}（{game.ruleset_id}），{len(game.characters)}名角色"]
    days: dict[int, list[str]] = {}
    for a in view.announcements:
        texts = days.setdefault(a.day, [])
        if a.phase == NIGHT and "  -- 夜晚 --" not in texts:
            texts.append("  -- 夜晚 --")  # a game that ends at night: that night's 公示
        texts.extend(f"  {t}" for t in a.text.splitlines())
    for day in sorted({*days, *told}):
        lines.append("")
        lines.append("== 开局 ==" if day == 0 else f"== 第{day}天 ==")
        lines.extend(days.get(day, ()))
        if told.get(day):
            lines.append("  -- 私下告知 --")
            lines.extend(f"  {t}" for t in told[day])
    if result.notes:
        lines.append("")
        lines.append("== 备注 ==")
        lines.extend(f"  {n}" for n in result.notes)
    cards = result.cards()
    if cards:
        lines.append("")
        lines.append("== 判罚 ==")
        lines.extend(f"  {c}：{text}" for c, text in cards.items())
    lines.append("")
    lines.append("== 结果 ==")
    outcome = game.outcome()
    if not outcome.ended:
        lines.append("  游戏尚未结束")
    lines.extend(f"  {t}" for t in outcome.describe())
    if result.failures:
        lines.append("")
        lines.append("== 与脚本 expect 不符 ==")
        lines.extend(f"  {f}" for f in result.failures)
    return "\n".join(lines)


def replay_main(argv: Sequence[str]) -> int:
    """Entry point of ``bansha replay``."""
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as exc:  # --help, or bad arguments (argparse printed why)
        return int(exc.code or 0)
    try:
        result = replay_file(args.script)
    except GameRuleError as exc:
        print(f"bansha replay: {exc.message}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_dict(private=args.private), ensure_ascii=False, indent=2))
    else:
        print(format_text(result, private=args.private))
    return 1 if result.failures else 0


def _verify_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bansha verify",
        description="Recompute a finished game's deal and every random pick from what it "
        "published (its secret, seed, commitment, deal and picks), and say whether they match.",
    )
    p.add_argument(
        "record",
        help="a JSON file ('-' for standard input): the `verification` object of a finished "
        "game, or a whole response that holds one (GET /api/games/{id}/announcements or /view)",
    )
    p.add_argument("--secret", help="check this secret instead of the record's")
    p.add_argument("--seed", help="check this seed instead of the record's")
    p.add_argument("--json", action="store_true", help="print the checks as one JSON document")
    return p


def _read_record(source: str) -> dict[str, Any]:
    text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    return record_from_json(text)


def verify_main(argv: Sequence[str]) -> int:
    """Entry point of ``bansha verify``: 0 every check matched, 1 a mismatch, 2 bad input."""
    try:
        args = _verify_parser().parse_args(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        record = _read_record(args.record)
        if args.secret is not None:
            record["secret"] = args.secret
        if args.seed is not None:
            record["seed"] = args.seed
        report = verify_record(record)
    except (OSError, ValueError) as exc:  # unreadable file, bad JSON, RecordError
        print(f"bansha verify: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        print("\n".join(report.lines()))
    return 0 if report.ok else 1
