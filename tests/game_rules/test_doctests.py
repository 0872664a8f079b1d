"""The ``>>>`` examples in the game core's docstrings are correct.

They are read from each module's source file, not found through the imported objects: setup.py
compiles the hot modules with mypyc, and ``doctest.testmod`` finds no examples in a compiled
module (its functions are not Python functions). The examples still run against the module as
imported, compiled or not, so they check the code that ships.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest

import game_rules

#: modules whose examples document a whole API: at least this many must run
MINIMUM_EXAMPLES = {"game_rules.votes": 20, "game_rules.penalties": 15}


def _source(module: ModuleType) -> Path:
    compiled_or_not = Path(str(module.__file__))
    if compiled_or_not.name.startswith("__init__."):
        return compiled_or_not.with_name("__init__.py")
    return compiled_or_not.with_name(module.__name__.rsplit(".", 1)[-1] + ".py")


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


def run_examples(module: ModuleType) -> doctest.TestResults:
    """Run every docstring example of ``module``'s source with the module's globals."""
    path = _source(module)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for name, doc, line in _docstrings(ast.parse(path.read_text(encoding="utf-8"))):
        qualified = f"{module.__name__}.{name}" if name else module.__name__
        test = parser.get_doctest(doc, dict(vars(module)), qualified, str(path), line)
        if test.examples:
            runner.run(test)
    return runner.summarize(verbose=False)


def _modules_with_examples() -> list[str]:
    names = ["game_rules"] + [
        m.name for m in pkgutil.walk_packages(game_rules.__path__, prefix="game_rules.")
    ]
    return [n for n in names if ">>> " in _source(importlib.import_module(n)).read_text("utf-8")]


@pytest.mark.parametrize("name", _modules_with_examples())
def test_docstring_examples(name: str) -> None:
    result = run_examples(importlib.import_module(name))
    assert result.failed == 0
    assert result.attempted >= MINIMUM_EXAMPLES.get(name, 1)
