"""Withdrawing a red card's ejection (``WithdrawEjection``): only while it is the latest event."""

from __future__ import annotations

import pytest

from game_rules import CastVote, CloseDay, EndNight, Game, UseSkill
from game_rules.actions import WithdrawEjection
from game_rules.errors import GameOverError, WithdrawalError
from game_rules.events import Carded, EjectionWithdrawn
from game_rules.shorthand import M08_ROLES, announcements, make_game, vote_day

ALL08 = list(M08_ROLES)


def carded_at(game: Game, character: str) -> int:
    """The log position of ``character``'s last red ``Carded``."""
    return max(
        i for i, e in enumerate(game.log) if isinstance(e, Carded) and e.character == character
    )


def in_force(game: Game) -> tuple[dict[str, object], list[str]]:
    """The state without its announcements, and the announcements in force as texts."""
    snapshot = dict(game.state.snapshot())
    del snapshot["announcements"]
    return snapshot, [a.text for a in game.state.announcements]


def to_day2_m08(game: Game) -> None:
    vote_day(game, {c: "村1" for c in ALL08})  # 村1 sheriff
    for w in ("狼A", "狼B", "狼C", "狼D"):
        game.apply(UseSkill(w, "leader_vote", "狼A"))
    game.apply(EndNight())


def test_withdrawing_the_latest_ejection_restores_the_state_and_tells_the_public() -> None:
    game = make_game("m08", M08_ROLES)
    to_day2_m08(game)
    before = in_force(game)
    game.eject("狼A", "恶意破坏")  # the wolf leader: a random successor is picked
    assert "狼A" not in game.state.alive and game.state.flags["leader"] != "狼A"
    events = game.apply(WithdrawEjection("狼A", carded_at(game, "狼A")))
    assert isinstance(events[0], EjectionWithdrawn)
    # the character is back, the leader too; the announcements in force gain the withdrawal
    line = "狼A的红牌已撤销，狼A回到游戏"
    withdrawn = (before[0], [*before[1], line])
    assert in_force(game) == withdrawn
    assert "狼A的红牌已撤销，狼A回到游戏" in announcements(game, 2)
    assert "狼A被红牌罚下" in announcements(game, 2)  # history stays
    public = game.public_view()
    assert "狼A" in public.living() and public.sheriff == "村1"
    rebuilt = Game.rebuild("m08", None, "test", game.characters, game.event_dicts())
    assert in_force(rebuilt) == withdrawn
    # the game goes on as if the card had never been given
    game.apply(CastVote("狼A", "村2"))


def test_withdrawing_a_sheriffs_ejection_gives_the_badge_back() -> None:
    game = make_game("m08", M08_ROLES)
    to_day2_m08(game)
    game.eject("村1", "恶意破坏")
    assert game.public_view().sheriff != "村1"
    game.apply(WithdrawEjection("村1", carded_at(game, "村1")))
    assert game.state.sheriff == "村1" and game.public_view().sheriff == "村1"


def test_m72_deferred_exit_is_withdrawn_too(m72: Game) -> None:
    m72.eject("狂甲", "恶意破坏")  # M72: the exit would follow the day's vote
    m72.apply(WithdrawEjection("狂甲", carded_at(m72, "狂甲")))
    assert not m72.state.flags.get("deferred_cards")
    m72.apply(CastVote("狂甲", "占"))  # may vote again
    m72.apply(CloseDay())
    assert "狂甲" in m72.state.alive


def test_anything_after_the_ejection_makes_it_final(m72: Game) -> None:
    m72.eject("狂甲", "恶意破坏")
    since = carded_at(m72, "狂甲")
    m72.apply(CastVote("占", "狼"))
    log = m72.log
    with pytest.raises(WithdrawalError) as caught:
        m72.apply(WithdrawEjection("狂甲", since))
    assert caught.value.rule == "withdrawal_not_latest"
    assert m72.log == log  # refused: nothing changed


def test_only_a_red_card_that_put_the_character_out_can_be_withdrawn(m72: Game) -> None:
    m72.eject("狂甲", "恶意破坏")
    with pytest.raises(WithdrawalError):
        m72.apply(WithdrawEjection("狂乙", carded_at(m72, "狂甲")))  # another character
    with pytest.raises(WithdrawalError):
        m72.apply(WithdrawEjection("狂甲", 1))  # not a Carded
    m72.eject("狂甲", "再次")  # already out: recorded only
    with pytest.raises(WithdrawalError):
        m72.apply(WithdrawEjection("狂甲", carded_at(m72, "狂甲")))


def test_an_ejection_that_ended_the_game_is_not_withdrawn() -> None:
    game = make_game("m08", M08_ROLES)
    game.eject("狼A", "作弊", faction_loses=True)  # the wolves lose: the game ends
    assert game.state.ended
    with pytest.raises(GameOverError):
        game.apply(WithdrawEjection("狼A", carded_at(game, "狼A")))
