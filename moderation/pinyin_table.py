"""pypinyin's data as compact read-only tables: the fast path reads pinyin without pypinyin.

Importing pypinyin loads its character and phrase dictionaries as Python objects, copies both
and builds its phrase-prefix set: about 52 MiB in every process that imports it, more than a
fifth of the service's resident memory, for questions that need a few MiB of data. The fast path
asks those questions of two files built once per machine from pypinyin's own data (in a child
process, so the service never holds pypinyin's dictionaries) and named by a digest of pypinyin's
version and data files, under the same temp directory as the word trie
(:func:`moderation.wordseg.word_frequencies`):

* ``pinyin-<digest>.marisa``: every phrase of pypinyin's phrase dictionary, a ``marisa-trie``
  mapped read-only (shared by every process) that answers the phrase questions of pypinyin's
  phrase cutting and numbers the phrases;
* ``pinyin-<digest>.npz``: per phrase number, its toneless readings (what ``lazy_pinyin`` gives
  the phrase); per code point, what ``lazy_pinyin`` gives the character alone and every toneless
  reading (:func:`moderation.normalize.readings`); all as small integer arrays.

pypinyin stays the reference (:mod:`moderation.implementation`: :func:`lazy_pinyin` calls it on
that path); ``tests/moderation/test_pinyin_table.py`` compares the tables with pypinyin for every
phrase and every character, and ``tests/moderation/test_fast_path.py`` screens the corpus both ways.

>>> lazy_pinyin("银行行长说 ok")
['yin', 'hang', 'hang', 'zhang', 'shuo', ' ok']
>>> readings("绿")
('lv', 'lu')
"""

from __future__ import annotations

import importlib.util
import itertools
import operator
import os
import re
import subprocess
import sys
import tempfile
import threading
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from moderation.implementation import reference

__all__ = [
    "has_reading",
    "lazy_pinyin",
    "normal_syllables",
    "readings",
    "segment_pinyin",
    "stripped_syllables",
]

#: Bump when either file's layout or meaning changes (the names carry it: old files are not read).
_FORMAT = "pinyin tables v2: phrase Trie; phrase, first and all readings as arrays"

# pypinyin's ``RE_HANS`` (the characters it converts, ``constants.py``) without its anchors, copied
# so that the fast path need not import pypinyin (tests/moderation/test_pinyin_table.py checks it
# is still pypinyin's own): each run of them is cut into phrases, anything between runs is kept
# as one item, as ``lazy_pinyin`` keeps it.
RE_HANS_RUN = re.compile(
    "[\u3007\ue815-\ue864\ufa18\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U0002a6df\U0002a703-\U0002b73f\U0002b740-\U0002b81d\U0002b825-\U0002bf6e"
    "\U0002c029-\U0002ce93\U0002d016\U0002d11b-\U0002ebd9\U0002f80a-\U0002fa1f"
    "\U00030000-\U0003134a\U000300f7-\U00031288\U00030edd\U00030ede\U00031350-\U00032389]+"
)

_HANS_TOP = 0x32389  # the last code point of RE_HANS_RUN
_LOCK = threading.Lock()
_LONGER = 1  # in _Tables.pairs: longer phrases start with these two characters


@dataclass(frozen=True)
class _Tables:
    """The two files, loaded: see the module docstring."""

    phrases: Any  # marisa_trie.Trie of every phrase (its key ids number them)
    readings: list[tuple[str, ...]]  # by phrase number: the phrase's lazy_pinyin
    longest: int  # characters in the longest phrase
    # the first two characters of every phrase -> (1 + their phrase number, 0 when they are
    # none) * 2 + _LONGER when longer phrases start with them: phrases have two characters or
    # more, and most positions of a run start none or only a two-character one, which this
    # answers without the trie
    pairs: dict[str, int]
    alone: list[str | None]  # per code point: lazy_pinyin(chr(cp)) when it has a reading
    names: tuple[str, ...]  # every reading the arrays number, by number
    first: Any  # uint16 per code point: 1 + the number of lazy_pinyin(ch)'s reading, 0: none
    offsets: Any  # uint32, one more than code points: readings(chr(cp)) are all_[offsets[cp]:...]
    all_: Any  # uint16, see offsets
    normal: frozenset[str]  # every reading in pypinyin's NORMAL style (to_normal)


# ------------------------------------------------------------------------------------------------
# Building (from pypinyin itself, in a child process unless pypinyin is loaded already)


