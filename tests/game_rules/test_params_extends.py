"""Variant ruleset files: ``extends: <id>`` plus only what differs."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from game_rules import params as params_module
from game_rules.errors import ParameterError, UnknownRulesetError
from game_rules.params import available_ruleset_files, load_params
from game_rules.simulation import play_random_game

SAME_EXCEPT = ("id", "name", "raw")


def _fields(p: params_module.RulesetParams) -> dict[str, object]:
    return {f.name: getattr(p, f.name) for f in dataclasses.fields(p) if f.name not in SAME_EXCEPT}


def test_m08_12_is_m08_with_one_more_villager() -> None:
    base, variant = load_params("m08"), load_params("m08_12")
    assert (variant.id, variant.engine, variant.player_count) == ("m08_12", "m08", 12)
    assert variant.roles["villager"] == dataclasses.replace(base.roles["villager"], count=5)
    mine, theirs = _fields(variant), _fields(base)
    for key in ("player_count", "roles"):
        mine.pop(key), theirs.pop(key)
    assert mine == theirs  # sheriff 1.5, ties, three last words, night order...: all m08's
    assert sorted(variant.deal_list()) == sorted([*base.deal_list(), "villager"])


def test_wa004_consent_changes_only_the_ntr_reading() -> None:
    base, variant = load_params("wa004"), load_params("wa004_consent")
    assert variant.id == "wa004_consent" and variant.engine == "wa004"
    assert variant.extra["rules"] == {**base.extra["rules"], "ntr_consent": "asked"}
    mine, theirs = _fields(variant), _fields(base)
    mine["extra"] = {k: v for k, v in variant.extra.items() if k != "rules"}
    theirs["extra"] = {k: v for k, v in base.extra.items() if k != "rules"}
    assert mine == theirs
    assert "wa004_consent" in available_ruleset_files()
    game = play_random_game("wa004_consent", 5)
    assert game.outcome().ended and game.ruleset.asks_consent  # type: ignore[attr-defined]


@pytest.fixture
def files(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """Fake ruleset files, served instead of the package's (the lookup cache is cleared)."""
    fake: dict[str, str] = {}
    real = params_module._ruleset_text

    def text(name: str) -> str:
        return fake[name] if name in fake else real(name)

    monkeypatch.setattr(params_module, "_ruleset_text", text)
    params_module._read_yaml.cache_clear()
    params_module._plain_params.cache_clear()
    yield fake
    params_module._read_yaml.cache_clear()
    params_module._plain_params.cache_clear()


def test_a_variant_of_a_variant_and_an_id_from_the_file_name(files: dict[str, str]) -> None:
    files["m08_13.yaml"] = "extends: m08_12\nplayer_count: 13\nroles: {villager: {count: 6}}\n"
    p = load_params("m08_13")
    assert (p.id, p.player_count, p.roles["villager"].count, p.sheriff_weight) == (
        "m08_13",
        13,
        6,
        load_params("m08").sheriff_weight,
    )


def test_extends_loops_and_unknown_bases_are_named(files: dict[str, str]) -> None:
    files["loop_a.yaml"] = "extends: loop_b\n"
    files["loop_b.yaml"] = "extends: loop_a\n"
    with pytest.raises(ParameterError, match="loop_a -> loop_b"):
        load_params("loop_a")
    files["orphan.yaml"] = "extends: nowhere\n"
    with pytest.raises(UnknownRulesetError, match=r"orphan\.yaml extends 'nowhere'"):
        load_params("orphan")
    files["odd.yaml"] = "extends: [m08]\n"
    with pytest.raises(ParameterError, match="extends must name a ruleset file"):
        load_params("odd")


@pytest.mark.parametrize("bad", ["../rulesets/m08", "m08.votes", "M08", "m08/", "", "x" * 65])
def test_ruleset_ids_are_file_stems_never_paths(bad: str) -> None:
    with pytest.raises(UnknownRulesetError, match="规则集编号只含 a-z、0-9 和 _"):
        load_params(bad)


def test_an_extends_that_is_a_path_is_refused(files: dict[str, str]) -> None:
    files["sneaky.yaml"] = "extends: ../rulesets/m08\n"
    with pytest.raises(UnknownRulesetError, match=r"sneaky\.yaml extends"):
        load_params("sneaky")
