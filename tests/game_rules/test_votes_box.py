"""BallotBox and VotePolicy: each rejection rule of the three seeds, the box unchanged each time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from game_rules.errors import IllegalActionError, ParameterError, UnknownRulesetError
from game_rules.params import load_params
from game_rules.votes import (
    REJECTION_RULES,
    Ballot,
    BallotBox,
    VoteError,
    VotePolicy,
    VoteRejectedError,
    load_vote_policy,
    parse_vote,
)

CLOSE = datetime(2026, 3, 1, 22, 0)
M08 = load_vote_policy("m08")
M72 = load_vote_policy("m72")
WA = load_vote_policy("wa004")


def t(hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, 1, hour, minute)


def cast(box: BallotBox, ballot: Ballot, policy: VotePolicy, **kw: object) -> BallotBox:
    return box.cast(ballot, policy=policy, closes_at=CLOSE, **kw)  # type: ignore[arg-type]


def rejected(box: BallotBox, ballot: Ballot, policy: VotePolicy, **kw: object) -> str:
    before = box
    with pytest.raises(VoteRejectedError) as info:
        cast(box, ballot, policy, **kw)
    assert box == before  # unchanged on error
    assert info.value.rule in REJECTION_RULES
    return info.value.rule


def voted(policy: VotePolicy, voter: str = "A", target: str | None = "B") -> BallotBox:
    return cast(BallotBox(), Ballot(voter, target, t(10), post_id="p1"), policy)


# --- policies as data ---------------------------------------------------------------------------


def test_policies_as_the_seeds_write_them() -> None:
    assert (M08.max_changes, WA.max_changes, M72.max_changes) == (1, 1, None)
    assert M08.proxy_deadline == WA.proxy_deadline == timedelta(minutes=30)
    assert M72.proxy_deadline == timedelta(hours=1)  # 关门前一小时不允许改票或代投
    for p in (M08, M72, WA):
        assert p.no_change_before_close == timedelta(hours=1)
        assert p.proxy_change_deadline == timedelta(hours=1)
    assert not M72.changes_when_accelerated and not WA.changes_when_accelerated
    assert WA.acceleration_voids_changes and not M72.acceleration_voids_changes
    assert (M08.conditional_proxy, WA.conditional_proxy, M72.conditional_proxy) == (
        "abstain",
        "abstain",
        "invalid",
    )


def test_every_rejection_rule_quotes_its_seed() -> None:
    for p in (M08, M72, WA):
        for rule in REJECTION_RULES:
            if rule not in {"out_of_order", "proxy_not_allowed"}:
                assert p.quote(rule), (p.ruleset, rule)


def test_ruleset_vote_policy_block_overrides_defaults() -> None:
    params = load_params("m72")
    p = VotePolicy.from_mapping(params.vote_policy, ruleset="m72")
    assert p.max_changes is None and p.quote("last_hour")
    assert VotePolicy.from_mapping({"max_changes": 3}, ruleset="wa004").max_changes == 3


def test_unknown_ruleset_and_bad_parameters() -> None:
    with pytest.raises(UnknownRulesetError):
        load_vote_policy("nope")
    with pytest.raises(ParameterError):
        VotePolicy(max_changes=-1)
    with pytest.raises(ParameterError):
        VotePolicy(conditional_proxy="maybe")
    with pytest.raises(ParameterError):
        VotePolicy.from_mapping({"max_changes": "lots"})


# --- accepted ballots ---------------------------------------------------------------------------


def test_first_vote_then_one_change_m08() -> None:
    box = voted(M08)
    box = cast(box, Ballot("A", "C", t(11), is_change=True, post_id="p2", replies_to="p1"), M08)
    assert box.current()["A"].target == "C"
    assert box.changes_of("A") == 1 and len(box.history) == 2


def test_m72_unlimited_changes() -> None:
    box = voted(M72)
    for i, target in enumerate(["C", "D", "B", "C", None, "D"]):
        box = cast(box, Ballot("A", target, t(11, i), is_change=True), M72)
    assert box.changes_of("A") == 6 and box.current()["A"].target == "D"


def test_abstention_counts_as_the_vote() -> None:
    box = voted(M08, target=None)
    assert box.current()["A"].target is None
    assert rejected(box, Ballot("A", "B", t(11)), M08) == "second_vote"


def test_abstention_counts_as_the_change() -> None:
    box = cast(voted(WA), Ballot("A", None, t(11), is_change=True), WA)
    assert rejected(box, Ballot("A", "B", t(12), is_change=True), WA) == "change_limit"


def test_first_vote_allowed_in_last_hour() -> None:
    box = cast(BallotBox(), Ballot("A", "B", t(21, 59)), M08)
    assert box.current()["A"].target == "B"


def test_vote_at_closing_minute_counts() -> None:
    assert cast(BallotBox(), Ballot("A", "B", CLOSE), M72).current()["A"].at == CLOSE


def test_change_exactly_one_hour_before_close_is_allowed() -> None:
    box = cast(voted(M08), Ballot("A", "C", t(21), is_change=True), M08)
    assert box.current()["A"].target == "C"


def test_typo_edit_is_not_a_change() -> None:
    # 004: 修改错别字不算做改票
    box = cast(voted(WA), Ballot("A", "B", t(21, 30), post_id="p1", reason="修正"), WA)
    assert box.changes_of("A") == 0 and box.current()["A"].reason == "修正"
    assert box.current()["A"].at == t(10)  # keeps its place for 最先获得
    box = cast(box, Ballot("A", "C", t(20), is_change=True), WA)  # the one change is still there
    assert box.current()["A"].target == "C"


def test_from_parsed_ballot() -> None:
    parsed = parse_vote("改票对象：C 改票理由：变了", {"B": [], "C": []})
    box = cast(voted(M72), Ballot.from_parsed("A", parsed, t(12), post_id="p9"), M72)
    assert box.current()["A"].reason == "变了" and box.current()["A"].is_change


def test_time_zone_aware_times() -> None:
    close = datetime(2026, 3, 1, 22, tzinfo=UTC)
    box = BallotBox().cast(
        Ballot("A", "B", close - timedelta(hours=3)), policy=M08, closes_at=close
    )
    assert len(box.history) == 1
    with pytest.raises(VoteError):
        BallotBox().cast(Ballot("A", "B", t(10)), policy=M08, closes_at=close)


# --- rejections, each with the box unchanged -----------------------------------------------------


def test_reject_after_close() -> None:
    assert rejected(BallotBox(), Ballot("A", "B", CLOSE + timedelta(seconds=1)), M08) == (
        "vote_closed"
    )


def test_reject_change_limit_m08_and_wa004() -> None:
    for p in (M08, WA):
        box = cast(voted(p), Ballot("A", "C", t(11), is_change=True), p)
        assert rejected(box, Ballot("A", "D", t(12), is_change=True), p) == "change_limit"


def test_reject_change_in_last_hour_every_ruleset() -> None:
    for p in (M08, M72, WA):
        assert rejected(voted(p), Ballot("A", "C", t(21, 1), is_change=True), p) == "last_hour"


def test_reject_change_when_accelerated_m72_and_wa004() -> None:
    for p in (M72, WA):
        rule = rejected(voted(p), Ballot("A", "C", t(11), is_change=True), p, accelerated=True)
        assert rule == "accelerated"


def test_m08_silent_on_acceleration_allows_change() -> None:
    box = cast(voted(M08), Ballot("A", "C", t(11), is_change=True), M08, accelerated=True)
    assert box.current()["A"].target == "C"


def test_first_vote_allowed_when_accelerated() -> None:
    assert cast(BallotBox(), Ballot("A", "B", t(11)), M72, accelerated=True).current()["A"]


def test_m72_change_allowed_again_after_delay_ends_acceleration() -> None:
    # 延迟成功时，不再视为“执行加速”状态
    box = cast(voted(M72), Ballot("A", "C", t(12), is_change=True), M72, accelerated=False)
    assert box.current()["A"].target == "C"


def test_wa004_acceleration_voids_earlier_changes() -> None:
    box = cast(voted(WA), Ballot("A", "C", t(11), is_change=True), WA)
    box = cast(box, Ballot("B", "A", t(11, 30)), WA)
    fast = box.accelerate(policy=WA)
    assert box.current()["A"].target == "C"
    assert fast.current()["A"].target == "B"  # 所有改票作废: the original vote counts again
    assert fast.current()["B"].target == "A"
    assert rejected(fast, Ballot("B", "C", t(12), is_change=True), WA) == "accelerated"


def test_m72_acceleration_keeps_earlier_changes() -> None:
    box = cast(voted(M72), Ballot("A", "C", t(11), is_change=True), M72)
    assert box.accelerate(policy=M72).current()["A"].target == "C"


def test_reject_second_plain_vote() -> None:
    assert rejected(voted(M72), Ballot("A", "C", t(11)), M72) == "second_vote"


def test_reject_change_without_vote() -> None:
    assert rejected(BallotBox(), Ballot("A", "C", t(11), is_change=True), M72) == (
        "change_without_vote"
    )


def test_reject_change_replying_to_someone_else() -> None:
    box = cast(voted(WA), Ballot("Z", "A", t(10, 5), post_id="pz"), WA)
    ballot = Ballot("A", "C", t(11), is_change=True, post_id="p2", replies_to="pz")
    assert rejected(box, ballot, WA) == "change_not_reply"


def test_edit_that_moves_the_vote_is_rejected() -> None:
    assert rejected(voted(WA), Ballot("A", "C", t(11), post_id="p1"), WA) == ("edit_changes_target")


def test_reject_dead_voter_and_dead_target() -> None:
    alive = {"A", "B"}
    rule = rejected(BallotBox(), Ballot("X", "B", t(10)), M08, voters=alive, candidates=alive)
    assert rule == "voter_not_alive"
    rule = rejected(BallotBox(), Ballot("A", "X", t(10)), M08, voters=alive, candidates=alive)
    assert rule == "target_not_alive"
    box = cast(BallotBox(), Ballot("A", None, t(10)), M08, voters=alive, candidates=alive)
    assert box.current()["A"].target is None  # 弃权 needs no living target


def test_reject_out_of_order() -> None:
    assert rejected(voted(M08, "Z"), Ballot("A", "B", t(9)), M08) == "out_of_order"


def test_rejection_message_quotes_the_seed() -> None:
    with pytest.raises(VoteRejectedError) as info:
        cast(voted(M08), Ballot("A", "C", t(21, 30), is_change=True), M08)
    assert info.value.quote == "白天结束前一个小时不得改票"
    assert "白天结束前一个小时不得改票" in str(info.value)
    assert isinstance(info.value, IllegalActionError)


# --- 代投 (proxy votes) ------------------------------------------------------------------------


def proxy(voter: str, target: str | None, asked: datetime, **kw: object) -> Ballot:
    return Ballot(voter, target, at=asked, proxy=True, requested_at=asked, **kw)  # type: ignore[arg-type]


def test_proxy_requested_in_time_counts() -> None:
    for p in (M08, WA):
        box = cast(BallotBox(), proxy("A", "B", t(21, 30)), p)
        assert box.current()["A"].proxy


def test_proxy_requested_inside_last_30_minutes_is_void() -> None:
    for p in (M08, WA):
        assert rejected(BallotBox(), proxy("A", "B", t(21, 31)), p) == "proxy_late"


def test_m72_no_proxy_in_last_hour() -> None:
    assert rejected(BallotBox(), proxy("A", "B", t(21, 1)), M72) == "proxy_late"
    assert cast(BallotBox(), proxy("A", "B", t(21)), M72).current()["A"].target == "B"


def test_proxy_judged_on_request_time_not_director_post_time() -> None:
    late_post = Ballot("A", "B", at=t(21, 45), proxy=True, requested_at=t(21, 0))
    assert cast(BallotBox(), late_post, M08).current()["A"].at == t(21, 45)


def test_proxy_change_needs_one_hour() -> None:
    box = voted(M08)
    assert rejected(box, proxy("A", "C", t(21, 10)), M08) == "proxy_change_late"
    assert cast(box, proxy("A", "C", t(21, 0)), M08).current()["A"].target == "C"


def test_proxy_change_counts_against_change_limit() -> None:
    box = cast(voted(M08), proxy("A", "C", t(12)), M08)
    assert rejected(box, proxy("A", "D", t(13)), M08) == "change_limit"


def test_conditional_proxy_is_abstention_m08_wa004() -> None:
    for p in (M08, WA):
        box = cast(BallotBox(), proxy("A", "B", t(12), conditional=True), p)
        assert box.current()["A"].target is None


def test_conditional_proxy_is_invalid_m72() -> None:
    assert rejected(BallotBox(), proxy("A", "B", t(12), conditional=True), M72) == (
        "proxy_conditional"
    )


def test_proxies_can_be_disallowed_by_data() -> None:
    p = VotePolicy.from_mapping({"proxies_allowed": False}, ruleset="m08")
    assert rejected(BallotBox(), proxy("A", "B", t(12)), p) == "proxy_not_allowed"
