"""The screener's water flag (``screen_post`` / ``screen_posts``): the post is normalised once and
the flag is the same as :func:`moderation.rules.is_water` under every ruleset."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from api.screening import screen_posts as api_screen_posts
from moderation.normalize import normalize
from moderation.rules import is_water
from moderation.screen import MAX_POST_BYTES, PostTooLargeError, Screener, ScreenResult

POSTS: Sequence[str] = (
    "顶！！！",
    "😀😀",
    "",
    "   ",
    "[b][/b]",
    "嗯嗯",
    "mark",
    "+1",
    "哈哈哈哈哈",
    "3号今天的发言很像狼",
    "顶一下3号的分析，我觉得他说得对",
    "你个ＳＢ",
    "我拿人格担保我是好人",
    "[color=#FF0000]我是预言家[/color]",
    "沙发 你是傻逼",
)


@pytest.mark.parametrize("ruleset", ["m08", "m72", "wa004"])
@pytest.mark.parametrize("text", POSTS)
def test_screen_post_water_is_is_water(
    screeners: Mapping[str, Screener], ruleset: str, text: str
) -> None:
    result = screeners[ruleset].screen_post(text)
    assert isinstance(result, ScreenResult)
    assert result.water is is_water(text)
    assert result.findings == screeners[ruleset].screen(text)


def test_is_water_accepts_the_normalised_post() -> None:
    for text in POSTS:
        assert is_water(normalize(text)) is is_water(text)


def test_water_finding_only_where_the_ruleset_tracks_it(m08: Screener, wa004: Screener) -> None:
    here = wa004.screen_post("顶！！！")
    assert here.water
    assert [(f.category, f.start, f.end) for f in here.findings] == [("water", 0, 4)]
    elsewhere = m08.screen_post("顶！！！")
    assert elsewhere.water
    assert elsewhere.findings == []
    content = wa004.screen_post("3号今天的发言很像狼")
    assert not content.water
    assert all(f.category != "water" for f in content.findings)


@pytest.mark.parametrize("ruleset", ["m08", "wa004"])
def test_screen_posts_matches_screen_post_one_by_one(
    screeners: Mapping[str, Screener], ruleset: str
) -> None:
    screener = screeners[ruleset]
    batch = screener.screen_posts(list(POSTS))
    assert batch == [screener.screen_post(t) for t in POSTS]
    assert [r.findings for r in batch] == screener.screen_many(list(POSTS))
    assert screener.screen_posts([]) == []


def test_screen_posts_refuses_the_whole_batch(m08: Screener) -> None:
    with pytest.raises(PostTooLargeError) as info:
        m08.screen_posts(["顶", "a" * (MAX_POST_BYTES + 1)])
    assert info.value.index == 1
    with pytest.raises(TypeError):
        m08.screen_posts(["顶", 3])  # type: ignore[list-item]
    with pytest.raises(PostTooLargeError):
        m08.screen_post("a" * (MAX_POST_BYTES + 1))


def test_min_confidence_keeps_the_water_flag() -> None:
    strict = Screener("wa004", classifier=None, min_confidence=0.99)
    result = strict.screen_post("顶！！！")
    assert result.water
    assert result.findings == []  # the water finding (0.9) is below the bar; the flag is not


@pytest.mark.parametrize("ruleset", ["m08", "wa004"])
def test_service_water_flag_matches_is_water(ruleset: str) -> None:
    screened = api_screen_posts(ruleset, list(POSTS), use_classifier=False)
    assert [s.water for s in screened] == [is_water(t) for t in POSTS]
    assert all(f["category"] != "water" for s in screened for f in s.violations)
