"""The day's clock: ballots ordered by arrival, timed ballots and a 关门 set at any point mix.

The engine reads a time without a UTC offset as UTC and places untimed ballots on a synthetic
clock; until the director schedules 关门 nothing is late (no deadline, 代投 or last-hour rule can
be judged without it). Times near the ends of datetime's range are refused, not overflowed.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from game_rules import CastVote, CloseDay, Game, IllegalActionError, ScheduleDay
from game_rules.events import VoteCast

BEIJING = timezone(timedelta(hours=8))


def _vote_count(game: Game) -> dict[str, str]:
    return {c.voter: str(c.target) for c in game.state.ballots.values()}


def test_close_scheduled_after_untimed_ballots_then_timed_and_untimed_ones(m08: Game) -> None:
    m08.apply(CastVote("狼A", "村2"))  # by arrival, no 关门 yet
    m08.apply(ScheduleDay(closes_at=datetime(2026, 11, 29, 23, tzinfo=BEIJING)))
    m08.apply(CastVote("狼B", "村2", at=datetime(2026, 11, 29, 21, 40, tzinfo=BEIJING)))
    m08.apply(CastVote("狼C", "村3"))  # a second after the last ballot
    assert _vote_count(m08) == {"狼A": "村2", "狼B": "村2", "狼C": "村3"}
    m08.apply(CloseDay())
    assert m08.state.sheriff == "村2"


def test_a_proxy_before_the_close_is_set_is_not_late(m08: Game) -> None:
    asked = datetime(2026, 11, 29, 21, 30, tzinfo=BEIJING)
    m08.apply(CastVote("狼A", "村2", proxy=True, requested_at=asked))
    assert m08.state.ballots["狼A"].requested_at == asked.isoformat()
    # once 关门 is set, the 代投 deadline (half an hour before) is judged again
    m08.apply(ScheduleDay(closes_at=datetime(2026, 11, 29, 22, tzinfo=BEIJING)))
    late = datetime(2026, 11, 29, 21, 45, tzinfo=BEIJING)
    before = m08.state.snapshot()
    with pytest.raises(IllegalActionError) as err:
        m08.apply(CastVote("狼B", "村3", proxy=True, requested_at=late))
    assert err.value.rule == "proxy_late" and m08.state.snapshot() == before


def test_a_timed_ballot_before_any_close_is_counted(m08: Game) -> None:
    m08.apply(CastVote("狼A", "村2", at=datetime(2026, 11, 29, 9, tzinfo=BEIJING)))
    m08.apply(CastVote("狼B", "村2", at=datetime(2026, 11, 29, 10, tzinfo=BEIJING)))
    assert _vote_count(m08) == {"狼A": "村2", "狼B": "村2"}


def test_times_without_an_offset_are_utc(m08: Game) -> None:
    m08.apply(ScheduleDay(closes_at=datetime(2026, 11, 29, 22)))  # 22:00 UTC = 06:00 next day +8
    # 05:30 +08:00 is 21:30 UTC: before the close, whatever the writing
    m08.apply(CastVote("狼A", "村2", at=datetime(2026, 11, 30, 5, 30, tzinfo=BEIJING)))
    before = m08.state.snapshot()
    with pytest.raises(IllegalActionError) as err:  # 22:30 UTC, naive: after the close
        m08.apply(CastVote("狼B", "村2", at=datetime(2026, 11, 29, 22, 30)))
    assert err.value.rule == "vote_closed" and m08.state.snapshot() == before


@pytest.mark.parametrize(
    "action",
    [
        ScheduleDay(closes_at=datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14)))),
        ScheduleDay(closes_at=datetime(9999, 12, 31, 23, 59)),
        CastVote("狼A", "村2", at=datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)),
        CastVote("狼A", "村2", at=datetime(1, 1, 2)),
        CastVote("狼A", "村2", proxy=True, requested_at=datetime(1, 1, 1, tzinfo=UTC)),
    ],
)
def test_times_at_the_ends_of_the_calendar_are_refused(m08: Game, action: object) -> None:
    before = (m08.state.snapshot(), m08.log_length)
    with pytest.raises(IllegalActionError) as err:
        m08.apply(action)  # type: ignore[arg-type]
    assert err.value.rule == "bad_time"
    assert (m08.state.snapshot(), m08.log_length) == before
    m08.apply(CastVote("狼A", "村2"))  # the day goes on
    assert _vote_count(m08) == {"狼A": "村2"}


def test_logs_written_with_offset_less_times_rebuild_the_same(m08: Game) -> None:
    m08.apply(CastVote("狼A", "村2"))
    m08.apply(CastVote("狼A", "村3", is_change=True))
    m08.apply(ScheduleDay(closes_at=datetime(2026, 11, 29, 23)))
    m08.apply(CastVote("狼B", "村3", at=datetime(2026, 11, 29, 20)))
    m08.apply(CastVote("狼C", "村2"))
    old_style = []  # as an engine that kept offset-less clocks wrote them
    for d in m08.event_dicts():
        d = dict(d)
        if d["type"] == VoteCast.TYPE:
            d["at"] = d["at"].replace("+00:00", "")
        if d["type"] == "flag_set" and d["key"] == "closes_at":
            d["value"] = d["value"].replace("+00:00", "")
        old_style.append(d)
    assert any(d["type"] == VoteCast.TYPE and "+" not in d["at"] for d in old_style)
    rebuilt = Game.rebuild("m08", None, m08.seed_for_director, m08.characters, old_style)
    assert _vote_count(rebuilt) == _vote_count(m08)
    rebuilt.apply(CloseDay())
    m08.apply(CloseDay())
    assert rebuilt.state.sheriff == m08.state.sheriff == "村3"
