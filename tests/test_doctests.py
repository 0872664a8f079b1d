"""Every ``>>>`` example in every package's docstrings runs, and is correct.

One walker for the whole tree: the packages are the ones ``pyproject.toml`` ships
(``[tool.setuptools.packages.find] include``), so a new package is covered the day it is added.
Examples are read from each module's *source file*, not found through the imported objects:
setup.py compiles the game core's hot modules with mypyc, and ``doctest.testmod`` finds no
examples in a compiled module (its functions are not Python functions). The examples still run
against the module as imported, compiled or not, so they check the code that ships.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: modules whose examples document a whole API: at least this many must run
MINIMUM_EXAMPLES = {"game_rules.votes": 20, "game_rules.penalties": 15}


def shipped_packages() -> list[str]:
    """Top-level packages ``pip install .`` ships, from pyproject.toml (the one list)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["packages"]["find"]["include"]
    return [p.removesuffix("*") for p in patterns]


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules_with_examples() -> list[tuple[str, Path]]:
    """(module, source file) of every shipped module whose source holds an example."""
    found = []
    for package in shipped_packages():
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>> " in path.read_text(encoding="utf-8"):
                found.append((_module_name(path), path))
    return found


def _docstrings(tree: ast.Module) -> list[tuple[str, str, int]]:
    """(qualified name, docstring, line) of the module and of every class and function in it."""
    found: list[tuple[str, str, int]] = []
    if (doc := ast.get_docstring(tree, clean=False)) is not None:
        found.append(("", doc, 0))

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                doc = ast.get_docstring(child, clean=False)
                if doc is not None:
                    found.append((name, doc, child.lineno))
                visit(child, f"{name}.")

    visit(tree, "")
    return found


def run_examples(name: str, path: Path) -> doctest.TestResults:
    """Run every docstring example in ``path``'s source with the imported module's globals."""
    module = importlib.import_module(name)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for qualname, doc, line in _docstrings(ast.parse(path.read_text(encoding="utf-8"))):
        qualified = f"{name}.{qualname}" if qualname else name
        test = parser.get_doctest(doc, dict(vars(module)), qualified, str(path), line)
        if test.examples:
            runner.run(test)
    return runner.summarize(verbose=False)


def test_every_shipped_package_is_walked() -> None:
    """The walker sees the packages the service is made of, and their examples."""
    assert {"game_rules", "moderation", "lexicons", "models", "api", "bansha", "forum"} <= set(
        shipped_packages()
    )
    packages = {name.split(".")[0] for name, _ in modules_with_examples()}
    assert {"game_rules", "moderation", "lexicons", "api", "forum"} <= packages


@pytest.mark.parametrize(
    ("name", "path"), modules_with_examples(), ids=[n for n, _ in modules_with_examples()]
)
def test_docstring_examples(name: str, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the screener's examples describe the lexicon layers, not whichever model is trained
    monkeypatch.setenv("BANSHA_MODEL", "/nonexistent/model.skops")
    result = run_examples(name, path)
    assert result.failed == 0
    assert result.attempted >= MINIMUM_EXAMPLES.get(name, 1)
