"""One place per fact (issue 18): each fact below has one source, the others derive from it, and a
second copy that appears or drifts fails here.

- **Categories.** ``game_rules.enums.Category`` is the list (a card is a game fact, and the core is
  the layer the service, the console and the database stand on; the core imports neither the
  screener nor its data). The screener, which may not import the core either, names the subset
  its words find (``lexicons.loader.CATEGORIES``, which the trainer reuses) and its rules find
  (``RULE_CATEGORIES``); ``lexicons/categories.yaml`` holds their Chinese names.
- **Article texts.** The seeds' 判罚依据 are written once for the core
  (``game_rules/rulesets/<id>.penalties.yaml``). The screener cites clauses too and may not read
  the core, so ``lexicons/articles/<id>.yaml`` carries the clauses it cites, each checked here
  against the core's text for the same code.
- **The vote-change limit.** ``max_changes`` in ``rulesets/<engine>.votes.yaml``; a variant or a
  game's params override it only through ``vote_policy:``.
- **UnknownRulesetError** is the game core's; the screener's own refusal is ``NoArticlesError``.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from api import cardrules
from game_rules import new_game
from game_rules.enums import Category
from game_rules.errors import GameRuleError, ParameterError, UnknownRulesetError
from game_rules.params import load_params
from game_rules.penalties import KNOWN_CATEGORIES, load_penalty_rules
from game_rules.werewolf import vote_policy_for
from lexicons.loader import CATEGORIES, RULE_CATEGORIES, known_rulesets, load_articles
from moderation import training
from moderation.screen import VIAS

ROOT = Path(__file__).resolve().parents[1]
RULESETS = ROOT / "game_rules" / "rulesets"
CATEGORY_KEYS = [c.value for c in Category]


def _shipped_sources() -> Iterator[Path]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for pattern in config["tool"]["setuptools"]["packages"]["find"]["include"]:
        yield from sorted((ROOT / pattern.removesuffix("*")).rglob("*.py"))


# -- categories -------------------------------------------------------------------------------


def test_every_layer_derives_its_categories_from_the_core_list() -> None:
    assert set(KNOWN_CATEGORIES) == set(CATEGORY_KEYS)
    names = yaml.safe_load((ROOT / "lexicons" / "categories.yaml").read_text(encoding="utf-8"))
    assert list(names["categories"]) == CATEGORY_KEYS  # every category named, in this order
    assert list(names["via"]) == list(VIAS)  # and every way a finding matches
    screened = [*CATEGORIES, *RULE_CATEGORIES]
    assert screened == [c for c in CATEGORY_KEYS if c in screened]  # a subset, in order
    assert training.CATEGORIES is CATEGORIES
    assert list(cardrules.category_keys()) == CATEGORY_KEYS
    for ruleset in ("m08", "m72", "wa004"):
        assert set(load_penalty_rules(ruleset).categories) <= set(CATEGORY_KEYS)
        assert set(load_articles(ruleset).categories) <= set(screened)


#: (file, name) of the only literal collections of category keys allowed: the screener's lists
OWNERS = {
    ("lexicons/loader.py", "CATEGORIES"),  # what the screener's words find
    ("moderation/training.py", "CORE_CATEGORIES"),  # the goal's three
    ("moderation/speaker.py", "TIELIAN"),  # what a 贴脸 is (M72 2(8))
    # a migration freezes the set as it stood (tests/api/test_migration_0007.py compares it)
    ("models/migrations/versions/0007_closed_sets.py", "_CATEGORIES"),
}


def category_literals(path: Path) -> list[tuple[str, int]]:
    """(assigned name or '', line) of each literal tuple/list/set of 3+ category keys."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    keys = set(CATEGORY_KEYS)
    found = []
    targets: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and node.value is not None:
                targets[id(node.value)] = target.id
                if isinstance(node.value, ast.Call):  # frozenset({...}), tuple([...])
                    targets.update((id(arg), target.id) for arg in node.value.args)
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            strings = [
                e.value
                for e in node.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            ]
            if len(strings) >= 3 and set(strings) <= keys:
                found.append((targets.get(id(node), ""), node.lineno))
    return found


