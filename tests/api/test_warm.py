"""``warm()`` builds every ruleset's screener (and its tables) before gunicorn forks the workers."""

from __future__ import annotations

import gc

from api import screening


def test_warm_builds_each_rulesets_screener_and_freezes_the_heap() -> None:
    before = dict(screening._screeners)
    screening._screeners.clear()
    try:
        screening.warm(("m08", "wa004"), use_classifier=False)
        assert set(screening._screeners) == {("m08", False), ("wa004", False)}
        assert gc.get_freeze_count() > 0  # built objects moved out of the collector's sight
        # the warmed screener is the one later posts get (no second build after the fork)
        warmed = screening._screeners[("m08", False)]
        assert screening.screener("m08", use_classifier=False) is warmed
    finally:
        gc.unfreeze()
        screening._screeners.clear()
        screening._screeners.update(before)
