"""tally: weights (sheriff 2 / 1.5), the big crow's hidden +1, ties, 最先获得, the announcement."""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction

import pytest

from game_rules.votes import (
    Ballot,
    BallotBox,
    VoteError,
    format_votes,
    load_vote_policy,
    tally,
)

CLOSE = datetime(2026, 3, 1, 22, 0)
M72 = load_vote_policy("m72")
WA = load_vote_policy("wa004")


def t(minute: int) -> datetime:
    return datetime(2026, 3, 1, 10, minute)


def box_of(*ballots: tuple[str, str | None, int], policy=M72) -> BallotBox:  # type: ignore[no-untyped-def]
    box = BallotBox()
    for voter, target, minute in ballots:
        change = any(b.voter == voter for b in box.history)
        box = box.cast(
            Ballot(voter, target, t(minute), is_change=change), policy=policy, closes_at=CLOSE
        )
    return box


def test_plain_count_and_top() -> None:
    result = tally(box_of(("A", "X", 1), ("B", "X", 2), ("C", "Y", 3)))
    assert dict(result.counts) == {"X": 2, "Y": 1}
    assert result.top() == ("X",)


def test_m72_sheriff_counts_two() -> None:
    result = tally(box_of(("S", "Y", 1), ("A", "X", 2)), {"S": Fraction(2)})
    assert result.counts["Y"] == 2 and result.top() == ("Y",)


def test_m08_sheriff_counts_one_and_a_half() -> None:
    box = box_of(("S", "Y", 1), ("A", "X", 2), ("B", "X", 3), ("C", "Y", 4))
    result = tally(box, {"S": Fraction(3, 2)})
    assert result.counts["Y"] == Fraction(5, 2) and result.counts["X"] == 2
    assert result.top() == ("Y",)
    assert result.announcement() == "Y获得2.5票\nX获得2票"


def test_sheriff_weight_follows_changes() -> None:
    box = box_of(("S", "Y", 1), ("A", "X", 2), ("S", "X", 3))
    assert tally(box, {"S": Fraction(3, 2)}).counts == {"X": Fraction(5, 2)}


def test_tie_is_two_tops() -> None:
    result = tally(box_of(("A", "X", 1), ("B", "Y", 2)))
    assert result.top() == ("X", "Y")


def test_no_votes_no_top() -> None:
    result = tally(BallotBox())
    assert result.top() == () and result.first_to_reach_top() is None
    assert result.announcement() == "本日无有效投票"


def test_all_abstain_no_top() -> None:
    result = tally(box_of(("A", None, 1), ("B", None, 2)))
    assert result.top() == ()
    assert result.announcement() == "弃权2票"


def test_crow_extra_counts_but_is_never_announced() -> None:
    box = box_of(("A", "X", 1), ("B", "Y", 2))
    result = tally(box, extra={"Y": Fraction(1)})
    assert result.counts["Y"] == 2 and result.top() == ("Y",)
    assert result.shown["Y"] == 1
    # the order must not betray the hidden vote either: X's vote came first
    assert result.announcement() == "X获得1票\nY获得1票"


def test_crow_target_without_votes_is_not_listed() -> None:
    result = tally(box_of(("A", "X", 1), ("B", "X", 2)), extra={"Z": Fraction(1)})
    assert result.counts["Z"] == 1
    assert "Z" not in result.announcement()


def test_crow_extra_alone_can_be_top_when_everyone_abstains() -> None:
    result = tally(box_of(("A", None, 1)), extra={"Z": Fraction(1)})
    assert result.top() == ("Z",) and result.announcement() == "弃权1票"


def test_excluded_voter_ballot_does_not_count() -> None:
    result = tally(box_of(("A", "X", 1), ("B", "Y", 2), ("C", "Y", 3)), exclude={"C"})
    assert result.top() == ("X", "Y")


def test_negative_weight_rejected() -> None:
    with pytest.raises(VoteError):
        tally(box_of(("A", "X", 1)), {"A": Fraction(-1)})


