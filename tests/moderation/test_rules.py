"""Font (reserved red, enlarged size) and water (纯水帖) rules."""

from __future__ import annotations

import pytest

from moderation.rules import font_candidates, font_rules, is_water


@pytest.mark.parametrize(
    "tag",
    [
        "[color=#FF0000]",
        "[color=#ff0000]",
        "[color=#F00]",
        "[color=red]",
        "[color=Red]",
        "[color=#CC0000]",
        "[color=#FF3333]",
        "[color=crimson]",
        "[color=rgb(250, 10, 10)]",
        '<font color="#FF0000">',
        "[color= #EE1111 ]",
    ],
)
def test_reserved_red_and_near_reds(tag: str) -> None:
    found = font_candidates(f"{tag}我是预言家[/color]")
    assert [c.article for c in found] == ["red"]
    assert found[0].start == 0


@pytest.mark.parametrize(
    "tag", ["[color=#0000FF]", "[color=blue]", "[color=darkred]", "[color=orange]", "[color=pink]"]
)
def test_other_colours_are_fine(tag: str) -> None:
    assert font_candidates(f"{tag}字[/color]") == []


def test_distance_threshold_is_the_documented_one() -> None:
    rules = font_rules()
    assert rules.max_distance == 100
    assert rules.is_reserved_colour("#B22222")  # firebrick, distance 91
    assert not rules.is_reserved_colour("#8B0000")  # darkred, distance 116


@pytest.mark.parametrize(
    ("value", "enlarged"),
    [
        ("1", False),
        ("2", False),
        ("3", False),
        ("4", True),
        ("7", True),
        ("16px", False),
        ("18px", True),
        ("12pt", False),
        ("14pt", True),
        ("1.5em", True),
        ("150%", True),
        ("large", True),
        ("small", False),
        ("nonsense", False),
    ],
)
def test_size_thresholds(value: str, enlarged: bool) -> None:
    assert bool(font_candidates(f"[size={value}]字[/size]")) is enlarged


@pytest.mark.parametrize(
    "text",
    [
        "",
        "顶",
        "顶顶顶！！！",
        "沙发",
        "+1",
        "233333",
        "哈哈哈哈",
        "😀😀",
        "[b][/b]",
        "。。。",
        "嗯嗯",
        "mark",
    ],
)
def test_water_posts(text: str) -> None:
    assert is_water(text)


@pytest.mark.parametrize(
    "text", ["3号是狼", "同意加速", "出9号", "顶一下3号的分析，我觉得他说得对", "我验了5号，金水"]
)
def test_posts_with_content_are_not_water(text: str) -> None:
    assert not is_water(text)
