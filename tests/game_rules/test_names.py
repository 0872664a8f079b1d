"""Character names (issue 12, item 4): NFKC-normalised at creation and refused when they hide
invisible characters, collide, or are vote keywords; votes never match through invisibles."""

from __future__ import annotations

import pytest

from game_rules import new_game
from game_rules.errors import CharacterNameError, UnknownCandidateError
from game_rules.names import normalise_names, strip_invisible
from game_rules.votes import parse_vote

NAMES = [f"角色{i:02}" for i in range(1, 13)]
#: one of each kind a post can hide: zero-width space / joiner, BOM, word joiner, soft hyphen,
#: the bidi controls (RLO, LRI, RLM, ALM), a control character
INVISIBLE = ["\u200b", "\u200d", "\ufeff", "\u2060", "\u00ad", "\u202e", "\u2066", "\u200f",
             "\u061c", "\u0007"]  # fmt: skip


@pytest.mark.parametrize("ch", INVISIBLE)
def test_a_name_with_an_invisible_character_is_refused(ch: str) -> None:
    with pytest.raises(CharacterNameError) as err:
        new_game("m72", [f"角{ch}色01", *NAMES[1:]], seed="n")
    assert err.value.rule == "name_invisible"
    assert "角色01" in err.value.message and f"U+{ord(ch):04X}" in err.value.message


def test_names_are_nfkc_normalised() -> None:
    game = new_game("m72", ["ＡＢＣ", "①", *NAMES[2:]], seed="n")
    assert game.characters[:2] == ("ABC", "1")


@pytest.mark.parametrize(
    ("first", "second"),
    [("ABC", "ＡＢＣ"), ("abc", "ABC"), ("A B", "AB"), ("饺子", "饺子")],
)
def test_names_that_collide_after_normalisation_are_refused(first: str, second: str) -> None:
    with pytest.raises(CharacterNameError) as err:
        normalise_names([first, second])
    assert err.value.rule == "name_collision" and second in err.value.message


@pytest.mark.parametrize("name", ["弃权", "弃 权", "投票对象", "我的改票理由", "改票 理由"])
def test_a_vote_keyword_is_not_a_name(name: str) -> None:
    with pytest.raises(CharacterNameError) as err:
        normalise_names([name])
    assert err.value.rule == "name_keyword" and "请换一个名字" in err.value.message


def test_a_rebuild_keeps_names_as_stored() -> None:
    from game_rules import Game

    game = new_game("m72", NAMES, seed="n")
    again = Game.rebuild("m72", None, "n", game.characters, game.event_dicts())
    assert again.characters == game.characters


@pytest.mark.parametrize("ch", INVISIBLE)
def test_a_vote_never_matches_through_invisible_characters(ch: str) -> None:
    candidates = {"饺子": [], "饺": [], "包子": []}
    # hidden inside the name: still the name written, not another one or an unknown
    vote = parse_vote(f"投票对象：饺{ch}子\n投票理由：可疑", candidates)
    assert vote.target == "饺子"
    # a name followed by an invisible character is that name, nothing longer
    assert parse_vote(f"投票对象：饺{ch}\n投票理由：可疑", candidates).target == "饺"
    # an invisible character does not turn 弃权 into a name, nor a name into 弃权
    assert parse_vote(f"投票对象：弃{ch}权\n投票理由：不知道", candidates).target is None
    with pytest.raises(UnknownCandidateError):
        parse_vote(f"投票对象：{ch}\u4e00\n投票理由：可疑", candidates)


def test_strip_invisible_keeps_line_breaks_and_visible_text() -> None:
    assert strip_invisible("a\u200b\nb\u202ec\td") == "a\nbc\td"
    assert strip_invisible("投票对象：饺子") == "投票对象：饺子"