def strip_tone(syllable: str) -> str:
    """A toned reading without its tone and anything but a-z (ü as v), as the sound view reads it.

    >>> strip_tone("lǜ"), strip_tone("hǎo")
    ('lv', 'hao')
    """
    s = syllable.replace("ü", "v").replace("ǖ", "v").replace("ǘ", "v").replace("ǚ", "v")
    s = s.replace("ǜ", "v")
    s = unicodedata.normalize("NFD", s)
    return "".join(c for c in s if "a" <= c <= "z")


def _segment_readings_from_pypinyin() -> tuple[dict[str, tuple[str, ...]], dict[int, str]]:
    """``lazy_pinyin`` of every phrase and of every character with a reading, read straight from
    pypinyin's data as its converter reads it (the phrase's first readings, else the character's
    first reading), each toned reading converted by pypinyin's own NORMAL style."""
    from pypinyin import Style
    from pypinyin.constants import PHRASES_DICT, PINYIN_DICT
    from pypinyin.style import convert

    toneless: dict[str, str] = {}

    def normal(toned: str) -> str:
        found = toneless.get(toned)
        if found is None:
            found = toneless[toned] = convert(toned, Style.NORMAL, True, default=toned)
        return found

    phrases: dict[str, tuple[str, ...]] = {}
    for phrase, readings_ in PHRASES_DICT.items():
        if len(readings_) != len(phrase) or len(phrase) < 2:  # none so far: the tables and
            # the phrase cutting (which looks for phrases of two characters or more) would change
            raise ValueError(f"pypinyin phrase {phrase!r} has {len(readings_)} readings")
        phrases[phrase] = tuple(normal(r[0]) for r in readings_)
    chars = {cp: normal(raw.split(",", 1)[0]) for cp, raw in PINYIN_DICT.items()}
    return phrases, chars


def _build(prefix: str) -> None:
    """Write ``prefix.marisa`` and ``prefix.npz`` from pypinyin's data (each written whole)."""
    import marisa_trie
    import numpy as np
    from pypinyin.constants import PINYIN_DICT
    from pypinyin.contrib.tone_convert import to_normal

    phrases, chars = _segment_readings_from_pypinyin()
    every = {cp: _stripped_readings(raw) for cp, raw in PINYIN_DICT.items()}
    normal = sorted({to_normal(r) for raw in PINYIN_DICT.values() for r in raw.split(",")})
    names = sorted({*chars.values(), *(r for rs in every.values() for r in rs), *normal})
    number_of = {name: i for i, name in enumerate(names)}
    size = max(PINYIN_DICT) + 1
    first = np.zeros(size, dtype=np.uint16)
    for cp, name in chars.items():
        first[cp] = 1 + number_of[name]
    offsets = np.zeros(size + 1, dtype=np.uint32)
    flat: list[int] = []
    for cp in range(size):
        flat.extend(number_of[r] for r in every.get(cp, ()))
        offsets[cp + 1] = len(flat)
    arrays: dict[str, Any] = {
        "names": np.frombuffer("\n".join(names).encode(), dtype=np.uint8),
        "first": first,
        "offsets": offsets,
        "all": np.asarray(flat, dtype=np.uint16),
        "normal": np.asarray([number_of[n] for n in normal], dtype=np.uint16),
    }
    trie = marisa_trie.Trie(phrases)
    by_number: list[int] = []
    phrase_offsets = np.zeros(len(trie) + 1, dtype=np.uint32)
    for key, number in sorted(trie.iteritems(), key=lambda item: item[1]):
        by_number.extend(number_of[r] for r in phrases[key])
        phrase_offsets[number + 1] = len(by_number)
    arrays["phrase_offsets"] = phrase_offsets
    arrays["phrase_all"] = np.asarray(by_number, dtype=np.uint16)

    def save_arrays(path: str) -> None:
        with open(path, "wb") as fh:  # a file object: np.savez would add ".npz" to a path
            np.savez(fh, **arrays)

    # the trie last: _tables builds unless both are there
    for suffix, save in ((".npz", save_arrays), (".marisa", trie.save)):
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(prefix), suffix=".tmp")
        os.close(fd)
        try:
            save(tmp)
            os.replace(tmp, prefix + suffix)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)


def _stripped_readings(raw: str) -> tuple[str, ...]:
    """Every toneless reading of one ``pinyin_dict`` entry, most common first, no repeats."""
    out: list[str] = []
    for r in raw.split(","):
        t = strip_tone(r)
        if t and t not in out:
            out.append(t)
    return tuple(out)


