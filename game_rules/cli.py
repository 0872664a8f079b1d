"""``bansha replay SCRIPT [--json]``: replay a YAML game script and print what happened.

Exit status: 0 replayed (and every ``expect`` held), 1 an ``expect`` failed, 2 bad script.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from game_rules.errors import GameRuleError
from game_rules.script import ReplayResult, replay_file


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bansha replay",
        description="Replay a YAML game script: announcements day by day, then the outcome.",
    )
    p.add_argument("script", help="path to the game script (see docs/game-script.md)")
    p.add_argument("--json", action="store_true", help="print one JSON document instead of text")
    return p


def format_text(result: ReplayResult) -> str:
    """The human-readable replay: 公示 day by day, notes, then the outcome."""
    game = result.game
    view = game.public_view()
    lines = [f"{game.params.name}（{game.ruleset_id}），{len(game.characters)}名角色"]
    for day, texts in view.by_day().items():
        lines.append("")
        lines.append("== 开局 ==" if day == 0 else f"== 第{day}天 ==")
        lines.extend(f"  {t}" for text in texts for t in text.splitlines())
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
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(format_text(result))
    return 1 if result.failures else 0
