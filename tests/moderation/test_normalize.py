"""Normalisation views and their offset maps back to the original text."""

from __future__ import annotations

import string
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from moderation.normalize import WILDCARD, fold_char, normalize, readings
from moderation.recompose import compositions


def test_width_case_and_digit_styles_fold_to_ascii() -> None:
    assert normalize("ＳＢ①６𝟔❶🅰").folded == "sb166" + "1a"


def test_traditional_folds_to_simplified() -> None:
    assert normalize("說謊話").folded == "说谎话"
    assert fold_char("說")[2] == "traditional"


def test_noise_is_removed_but_kept_in_clean_view() -> None:
    nt = normalize("傻 。 逼😀\u200b！")
    assert nt.folded == "傻逼"
    assert nt.clean == "傻 。 逼!"  # NFKC: full-width punctuation becomes ASCII


def test_bbcode_tags_between_characters_are_noise() -> None:
    nt = normalize("[b]傻[/b][color=red]逼[/color]")
    assert nt.folded == "傻逼"
    assert nt.original[slice(*nt.span(0, 2))] == "傻[/b][color=red]逼"


def test_repeats_collapse_but_kinship_doubles_stay() -> None:
    assert normalize("傻傻傻逼").folded == "傻逼"
    assert normalize("他妈妈的手机").folded == "他妈妈的手机"
    assert normalize("妈妈妈的").folded == "妈的"


def test_letter_pairs_are_abbreviations_not_repeats() -> None:
    assert normalize("zz").folded == "zz"
    assert normalize("sbbbb").folded == "sb"


def test_collapsed_repeat_span_covers_the_whole_run() -> None:
    nt = normalize("傻傻傻逼")
    assert nt.span(0, 2) == (0, 4)


def test_wildcards_survive_as_asterisk() -> None:
    assert normalize("傻×").folded == "傻" + WILDCARD
    assert normalize("傻□").folded == "傻" + WILDCARD


def test_pinyin_has_every_reading_of_a_heteronym() -> None:
    nt = normalize("行")
    assert nt.pinyin == (("xing", "hang", "heng"),)
    assert readings("绿") == ("lv", "lu")


def test_initials_and_sound_view_line_up_with_folded() -> None:
    nt = normalize("你 妈 死 了 abc")
    assert nt.initials == "nmslabc"
    assert len(nt.sound) == len(nt.folded)
    assert normalize("沙比").sound == normalize("傻逼").sound


def test_odd_input_never_raises() -> None:
    for text in ["", "\ud800", "\x00\x07\x1b", "😀😀😀", "[b][/b]", "\u200b\u200d", "a" * 10000]:
        nt = normalize(text)
        assert len(nt.offsets) == len(nt.folded) == len(nt.ends)


@cache
def _runs() -> dict[str, tuple[str, bool, bool]]:
    return compositions()


def _parts_of(run: str) -> str:
    """The character a run of split parts makes, or ""."""
    return _runs().get(run, ("", False, False))[0]


_ALPHABET = st.sampled_from(
    list("傻逼沙比你妈死了狗查杀金水 ，。！*×①６ＳＢsb說謊[]/=coloryb😀\u200b\ud800\n")
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_ALPHABET, max_size=40).map("".join))
def test_offsets_map_every_folded_char_back_to_its_source(text: str) -> None:
    nt = normalize(text)
    assert len(nt.offsets) == len(nt.folded)
    previous = -1
    for i, ch in enumerate(nt.folded):
        start, end = nt.offsets[i], nt.ends[i]
        assert previous <= start < end <= len(text)
        previous = start
        # the folded character comes from the original characters it maps to, or is the
        # character those characters are the split parts of (水查 → 渣: moderation.recompose)
        produced = "".join(fold_char(c)[0] for c in text[start:end])
        assert ch in produced or _parts_of(produced) == ch


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=string.printable + "傻逼ＳＢ說①😀", max_size=60))
def test_clean_view_offsets_are_in_range(text: str) -> None:
    nt = normalize(text)
    view = nt.clean_view
    assert len(view.starts) == len(view.text)
    assert all(0 <= a < b <= len(text) for a, b in zip(view.starts, view.ends, strict=True))
