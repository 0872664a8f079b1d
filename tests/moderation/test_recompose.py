"""Split characters put back together before matching (``moderation.recompose``).

Each violation below is missed with ``normalize.RECOMPOSE`` off: its split is one no term's
generated split form covers (a part split twice, a traditional form, a doubled part the repeat
collapse would eat, parts grouped otherwise). The clean posts hold character pairs that compose
too and must stay as written.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from moderation import normalize as norm
from moderation.recompose import find_compositions, recompose_text
from moderation.screen import Screener

VIOLATIONS = [
    ("insult", "都第四天了还跟着查杀走，真是个春虫虫货"),  # 蠢: a doubled part, not a repeat
    ("oath", "我对天发扌斤言，昨晚刀口不是我报的"),  # 誓 = 折言, 折 = 扌斤
    ("vest", "夫夫日衤卜什么时候上线？我这周末真没空"),  # 替补: 夫夫日 is no repeat
    ("vest", "上一土昜你也是这么悍跳的，别装了"),  # 場 = 土昜, folded to 场
    ("insult", "矢口日阝章吧，金水都能踩"),  # 智 = 知日, 知 = 矢口
    ("oath", "讠且口口几发言的人今晚先出局"),  # 诅咒
    ("emotional", "我要口口犬了，票型看得我心态全无"),  # 哭
]

CLEAN = [
    "女子组那边的比赛我没看，先说这局：我站3号",
    "日月同辉那个头像的是几号？发言挺好的",
    "三号女马上要被归票了，快出来辩一下",
    "狼不会刀自己人吧，除非是自刀骗药",
    "盘了一晚上，口口声声说自己是预言家的那位最可疑",
    "今晚狼多半刀警长，守卫自己看着办",
    "木木的发言我没看懂，但不像狼",
]


@pytest.fixture
def recompose_off(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(norm, "RECOMPOSE", False)
    yield


@pytest.mark.parametrize(("category", "text"), VIOLATIONS)
def test_split_violation_found(m08: Screener, category: str, text: str) -> None:
    found = [f for f in m08.screen(text) if f.category == category]
    assert found, text
    assert any(f.via == "split" for f in found) or category in {"emotional"}


@pytest.mark.parametrize(("category", "text"), VIOLATIONS)
def test_split_violation_missed_without_recomposing(
    recompose_off: None, m08: Screener, category: str, text: str
) -> None:
    assert category not in {f.category for f in m08.screen(text)}, text


@pytest.mark.parametrize("text", CLEAN)
def test_clean_pairs_stay(m08: Screener, text: str) -> None:
    assert recompose_text(text) == text
    assert not m08.screen(text), text


def test_span_maps_to_the_whole_split() -> None:
    nt = norm.normalize("夫夫日衤卜来了")
    assert nt.folded == "替补来了"
    assert nt.span(0, 2) == (0, 5)


def test_spaced_components_are_not_joined() -> None:
    # only components written side by side are read: a symbol or space between them is a
    # separator, not part of a glyph
    assert norm.normalize("女，马的").folded == "女马的"
    assert find_compositions("女马的") == [(0, 2, "妈")]


def test_a_rare_character_is_read_without_a_word_around_it() -> None:
    # 誓 makes no word with 我 or with the comma, but it is rare on its own and nothing reaches
    # into 折言; 林 from 木木 is too common a character for that (木木 is a name)
    assert recompose_text("我折言，信不信由你") == "我誓，信不信由你"
    assert recompose_text("木木的票投给了谁") == "木木的票投给了谁"


def test_terms_are_not_recomposed() -> None:
    assert norm.fold_term("女马") == "女马"


def test_patterns_read_the_recomposed_text(m08: Screener) -> None:
    # 拿人格担保 is a pattern (oath-by-person); its split form reaches it only recomposed
    assert {(f.category, f.term) for f in m08.screen("拿人木各担保")} == {
        ("oath", "oath-by-person")
    }
