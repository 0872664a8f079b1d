"""The ``>>>`` examples in game_rules/penalties.py are documentation: they must run."""

import doctest

import game_rules.penalties


def test_penalties_docstring_examples_run() -> None:
    result = doctest.testmod(game_rules.penalties, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 15
    assert result.failed == 0
