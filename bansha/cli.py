"""Dispatch ``bansha SUBCOMMAND ...`` to the owning package.

Each subcommand lives next to the code it drives; this module only knows where. Imports are lazy so
that ``bansha replay`` never pays for loading scikit-learn or Flask.

>>> print(" ".join(sorted(SUBCOMMANDS)))
audit db follow import registry replay screen screen-invariance serve token train verify
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence

# subcommand -> (module, function, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str, str]] = {
    "replay": ("game_rules.cli", "replay_main", "replay a YAML game script, print announcements"),
    "verify": ("game_rules.cli", "verify_main", "recompute a finished game's deal and picks"),
    "screen": ("moderation.cli", "screen_main", "screen posts for rule violations"),
    "screen-invariance": (
        "moderation.evasions",
        "main",
        "share of violations still caught when disguised, per evasion kind",
    ),
    "train": ("bansha.train", "train_main", "train the post classifier and write its report"),
    "serve": ("api.cli", "serve_main", "run the referee web service"),
    "db": ("api.cli", "db_main", "manage the database: upgrade, backup, restore"),
    "token": ("api.cli", "token_main", "rotate a game's director token, list a game's tokens"),
    "audit": ("api.cli", "audit_main", "export the audit trail (CSV or JSON Lines)"),
    "registry": ("api.registry_cli", "registry_main", "export the forum's player records (CSV)"),
    "import": ("api.intake_cli", "import_main", "import a saved Tieba / Discuz! thread page"),
    "follow": ("forum.cli", "follow_main", "follow a Discuz! thread and submit its new posts"),
}


def _usage() -> str:
    lines = ["usage: bansha SUBCOMMAND [ARGS...]", "", "subcommands:"]
    lines += [f"  {name:<17} {help_}" for name, (_, _, help_) in SUBCOMMANDS.items()]
    lines.append("")
    lines.append("Run 'bansha SUBCOMMAND --help' for a subcommand's options.")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand and return its exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help", "help"}:
        print(_usage())
        return 0
    name, rest = args[0], args[1:]
    if name not in SUBCOMMANDS:
        print(f"bansha: unknown subcommand {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module_name, func_name, _ = SUBCOMMANDS[name]
    func: Callable[[list[str]], int] = getattr(importlib.import_module(module_name), func_name)
    return func(rest)
