"""The closed sets of game_rules.enums are the only keys in use: the core emits no other (the
console's label tables are checked against them in tests/console/test_label_keys.py)."""

from __future__ import annotations

import pytest

from game_rules import m08, m72
from game_rules.enums import CardColour, Cause, Phase, Skill
from game_rules.events import Eliminated, PhaseStarted
from game_rules.simulation import play_random_game
from game_rules.wa004.roles import NTR_CONSENT
from game_rules.wa004.roles import Skill as Wa004Skill


def test_every_engine_skill_is_a_member() -> None:
    keys = {str(s.value) for s in Skill}
    engines = set(m72.SKILL_ROLES) | set(m08.SKILL_ROLES)
    engines |= {str(s.value) for s in Wa004Skill} | {NTR_CONSENT}
    engines |= {"shoot", "succession", "leader_succession"}  # the decisions
    assert engines == keys


@pytest.mark.parametrize("ruleset", ["m72", "m08", "wa004"])
def test_random_games_use_only_member_causes_and_phases(ruleset: str) -> None:
    causes: set[str] = set()
    phases: set[str] = set()
    for seed in range(15):
        game = play_random_game(ruleset, seed)
        causes |= {e.cause for e in game.log if isinstance(e, Eliminated)}
        phases |= {e.phase for e in game.log if isinstance(e, PhaseStarted)}
    assert causes and causes <= {str(c.value) for c in Cause}
    assert phases <= {str(p.value) for p in Phase}


def test_card_colours_parse_from_the_seeds_words() -> None:
    assert [CardColour.parse(w) for w in ("绿牌", "蓝牌", "黄牌", "红牌")] == list(CardColour)
    assert Cause.DIVINED.chinese == "被占卜" and Cause.RED_CARD == "red_card"