def test_no_module_keeps_a_second_list_of_categories() -> None:
    copies = []
    for path in _shipped_sources():
        where = path.relative_to(ROOT).as_posix()
        copies += [
            f"{where}:{line} {name}"
            for name, line in category_literals(path)
            if (where, name) not in OWNERS
        ]
    assert copies == [], "derive these from game_rules.enums.Category or lexicons.loader"


def test_the_copy_detector_sees_a_second_list(tmp_path: Path) -> None:
    module = tmp_path / "copy.py"
    module.write_text('LABELS = ("insult", "oath", "vest", "meta")\nOK = ("insult", "x", "y")\n')
    assert category_literals(module) == [("LABELS", 1)]


# -- article texts ----------------------------------------------------------------------------


def test_the_screeners_clauses_are_the_cores_texts() -> None:
    """Every clause the screener cites has the core's text for its code (drift fails here)."""
    checked = 0
    for ruleset in known_rulesets():
        core = load_penalty_rules(ruleset)
        screener = load_articles(ruleset)
        for category, body in screener.categories.items():
            for key, clause in body.articles.items():
                article = core.article(clause.code)
                assert clause.text == article.text, (ruleset, category, key, clause.code)
                checked += 1
        for key, (clause, _) in screener.fixed.items():
            # a whole article (潜水 "5") cited as one: the core holds its title, the screener a
            # summary of its items under that title
            article = core.article(clause.code)
            summary = f"{article.title}：" if not article.text else article.text
            assert clause.text.startswith(summary), (ruleset, key, clause.code)
            checked += 1
    assert checked > 90


# -- the vote-change limit --------------------------------------------------------------------


def _keys(data: Any, path: str = "") -> Iterator[str]:
    if isinstance(data, dict):
        for key, value in data.items():
            yield f"{path}{key}"
            yield from _keys(value, f"{path}{key}.")


def test_the_change_limit_is_written_once_per_ruleset() -> None:
    for path in sorted(RULESETS.glob("*.yaml")):
        keys = set(_keys(yaml.safe_load(path.read_text(encoding="utf-8"))))
        if path.name.endswith(".votes.yaml"):
            assert "max_changes" in keys, path.name  # said explicitly, never a code default
        else:
            stray = {k for k in keys if k.rsplit(".", 1)[-1] in {"max_changes", "max_vote_changes"}}
            assert stray == set(), f"{path.name}: the limit belongs in the .votes.yaml"


@pytest.mark.parametrize("ruleset", ["m08", "m72", "wa004", "m08_12", "wa004_consent"])
def test_each_game_plays_the_limit_its_votes_file_writes(ruleset: str) -> None:
    params = load_params(ruleset)
    votes = yaml.safe_load((RULESETS / f"{params.engine}.votes.yaml").read_text("utf-8"))
    assert vote_policy_for(params).max_changes == votes["max_changes"]


def test_the_limit_is_overridden_one_way_only() -> None:
    params = load_params("m08", {"vote_policy": {"max_changes": 3}})
    assert vote_policy_for(params).max_changes == 3
    with pytest.raises(ParameterError, match=r"vote_policy: \{max_changes: N\}"):
        load_params("m08", {"max_vote_changes": 3})
    with pytest.raises(ParameterError):
        new_game("m72", [f"角色{i}" for i in range(12)], params={"max_vote_changes": 1})


# -- UnknownRulesetError ----------------------------------------------------------------------


def test_unknown_ruleset_error_is_defined_once() -> None:
    homes = [
        path.relative_to(ROOT).as_posix()
        for path in _shipped_sources()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and node.name == "UnknownRulesetError"
    ]
    assert homes == ["game_rules/errors.py"]
    assert issubclass(UnknownRulesetError, GameRuleError)
