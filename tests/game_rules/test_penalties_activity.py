"""activity_penalties: 潜水 and no-vote yellows, per ruleset, at each threshold's edge."""

from __future__ import annotations

import pytest

from game_rules.penalties import (
    CardColour,
    CardSource,
    DayActivity,
    PenaltyError,
    activity_penalties,
)


def days(*posts: int, **kw: object) -> list[DayActivity]:
    return [DayActivity(i + 1, n, **kw) for i, n in enumerate(posts)]  # type: ignore[arg-type]


def kinds(rid: str, ds: list[DayActivity]) -> list[tuple[int, str]]:
    return [(p.day, p.kind) for p in activity_penalties(ds, rules=rid)]


# --- M72 ------------------------------------------------------------------------------------


def test_m72_four_posts_is_yellow_five_is_not() -> None:
    assert kinds("m72", days(4)) == [(1, "posts_day")]
    assert kinds("m72", days(5)) == []


def test_m72_three_days_under_ten() -> None:
    assert kinds("m72", days(9, 9, 9)) == [(3, "posts_three_days")]
    assert kinds("m72", days(9, 10, 9)) == []
    assert kinds("m72", days(9, 9)) == []


def test_m72_three_day_rule_article_and_reason() -> None:
    (p,) = activity_penalties(days(9, 9, 9), rules="m72")
    assert p.article == "5(2)" and p.days == (1, 2, 3) and p.colour is CardColour.YELLOW
    assert "第1日9帖、第2日9帖、第3日9帖" in p.reason
    assert "连续三个未执行加速的讨论日均不足十帖" in p.reason


def test_m72_no_vote_on_a_normal_day() -> None:
    (p,) = activity_penalties(days(20, voted=False), rules="m72")
    assert (p.kind, p.article) == ("no_vote", "5(3)")
    assert "在未执行加速的讨论日未投票" in p.reason


def test_m72_accelerated_day_is_exempt() -> None:
    ds = [DayActivity(1, 0, voted=False, accelerated=True)]
    assert kinds("m72", ds) == []


def test_m72_exemption_is_per_day() -> None:
    # 延迟成功时，不再视为“执行加速”状态: a later normal day is judged again
    ds = [DayActivity(1, 0, accelerated=True), DayActivity(2, 3)]
    assert kinds("m72", ds) == [(2, "posts_day")]


def test_m72_accelerated_day_breaks_the_three_day_run() -> None:
    ds = [
        DayActivity(1, 9),
        DayActivity(2, 9),
        DayActivity(3, 9, accelerated=True),
        DayActivity(4, 9),
    ]
    assert kinds("m72", ds) == []


def test_at_most_one_lurking_yellow_per_day() -> None:
    # day 3 under 5 is punished once; it does not also close a three-day run
    assert kinds("m72", days(9, 9, 3)) == [(3, "posts_day")]


def test_penalised_days_do_not_start_a_new_run_twice() -> None:
    assert kinds("m72", days(9, 9, 9, 9, 9, 9)) == [
        (3, "posts_three_days"),
        (6, "posts_three_days"),
    ]


def test_water_posts_are_not_counted() -> None:
    assert kinds("m72", [DayActivity(1, 7, water_posts=3)]) == [(1, "posts_day")]
    assert kinds("m72", [DayActivity(1, 8, water_posts=3)]) == []


def test_no_vote_and_lurking_on_the_same_day_are_two_yellows() -> None:
    ps = activity_penalties(days(0, voted=False), rules="m72")
    assert [p.kind for p in ps] == ["posts_day", "no_vote"]


def test_penalty_card_is_a_fixed_yellow() -> None:
    (p,) = activity_penalties(days(2), rules="m08")
    c = p.card(player="甲")
    assert c.colour is CardColour.YELLOW and c.source is CardSource.FIXED
    assert (c.category, c.article, c.day, c.player) == ("lurking", "5(1)", 1, "甲")
    (v,) = activity_penalties(days(20, voted=False), rules="m08")
    assert v.card().category == "no_vote"


# --- M08 ------------------------------------------------------------------------------------


def test_m08_single_day_under_five() -> None:
    assert kinds("m08", days(4)) == [(1, "posts_day")]
    assert kinds("m08", days(5)) == []


def test_m08_three_days_under_ten() -> None:
    assert kinds("m08", days(9, 9, 9)) == [(3, "posts_three_days")]


def test_m08_no_vote() -> None:
    (p,) = activity_penalties(days(30, voted=False), rules="m08")
    assert p.article == "5(2)" and "进程加速以前的任一讨论日未投票" in p.reason


def test_m08_nothing_after_acceleration_even_a_normal_day() -> None:
    # 进程加速以前: from the first accelerated day on, no more 潜水 penalties
    ds = [DayActivity(1, 30), DayActivity(2, 30, accelerated=True), DayActivity(3, 0, voted=False)]
    assert kinds("m08", ds) == []


# --- wa004 (5(1) applied; see docs/rulings/penalties.md) -------------------------------------


def test_wa004_single_day_without_posts() -> None:
    assert kinds("wa004", days(0)) == [(1, "posts_day")]
    assert kinds("wa004", days(1)) == []


def test_wa004_two_days_under_five_in_total() -> None:
    assert kinds("wa004", days(2, 2)) == [(2, "posts_two_days")]
    assert kinds("wa004", days(2, 3)) == []
    (p,) = activity_penalties(days(2, 2), rules="wa004")
    assert p.days == (1, 2) and "未加快进程的连续两个讨论日发言不足五贴" in p.reason


def test_wa004_three_days_under_ten_each() -> None:
    assert kinds("wa004", days(9, 9, 9)) == [(3, "posts_three_days")]
    assert kinds("wa004", days(9, 10, 9)) == []


def test_wa004_pure_water_posts_excluded() -> None:
    assert kinds("wa004", [DayActivity(1, 4, water_posts=4)]) == [(1, "posts_day")]


def test_wa004_no_vote_before_acceleration_only() -> None:
    assert kinds("wa004", days(20, voted=False)) == [(1, "no_vote")]
    ds = [DayActivity(1, 20, accelerated=True, voted=False), DayActivity(2, 20, voted=False)]
    assert kinds("wa004", ds) == []


def test_wa004_four_posts_is_not_lurking_under_5_1() -> None:
    # 玩家须知2 would say yellow (不足五贴); 5(1) (applied) says only a day without posts
    assert kinds("wa004", days(4, 10)) == []


# --- input checks --------------------------------------------------------------------------


def test_days_must_be_in_order() -> None:
    with pytest.raises(PenaltyError):
        activity_penalties([DayActivity(2, 10), DayActivity(1, 10)], rules="m72")


def test_water_cannot_exceed_posts() -> None:
    with pytest.raises(PenaltyError):
        activity_penalties([DayActivity(1, 2, water_posts=3)], rules="m72")


def test_gap_in_days_breaks_the_run() -> None:
    ds = [DayActivity(1, 9), DayActivity(2, 9), DayActivity(4, 9)]
    assert kinds("m72", ds) == []


def test_incremental_use_matches_whole_history() -> None:
    ds = days(9, 3, 9, 9, 9, 0, 12, 9)
    whole = activity_penalties(ds, rules="m72")
    stepwise = [
        p
        for i in range(len(ds))
        for p in activity_penalties(ds[: i + 1], rules="m72")
        if p.day == i + 1
    ]
    assert list(whole) == stepwise
