"""The direction of dependency in docs/architecture.md, checked on every import in the sources.

The game core and the screener know nothing of each other, of HTTP or of databases; the forum
parsers know no service; the persistence layer may use the core's closed sets (its CHECK
constraints are built from them) but nothing above it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WEB_AND_DB = ("flask", "flask_wtf", "sqlalchemy", "alembic", "psycopg", "gunicorn")

#: package -> the top-level names its modules may not import
FORBIDDEN = {
    "game_rules": ("moderation", "lexicons", "models", "api", "forum", "bansha", *WEB_AND_DB),
    "moderation": ("game_rules", "models", "api", "forum", "bansha", *WEB_AND_DB),
    "lexicons": ("game_rules", "moderation", "models", "api", "forum", "bansha", *WEB_AND_DB),
    "forum": ("game_rules", "moderation", "lexicons", "models", "api", "bansha", *WEB_AND_DB),
    "models": ("moderation", "lexicons", "api", "forum", "bansha", "flask", "flask_wtf"),
}

#: (file, name) crossings that stay, each with its reason
ALLOWED = {
    # the registry's backfill rebuilds each finished game from its log the way the service does
    ("models/migrations/versions/0006_registry.py", "api"),
}


def imported(path: Path) -> set[str]:
    """Top-level names of every module ``path`` imports (at any depth of the file)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_a_package_imports_nothing_above_or_beside_it(package: str) -> None:
    crossings = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for name in sorted(imported(path) & set(FORBIDDEN[package]))
        if (path.relative_to(ROOT).as_posix(), name) not in ALLOWED
    ]
    assert crossings == []


def test_the_check_sees_an_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from moderation.screen import Screener\n")
    assert "moderation" in imported(module)