def _pypinyin_files() -> list[str]:
    """pypinyin's two data files, found without importing pypinyin."""
    spec = importlib.util.find_spec("pypinyin")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("pypinyin is not installed")
    root = next(iter(spec.submodule_search_locations))
    return [os.path.join(root, name) for name in ("pinyin_dict.json", "phrases_dict.json")]


def _prefix() -> str:
    """The tables' path without suffix, named by a digest of pypinyin's version and data files."""
    import hashlib
    from importlib.metadata import version

    from moderation.wordseg import cache_dir

    stats = [(os.stat(p).st_size, os.stat(p).st_mtime_ns) for p in _pypinyin_files()]
    digest = hashlib.sha256(repr((version("pypinyin"), stats, _FORMAT)).encode()).hexdigest()[:16]
    return os.path.join(cache_dir(), f"pinyin-{digest}")


def _build_in_child(prefix: str) -> None:
    """Run :func:`_build` in a new interpreter that imports this very source tree."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path}
    subprocess.run([sys.executable, "-m", __name__, prefix], check=True, env=env)


@cache
def _tables() -> _Tables:
    import marisa_trie
    import numpy as np

    with _LOCK:
        prefix = _prefix()
        if not (os.path.exists(prefix + ".npz") and os.path.exists(prefix + ".marisa")):
            if "pypinyin" in sys.modules:  # its dictionaries are paid for already
                _build(prefix)
            else:  # a child holds them while it builds, so this process never does
                _build_in_child(prefix)
        trie = marisa_trie.Trie()
        trie.mmap(prefix + ".marisa")
        with np.load(prefix + ".npz") as data:
            names = tuple(bytes(data["names"]).decode().split("\n"))
            first, offsets, all_ = data["first"], data["offsets"], data["all"]
            normal = frozenset(names[i] for i in data["normal"].tolist())
            bounds, flat = data["phrase_offsets"].tolist(), data["phrase_all"].tolist()
        readings_ = [
            tuple(names[i] for i in flat[bounds[k] : bounds[k + 1]]) for k in range(len(trie))
        ]
        longest, pairs = 0, dict[str, int]()
        for key, number in trie.iteritems():
            longest = max(longest, len(key))
            flag = pairs.get(key[:2], 0)
            pairs[key[:2]] = flag + (number + 1) * 2 if len(key) == 2 else flag | _LONGER
        lookup = [None, *names]
        alone = [lookup[i] for i in first.tolist()]
        alone += [None] * (_HANS_TOP + 1 - len(alone))  # every character of a run indexes it
        return _Tables(trie, readings_, longest, pairs, alone, names, first, offsets, all_, normal)


# ------------------------------------------------------------------------------------------------
# Reading


def has_reading(cp: int) -> bool:
    """Whether pypinyin's character dictionary has code point ``cp``.

    >>> has_reading(ord("傻")), has_reading(ord("a"))
    (True, False)
    """
    first = _tables().first
    return 0 <= cp < len(first) and bool(first[cp])


def readings(ch: str) -> tuple[str, ...]:
    """Every toneless reading of a character (:func:`strip_tone`), most common first, no repeats;
    () for a character pypinyin has no reading for."""
    t = _tables()
    cp = ord(ch)
    if cp + 1 >= len(t.offsets):
        return ()
    start, end = int(t.offsets[cp]), int(t.offsets[cp + 1])
    names = t.names
    return tuple(names[i] for i in t.all_[start:end].tolist())


def stripped_syllables() -> set[str]:
    """Every toneless reading :func:`readings` can give (the sound view numbers them)."""
    t = _tables()
    return {t.names[i] for i in set(t.all_.tolist())}


def normal_syllables() -> frozenset[str]:
    """Every reading of pypinyin's character dictionary in its NORMAL style (``to_normal``)."""
    return _tables().normal


def segment_pinyin(segment: str) -> tuple[str, ...]:
    """``lazy_pinyin(segment)`` for one phrase of pypinyin's phrase dictionary or one character
    of a Han run (a character without a reading reads as itself, as pypinyin keeps it)."""
    t = _tables()
    number = t.phrases.get(segment)
    if number is not None:
        return t.readings[number]
    if len(segment) == 1:
        cp = ord(segment)
        reading = t.alone[cp] if cp < len(t.alone) else None
        if reading is not None:
            return (reading,)
    return tuple(segment)


def phrase_segments(chunk: str) -> list[str]:
    """pypinyin's phrase cutting of a run of its Han characters (``mmseg.seg.cut``, strict).

    From each position the longest phrase wins; with none, one character is cut, except that
    when the whole rest of the run is the start of a phrase pypinyin cuts the rest character by
    character without looking further (kept here: the cuts must be pypinyin's own).

    >>> phrase_segments("我是中国人")
    ['我', '是', '中国人']
    """
    out: list[str] = []
    _cut(chunk, _tables(), lambda start, end, _: out.append(chunk[start:end]), out.extend)
    return out


