"""A vote thread replayed post by post (parse -> cast -> tally), as a forum vote counter would."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction

from game_rules.votes import (
    Ballot,
    BallotBox,
    InvalidVoteError,
    VotePolicy,
    VoteRejectedError,
    load_vote_policy,
    parse_vote,
    tally,
)

LIVING = {"饺子": ["JZ"], "包子": ["BZ"], "馒头": [], "烧卖": ["SM"], "春卷": []}
CLOSE = datetime(2026, 3, 1, 22, 0)


@dataclass(frozen=True)
class Post:
    post_id: str
    author: str
    at: str  # HH:MM
    body: str
    replies_to: str | None = None


def replay(posts: list[Post], policy: VotePolicy) -> tuple[BallotBox, dict[str, str]]:
    """Cast every post; return the box and, per post id, why it did not count."""
    box = BallotBox()
    refused: dict[str, str] = {}
    for p in posts:
        hour, minute = map(int, p.at.split(":"))
        at = datetime(2026, 3, 1, hour, minute)
        try:
            parsed = parse_vote(p.body, LIVING)
            ballot = Ballot.from_parsed(
                p.author, parsed, at, post_id=p.post_id, replies_to=p.replies_to
            )
            box = box.cast(ballot, policy=policy, closes_at=CLOSE, voters=set(LIVING))
        except (InvalidVoteError, VoteRejectedError) as err:
            refused[p.post_id] = err.rule
    return box, refused


THREAD = [
    Post("1", "饺子", "10:05", "投票对象：包子\n投票理由：昨天发言很奇怪"),
    Post("2", "包子", "10:30", "投票对象:ＪＺ 投票理由:踩我的人先出"),
    Post("3", "馒头", "11:00", "我先想想，等晚上再投"),
    Post("4", "烧卖", "12:00", "[b]投票对象：[/b]馒头\n[b]投票理由：[/b]划水"),
    Post(
        "5",
        "饺子",
        "13:00",
        "[quote]投票对象：包子\n投票理由：昨天发言很奇怪[/quote]\n改票对象：馒头\n改票理由：跟票",
        replies_to="1",
    ),
    Post("6", "春卷", "14:00", "投票对象：弃权\n投票理由：信息不足"),
    Post("7", "馒头", "20:00", "投票对象：烧卖\n投票理由：反击"),
    Post("8", "饺子", "20:30", "改票对象：包子\n改票理由：又改主意了", replies_to="1"),
    Post("9", "包子", "21:30", "改票对象：烧卖\n改票理由：最后一小时", replies_to="2"),
    Post("10", "春卷", "21:40", "投票对象：饺子\n投票理由：再投一次"),
]


def test_m72_thread() -> None:
    box, refused = replay(THREAD, load_vote_policy("m72"))
    assert refused == {"3": "no_vote_format", "9": "last_hour", "10": "second_vote"}
    current = {v: b.target for v, b in box.current().items()}
    assert current == {"饺子": "包子", "包子": "饺子", "烧卖": "馒头", "春卷": None, "馒头": "烧卖"}
    result = tally(box, {"烧卖": Fraction(2)})  # 烧卖 is the sheriff
    # ties in the order of each target's counting ballot: 饺子 10:30, 烧卖 20:00, 包子 20:30
    assert result.announcement() == "馒头获得2票\n饺子获得1票\n烧卖获得1票\n包子获得1票\n弃权1票"
    assert result.top() == ("馒头",)


def test_m08_thread_has_one_change_only() -> None:
    box, refused = replay(THREAD, load_vote_policy("m08"))
    assert refused == {
        "3": "no_vote_format",
        "8": "change_limit",
        "9": "last_hour",
        "10": "second_vote",
    }
    result = tally(box, {"烧卖": Fraction(3, 2)})
    assert result.counts == {"饺子": 1, "馒头": Fraction(5, 2), "烧卖": 1}
    assert result.announcement() == "馒头获得2.5票\n饺子获得1票\n烧卖获得1票\n弃权1票"


def test_wa004_thread_then_acceleration_voids_changes() -> None:
    policy = load_vote_policy("wa004")
    box, _ = replay(THREAD, policy)
    assert box.current()["饺子"].target == "馒头"
    fast = box.accelerate(policy=policy)
    assert fast.current()["饺子"].target == "包子"
    assert (
        tally(fast).announcement() == "包子获得1票\n饺子获得1票\n馒头获得1票\n烧卖获得1票\n弃权1票"
    )
