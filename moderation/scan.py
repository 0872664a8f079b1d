"""Aho-Corasick scans over UTF-8 code units: pyahocorasick's matches at a fraction of its cost.

pyahocorasick finds a node's child by a linear search through the node's children. The root of
an automaton over tens of thousands of Chinese keys has thousands of children, and a scan of
ordinary text falls back to the root at almost every character: over the lexicon's keys a
38-character post cost about 21 µs, most of the lexicon matcher's time. A :class:`Scanner` holds
the same keys as their UTF-8 bytes (each byte one code unit of a latin-1 string) and scans the
text's bytes: no node then has more than a few dozen children (after a lead byte comes one of 64
continuation bytes), and the same scan costs about 3 µs.

The matches are the same: UTF-8 is self-synchronising (a key starts with a lead byte, which no
continuation byte equals), so an encoded key matches only at a character boundary, and each
match of an encoded key is a match of the key. Positions are reported in characters, as
pyahocorasick reports them over the text itself.

>>> s = Scanner([("傻逼", "insult"), ("sb", "initials")])
>>> list(s.iter("你个傻逼sb"))
[(3, 'insult'), (5, 'initials')]
>>> list(s.values("sb"))
['initials']
"""

from __future__ import annotations

import bisect
import itertools
import operator
from collections.abc import Iterable
from typing import Any

import ahocorasick

__all__ = ["Scanner"]


class _Utf8Length(dict[int, str]):
    """Translate table: each character to chr(its UTF-8 length); lone surrogates take three."""

    def __missing__(self, cp: int) -> str:
        value = chr(1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4)
        if len(self) < 1 << 17:  # posts of ever-new rare code points cannot grow it unbounded
            self[cp] = value
        return value


_UTF8_LENGTH = _Utf8Length()


def _units(text: str) -> str:
    """``text`` as its UTF-8 bytes, one latin-1 character per byte (surrogates pass through)."""
    return text.encode("utf-8", "surrogatepass").decode("latin-1")


class Scanner:
    """An Aho-Corasick automaton over ``keys`` (``(key, value)`` pairs; a repeated key keeps its
    last value), scanned over UTF-8 code units when the keys start with many distinct characters
    (with a few, such as letters or syllable codes, the root's search is short and the text is
    scanned as it is). ``ints``: the values are ints, stored as C ints
    (``ahocorasick.STORE_INTS``) and never as objects."""

    def __init__(self, keys: Iterable[tuple[str, Any]], *, ints: bool = False) -> None:
        pairs = list(keys)
        self.utf8 = len({key[:1] for key, _ in pairs}) > _PLAIN_ROOT
        auto = ahocorasick.Automaton(ahocorasick.STORE_INTS) if ints else ahocorasick.Automaton()
        for key, value in pairs:
            auto.add_word(_units(key) if self.utf8 else key, value)
        self._count = len(auto)
        if self._count:
            auto.make_automaton()
        self._auto = auto

    def __len__(self) -> int:
        return self._count

    def iter(self, text: str) -> Iterable[tuple[int, Any]]:
        """``(end, value)`` of every match, ``end`` the index of the key's last character in
        ``text`` (as ``ahocorasick.Automaton.iter`` over ``text``), in order of ``end``."""
        if not self._count or not text:
            return ()
        if not self.utf8:
            found: Iterable[tuple[int, Any]] = self._auto.iter(text)
            return found
        units = _units(text)
        if len(units) == len(text):  # ASCII: every byte is a character
            found = self._auto.iter(units)
            return found
        matches = list(self._auto.iter(units))
        if not matches:
            return matches
        # the byte offset after each character: a match ending at byte e ends at the character
        # whose offset is e + 1
        ends = list(itertools.accumulate(map(ord, text.translate(_UTF8_LENGTH))))
        return [(bisect.bisect_left(ends, end + 1), value) for end, value in matches]

    def values(self, text: str) -> Iterable[Any]:
        """The value of every match, in order (no positions: nothing to map back)."""
        if not self._count or not text:
            return ()
        return map(_VALUE, self._auto.iter(_units(text) if self.utf8 else text))


#: Keys starting with at most this many distinct characters are scanned as text.
_PLAIN_ROOT = 256

_VALUE = operator.itemgetter(1)  # (end, value) pairs from the automaton
