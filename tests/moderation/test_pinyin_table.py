"""``moderation.pinyin_table`` answers as pypinyin does, for every phrase and every character.

The tables stand in for pypinyin on the fast path so that the service never loads pypinyin's
dictionaries; these tests hold them to pypinyin's own answers exhaustively (the corpus comparison
of the whole pipeline is ``test_fast_path.py``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from pypinyin import lazy_pinyin
from pypinyin.constants import PHRASES_DICT, PINYIN_DICT, RE_HANS
from pypinyin.contrib.tone_convert import to_normal

from moderation import pinyin_table
from moderation.implementation import use_reference

ROOT = Path(__file__).resolve().parents[2]
_ANCHORED = RE_HANS.pattern[1:-1]  # the class pypinyin repeats inside ``^(?:...)+$``


def _pypinyin_han(cp: int) -> bool:
    return RE_HANS.match(chr(cp)) is not None


def test_han_runs_are_pypinyins_han_characters() -> None:
    assert RE_HANS.pattern.startswith("^(?:") and RE_HANS.pattern.endswith(")+$"), _ANCHORED
    ours = pinyin_table.RE_HANS_RUN
    differing = [cp for cp in range(0x40000) if (ours.match(chr(cp)) is None) == _pypinyin_han(cp)]
    assert not differing, [hex(cp) for cp in differing[:5]]


def test_every_phrase_reads_as_lazy_pinyin_reads_it() -> None:
    assert len(PHRASES_DICT) > 40000
    differing = [p for p in PHRASES_DICT if pinyin_table.segment_pinyin(p) != tuple(lazy_pinyin(p))]
    assert not differing, differing[:5]


def test_every_character_reads_as_lazy_pinyin_reads_it() -> None:
    # with a reading, and pypinyin's Han characters without one (they read as themselves)
    chars = [chr(cp) for cp in range(0x40000) if cp in PINYIN_DICT or _pypinyin_han(cp)]
    assert len(chars) > 90000
    differing = [c for c in chars if pinyin_table.segment_pinyin(c) != tuple(lazy_pinyin(c))]
    assert not differing, differing[:5]


def _stripped(cp: int) -> tuple[str, ...]:
    out: list[str] = []
    for reading in PINYIN_DICT[cp].split(",") if cp in PINYIN_DICT else ():
        t = pinyin_table.strip_tone(reading)
        if t and t not in out:
            out.append(t)
    return tuple(out)


def test_every_characters_readings_and_whether_it_has_one() -> None:
    top = max(PINYIN_DICT) + 3
    assert [pinyin_table.readings(chr(cp)) for cp in range(top)] == [
        _stripped(cp) for cp in range(top)
    ]
    assert [cp for cp in range(top) if pinyin_table.has_reading(cp)] == sorted(PINYIN_DICT)


def test_syllable_sets() -> None:
    every = [r for raw in PINYIN_DICT.values() for r in raw.split(",")]
    assert pinyin_table.normal_syllables() == {to_normal(r) for r in every}
    stripped = {pinyin_table.strip_tone(r) for r in every} - {""}
    assert pinyin_table.stripped_syllables() == stripped


_PHRASES = sorted(PHRASES_DICT)[::50]
_piece = st.one_of(
    st.sampled_from(_PHRASES),
    st.sampled_from(_PHRASES).map(lambda p: p[: max(1, len(p) - 1)]),  # starts of phrases
    st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),
    st.sampled_from(["行", "长", "〇", "𠀀", "\U0002a6e5", "a", "sb", " ", "！", "😀", "3号"]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_piece, min_size=1, max_size=8).map("".join))
def test_any_text_reads_as_lazy_pinyin_reads_it(text: str) -> None:
    assert pinyin_table.lazy_pinyin(text) == lazy_pinyin(text)
    with use_reference():
        assert pinyin_table.lazy_pinyin(text) == lazy_pinyin(text)


_han_piece = st.one_of(
    st.sampled_from(_PHRASES),
    st.sampled_from(_PHRASES).map(lambda p: p[: max(1, len(p) - 1)]),
    st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),
    st.sampled_from(["行", "长", "重", "〇", "𠀀", "\U0002b740"]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_han_piece, min_size=1, max_size=8).map("".join))
def test_a_text_that_is_one_han_run_reads_as_lazy_pinyin_reads_it(run: str) -> None:
    # the text is one run as a whole: lazy_pinyin reads it without splitting it into runs first
    assert pinyin_table.RE_HANS_RUN.fullmatch(run)
    assert pinyin_table.lazy_pinyin(run) == lazy_pinyin(run)


def test_the_rest_of_a_run_that_only_starts_a_phrase_is_cut_character_by_character() -> None:
    # pypinyin's quirk: no phrase starts here and the whole rest starts one, so the rest is cut
    # character by character without looking for phrases further on
    from pypinyin.seg.mmseg import seg

    def quirky(start: str) -> bool:  # it starts a phrase, none of its starts is one, but
        # a phrase lies inside it (一动不如一: 不如), so skipping the quirk would cut otherwise
        return (
            len(start) >= 3
            and not any(start[:k] in PHRASES_DICT for k in range(1, len(start) + 1))
            and any(
                start[i:j] in PHRASES_DICT
                for i in range(1, len(start))
                for j in range(i + 2, len(start) + 1)
            )
        )

    start = next(p[:-1] for p in sorted(PHRASES_DICT) if quirky(p[:-1]))
    assert list(seg.cut(start)) == list(start)
    assert pinyin_table.phrase_segments(start) == list(start)
    assert pinyin_table.lazy_pinyin(start) == lazy_pinyin(start)


def test_a_screening_process_builds_the_tables_without_holding_pypinyin(tmp_path: Path) -> None:
    # a fresh temp directory: the tables are built there (in a child) and the screening process
    # itself never imports pypinyin
    code = (
        "import sys\n"
        "from api.screening import warm\n"
        "warm(use_classifier=False)\n"
        "assert 'pypinyin' not in sys.modules, 'pypinyin imported'\n"
    )
    env = {"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, timeout=300)
    assert len(list(tmp_path.glob("bansha-jieba/pinyin-*.marisa"))) == 1
    assert len(list(tmp_path.glob("bansha-jieba/pinyin-*.npz"))) == 1
