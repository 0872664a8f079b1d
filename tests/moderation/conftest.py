"""Shared fixtures for the moderation tests: rules-only screeners (no trained model), so results do
not depend on whether ``var/model.skops`` exists."""

from __future__ import annotations

import pytest

from moderation.screen import Screener


@pytest.fixture(scope="session")
def m08() -> Screener:
    return Screener("m08", classifier=None)


@pytest.fixture(scope="session")
def m72() -> Screener:
    return Screener("m72", classifier=None)


@pytest.fixture(scope="session")
def wa004() -> Screener:
    return Screener("wa004", classifier=None)


@pytest.fixture(scope="session")
def screeners(m08: Screener, m72: Screener, wa004: Screener) -> dict[str, Screener]:
    return {"m08": m08, "m72": m72, "wa004": wa004}
