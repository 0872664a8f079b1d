"""The server secret in the game core: it drives the deal and every pick, rebuilds stay
deterministic, and a finished game's record verifies (and a tampered one does not)."""

from __future__ import annotations

import pytest

from game_rules import Game, new_game
from game_rules.actions import DeclareFactionLost
from game_rules.errors import LogError
from game_rules.events import GameStarted, RandomPicked
from game_rules.simulation import RandomPolicy, characters_for, play_random_game
from game_rules.verification import RecordError, verification_record, verify_record

SECRET = "5e" * 32
RULESETS = ("m72", "m08", "m08_12", "wa004", "wa004_consent")


def test_the_secret_changes_the_deal_and_the_commitment() -> None:
    names = characters_for("m72")
    plain, a, b = (new_game("m72", names, seed="a", secret=s) for s in ("", SECRET, "6f" * 32))
    assert plain.state.commitment != a.state.commitment != b.state.commitment
    # the same inputs, the same game: replays stay deterministic
    again = new_game("m72", names, seed="a", secret=SECRET)
    assert again.event_dicts() == a.event_dicts()
    assert isinstance(a.log[0], GameStarted) and a.log[0].secret == SECRET


def test_a_rebuild_reads_the_secret_from_the_log_and_checks_it() -> None:
    g = new_game("wa004", characters_for("wa004"), seed="s", secret=SECRET)
    rebuilt = Game.rebuild("wa004", None, "s", g.characters, g.event_dicts())
    assert rebuilt.state.snapshot() == g.state.snapshot()
    assert rebuilt.secret_for_director == SECRET
    tampered = g.event_dicts()
    tampered[0]["secret"] = "00" * 32
    with pytest.raises(LogError) as err:
        Game.rebuild("wa004", None, "s", g.characters, tampered)
    assert err.value.rule == "log_commitment"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_random_games_with_a_secret_verify_and_a_wrong_secret_does_not(ruleset: str) -> None:
    for n in range(3):
        g = play_random_game(ruleset, seed=n, secret=f"{n:064x}")
        record = g.public_view().verification
        assert g.state.ended and record is not None
        assert record["secret"] == f"{n:064x}"
        assert verify_record(record).ok
        assert not verify_record(record | {"secret": "ff" * 32}).ok
        assert not verify_record(record | {"seed": "weak"}).ok
        picks = [e for e in g.log if isinstance(e, RandomPicked)]
        assert len(record["picks"]) == len(picks)


def test_a_weak_seed_alone_does_not_reproduce_a_secret_game() -> None:
    g = new_game("m08", characters_for("m08"), seed="1", secret=SECRET)
    g.apply(DeclareFactionLost("wolves", "测试"))
    record = verification_record(g)
    assert verify_record(record).ok
    guessed = verify_record(record | {"secret": ""})  # the attack: the seed alone
    assert not guessed.ok and not guessed.checks[0].ok


def test_the_public_view_reveals_nothing_before_the_end() -> None:
    g = play_random_game("m72", seed=1, policy=RandomPolicy(max_steps=5))
    assert not g.state.ended
    view = g.public_view()
    assert view.verification is None and view.secret is None and view.seed is None


def test_a_malformed_record_is_a_chinese_error() -> None:
    with pytest.raises(RecordError) as err:
        verify_record({"ruleset": "m72"})
    assert "验证数据" in str(err.value)
