"""The lexicon data files: well-formed, consistent with each other and with the seeds."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from lexicons.loader import (
    CATEGORIES,
    known_rulesets,
    load_allow,
    load_articles,
    load_game_vocab,
    load_patterns,
    load_terms,
)
from moderation.normalize import fold_term

#: each ruleset's seed file, in the seeds' folder (the ``seeds_dir`` fixture, tests/conftest.py)
SEEDS = {
    "wa004": "000_534010cfb8826d2e.txt",
    "m72": "001_5989b70b7af6ef2e.txt",
    "m08": "003_ceb227e7972d5865.txt",
}


def test_rulesets() -> None:
    assert known_rulesets() == ("m08", "m72", "wa004")


def test_every_term_and_pattern_article_exists_where_its_category_applies() -> None:
    keys = [(e.category, e.article, e.source) for e in load_terms()]
    keys += [(p.category, p.article, p.id) for p in load_patterns()]
    for ruleset in known_rulesets():
        cats = load_articles(ruleset).categories
        for category, article, where in keys:
            if category in cats:
                known = cats[category].articles.keys() | cats[category].unruled
                assert article in known, (ruleset, where, article)


def test_m72_cites_2_8_under_meta_and_no_other_ruleset_has_it() -> None:
    """`cite` (another player's 贴脸 as a reason) is M72 2(8), a `meta` clause; M08 and wa004
    have no meta category, so a citation is no finding there."""
    meta = load_articles("m72").categories["meta"]
    assert meta.articles["cite"].code == "2(8)"
    assert meta.articles["cite"].text == "以“贴脸”作为讨论依据"
    for ruleset in known_rulesets():
        cats = load_articles(ruleset).categories
        for category in ("oath", "emotional"):
            assert "cite" not in cats[category].articles.keys() | cats[category].unruled, ruleset
        if ruleset != "m72":
            assert "meta" not in cats


def test_applicability_follows_the_seeds() -> None:
    applies = {r: set(load_articles(r).categories) for r in known_rulesets()}
    assert "real_life" in applies["m08"] and "real_life" not in applies["m72"] | applies["wa004"]
    assert "meta" in applies["m72"] and "meta" not in applies["m08"] | applies["wa004"]
    assert "font" in applies["m72"] and "font" in applies["wa004"] and "font" not in applies["m08"]
    for r in known_rulesets():
        assert {"insult", "oath", "vest", "director", "evidence", "emotional"} <= applies[r]


def test_terms_are_unique_per_category_and_fold_to_something() -> None:
    counts = Counter((fold_term(e.term), e.category) for e in load_terms())
    assert [k for k, n in counts.items() if n > 1] == []
    assert all(fold_term(e.term) for e in load_terms())
    assert {e.category for e in load_terms()} == set(CATEGORIES)


def test_game_vocabulary_and_allow_list_load() -> None:
    words = {w for w, _, _ in load_game_vocab()}
    assert {"查杀", "金水", "悍跳", "倒钩", "警徽流", "抗推", "狼坑"} <= words
    assert any(a.word == "操作" for a in load_allow())


def test_no_numbered_backreferences_in_patterns() -> None:
    for p in load_patterns():
        assert not re.search(r"\\[1-9]", p.regex), p.id


@pytest.mark.parametrize("ruleset", sorted(SEEDS))
def test_article_texts_are_quoted_from_the_seed(ruleset: str, seeds_dir: Path) -> None:
    text = (seeds_dir / SEEDS[ruleset]).read_text(encoding="utf-8")
    for category, body in load_articles(ruleset).categories.items():
        for key, art in body.articles.items():
            if art.text == "导演认为违规的其他行为":
                assert "认为违规的其他行为" in text
                continue
            clause = art.code.split("(")[1].rstrip(")")
            assert f"（{clause}）{art.text}" in text, (ruleset, category, key, art.code, art.text)