def _cut(chunk: str, t: _Tables, phrase: Any, chars: Any) -> None:
    """:func:`phrase_segments` as calls: ``phrase(start, end, number)`` for a phrase of two
    characters or more, ``chars(text)`` for characters cut one by one."""
    pairs = t.pairs
    pos, n, single = 0, len(chunk), 0  # chunk[single:pos] waits to be cut character by character
    while pos < n - 1:
        kind = pairs.get(chunk[pos : pos + 2], 0)
        if not kind:
            pos += 1
            continue
        hit = _phrase_at(chunk, pos, kind, t)
        if hit is _STOP:
            break
        if hit is None:
            pos += 1
            continue
        end, number = hit
        if single < pos:
            chars(chunk[single:pos])
        phrase(pos, end, number)
        pos = single = end
    if single < n:
        chars(chunk[single:])


#: :func:`_phrase_at`'s answer when the cut stops looking for phrases
_STOP = (-1, -1)


def _phrase_at(chunk: str, at: int, kind: int, t: _Tables) -> tuple[int, int] | None:
    """The phrase the cut takes at ``at`` as ``(end, number)``, None for none there, or
    :data:`_STOP` when the rest starts a phrase but is none: pypinyin then reads it character by
    character without looking further (its own quirk, kept). ``kind`` is ``t.pairs`` of the two
    characters at ``at`` (non-zero)."""
    if not kind & _LONGER:  # a two-character phrase, and no longer one starts with it
        return at + 2, (kind >> 1) - 1
    window = chunk[at : at + t.longest + 1]  # no phrase is longer
    found = None
    for found in t.phrases.iter_prefixes_with_ids(window):  # noqa: B007 - the last is longest
        pass
    if found is not None:
        return at + len(found[0]), found[1]
    if len(window) <= t.longest and next(t.phrases.iterkeys(window), None) is not None:
        return _STOP
    return None


def lazy_pinyin(text: str) -> list[str]:
    """``pypinyin.lazy_pinyin(text)`` (NORMAL style, ``errors="default"``) from the tables; on the
    reference path (:mod:`moderation.implementation`) pypinyin itself."""
    if reference():
        from pypinyin import lazy_pinyin as pypinyin_lazy

        result: list[str] = pypinyin_lazy(text)
        return result
    t = _tables()
    if RE_HANS_RUN.fullmatch(text):  # the usual call: one Han run (features reads run by run)
        return _read_run(text, t)
    out: list[str] = []
    pos = 0
    for m in RE_HANS_RUN.finditer(text):
        if m.start() > pos:  # characters pypinyin has no pinyin for: one item, as they are
            out.append(text[pos : m.start()])
        out += _read_run(m.group(), t)
        pos = m.end()
    if pos < len(text):
        out.append(text[pos:])
    return out


def _read_run(chunk: str, t: _Tables) -> list[str]:
    """``lazy_pinyin`` of one run of :data:`RE_HANS_RUN`: :func:`_cut`'s phrases and characters,
    found with C-level passes.

    Every character is first read alone; each phrase of the cut then overwrites its characters'
    readings with its own (a phrase has one reading per character). The cut visits only the
    positions where the two characters there begin a phrase (about one in five in ordinary
    text): :func:`_cut` steps over every other position one at a time and nothing else, so the
    phrases and the point where it stops looking are the same.
    """
    got = list(map(t.alone.__getitem__, map(ord, chunk)))
    n = len(chunk)
    if n > 1:
        kinds: list[int | None] = list(map(t.pairs.get, map(operator.add, chunk, chunk[1:])))
        readings_ = t.readings
        pos = 0  # the cut's position: phrases starting before it are inside a phrase cut
        for at in itertools.compress(range(n - 1), kinds):
            if at < pos:
                continue
            kind = cast("int", kinds[at])  # compress() keeps the positions that have one
            hit = _phrase_at(chunk, at, kind, t)
            if hit is _STOP:
                break
            if hit is None:
                continue
            end, number = hit
            got[at:end] = readings_[number]
            pos = end
    if None in got:  # a character without a reading reads as itself, as pypinyin keeps it
        return [c if r is None else r for c, r in zip(chunk, got, strict=True)]
    return cast("list[str]", got)


def _main(args: Iterable[str]) -> int:
    (prefix,) = args
    _build(prefix)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
