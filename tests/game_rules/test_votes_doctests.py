"""The ``>>>`` examples in game_rules/votes.py are part of its documentation: they must run."""

import doctest

import game_rules.votes


def test_votes_docstring_examples_run() -> None:
    result = doctest.testmod(game_rules.votes, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 20
    assert result.failed == 0