def test_wa004_tally_after_acceleration_uses_original_votes() -> None:
    box = box_of(("A", "X", 1), ("B", "X", 2), ("A", "Y", 3), policy=WA)
    assert tally(box).top() == ("X", "Y")
    assert tally(box.accelerate(policy=WA)).counts == {"X": 2}


# --- 最先获得 (first to reach the top count) ------------------------------------------------


def test_first_to_reach_simple() -> None:
    box = box_of(("A", "X", 1), ("B", "Y", 2), ("C", "Y", 3), ("D", "X", 4))
    result = tally(box)
    assert result.top() == ("X", "Y")  # tied; X's counted vote came first
    assert result.first_to_reach_top() == "Y"


def test_first_to_reach_with_a_change_that_moved_a_vote() -> None:
    # X reaches 2 at minute 2, loses one at 3, regains at 6; Y reaches 2 at 5.
    box = box_of(
        ("A", "X", 1), ("B", "X", 2), ("B", "Y", 3), ("C", "Y", 5), ("D", "X", 6), ("E", "Z", 7)
    )
    result = tally(box)
    assert result.counts["X"] == result.counts["Y"] == 2
    assert result.first_to_reach_top() == "X"  # first reached 2 (minute 2)
    assert result.first_to_reach_top(sustained=True) == "Y"  # held 2 since minute 5


def test_first_to_reach_counts_weights() -> None:
    # the sheriff's 2 votes reach 2 at once
    box = box_of(("A", "X", 1), ("S", "Y", 2), ("B", "X", 3))
    assert tally(box, {"S": Fraction(2)}).first_to_reach_top() == "Y"


def test_first_to_reach_single_top_is_that_top() -> None:
    assert tally(box_of(("A", "X", 1), ("B", "X", 2), ("C", "Y", 3))).first_to_reach_top() == "X"


def test_first_to_reach_abstention_change_removes_vote() -> None:
    box = box_of(("A", "X", 1), ("B", "Y", 2), ("A", None, 3), ("C", "X", 4), ("D", "Y", 5))
    result = tally(box)
    assert result.counts == {"X": 1, "Y": 2}
    assert result.first_to_reach_top() == "Y"


# --- announcement -------------------------------------------------------------------------------


def test_announcement_sorted_by_count_then_first_vote() -> None:
    box = box_of(("A", "乙", 1), ("B", "甲", 2), ("C", "甲", 3), ("D", "丙", 4), ("E", "乙", 5))
    assert tally(box).announcement() == "乙获得2票\n甲获得2票\n丙获得1票"


def test_announcement_order_ignores_withdrawn_votes() -> None:
    # 乙's early vote was moved away; its counted vote came after 甲's
    box = box_of(("A", "乙", 1), ("B", "甲", 2), ("A", "丙", 3), ("C", "乙", 4))
    assert tally(box).announcement() == "甲获得1票\n丙获得1票\n乙获得1票"


def test_announcement_counts_abstaining_characters_not_weights() -> None:
    """弃权 is a count of characters: the 1.5-vote sheriff's 弃权 is one character's."""
    box = box_of(("S", None, 1), ("A", "X", 2), ("B", None, 3))
    t = tally(box, {"S": Fraction(3, 2)})
    assert t.announcement() == "X获得1票\n弃权2票"
    assert t.abstentions == Fraction(5, 2)  # the weighted total stays available


def test_format_votes() -> None:
    assert [format_votes(Fraction(n, d)) for n, d in [(3, 2), (5, 1), (7, 2), (1, 4), (2, 3)]] == [
        "1.5",
        "5",
        "3.5",
        "0.25",
        "2/3",
    ]


def test_void_targets_count_for_nobody_and_are_not_announced() -> None:
    """ "白天红牌罚下在被投票出局之前": ballots on a character out before the close are void."""
    box = box_of(("A", "X", 1), ("B", "X", 2), ("C", "X", 3), ("D", "Y", 4), ("E", None, 5))
    result = tally(box, {"D": Fraction(2)}, {"X": Fraction(1)}, void_targets={"X"})
    assert dict(result.counts) == {"Y": 2} and result.top() == ("Y",)
    assert result.announcement() == "Y获得2票\n弃权1票"
