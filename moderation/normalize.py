"""Normalisation views of a post, each mapped back to offsets in the original text.

Players dodge keyword lists with full-width letters, traditional characters, inserted spaces
and emoji, repeated characters, circled digits and pinyin.  :func:`normalize` folds all of that
away once per post and keeps, for every folded character, where it came from in the original
text, so that a finding in a folded view can always be reported as a span of what the player
actually typed.

Views (all derived from one per-character fold, see ``docs/moderation.md``):

``folded``
    NFKC (width, compatibility digits such as ``①`` and ``𝟔``), lower case, traditional to
    simplified (OpenCC ``t2s``), other digit/letter styles (``❶``, ``🅰``, Unicode's confusables
    such as Cyrillic ``ѕ``), emoji that stand for a character (``🐶`` 狗, from CLDR names), noise
    removed (spaces, punctuation, zero-width and control characters, emoji and other
    symbols, BBCode tags), runs of one repeated Han character (or of three or more letters)
    collapsed to one, except doubled kinship words such as ``妈妈``.
    Wildcard symbols (``*``, ``×``, ``○``, ``□``...) survive as ``*``: ``傻*`` is an evasion.
``clean``
    The same per-character fold but with punctuation and spaces kept and nothing collapsed: the
    view for patterns that need punctuation (URLs, chat-log time stamps).
``pinyin`` / ``initials`` / ``sound``
    Per folded character: every toneless reading of a Han character (all readings of
    heteronyms), the initial letter of its first reading, and one private-use "syllable" code
    point per Han character (letters and digits as themselves), so that homophones can be
    matched as plain substrings.

>>> nt = normalize("傻 傻 ＢＩ！")
>>> nt.folded
'傻bi'
>>> nt.span(0, 3)
(0, 6)
>>> nt.original[slice(*nt.span(0, 3))]
'傻 傻 ＢＩ'
>>> normalize("說話").folded
'说话'
>>> normalize("行").pinyin
(('xing', 'hang', 'heng'),)
"""

from __future__ import annotations

import itertools
import re
import threading
import unicodedata
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from importlib import resources

from moderation import pinyin_table

__all__ = [
    "WILDCARD",
    "NormalizedText",
    "View",
    "fold_char",
    "fold_term",
    "is_han",
    "normalize",
    "readings",
    "syllable_code",
]

#: The folded form of every wildcard symbol players use to mask one character (傻*, 傻×, 傻○).
WILDCARD = "*"

_WILDCARD_SOURCES = frozenset("*＊×✕✖✗✘○◯□■●◎◇◆△▲☆★※")

# BBCode tags between characters are noise to the folded view (``[b]傻[/b]逼``), but the font rule
# reads them from the original text, so they are masked here, never deleted from ``original``.
_BBCODE_TAG = re.compile(r"\[/?[a-zA-Z][a-zA-Z0-9]*(?:=[^\[\]\n]{0,80})?\]")
_MASK = "\x00"
#: Put split characters back together in the folded and clean views (``moderation.recompose``);
#: a switch so that a before/after comparison can screen without it.
RECOMPOSE = True

# Private-use code points (Supplementary Private Use Area-A) for syllables in the ``sound`` view.
_SYLLABLE_BASE = 0xF0000


def is_han(ch: str) -> bool:
    """True for CJK ideographs (the characters that have pinyin readings).

    >>> is_han("狼"), is_han("a"), is_han("，")
    (True, False, False)
    """
    cp = ord(ch)
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x3134F
        or 0xF900 <= cp <= 0xFAFF
        or cp == 0x3007
    )


#: Switches for the generated tables (tests turn them off to show what each adds).
GENERATED_CONFUSABLES = True
GENERATED_EMOJI = True
#: Emoji standing for a word (the generated nouns and the rows of ``lexicons/emoji.tsv``).
EMOJI_WORDS = True


def _load_confusables() -> dict[str, str]:
    """Look-alike letters NFKC leaves alone: Unicode's confusables, then the hand rows."""
    table: dict[str, str] = {}
    if GENERATED_CONFUSABLES:
        from moderation.glyphs import confusables

        table.update(confusables())
    for target, sources in _mapping_rows("confusables.tsv"):
        for src in sources:
            table[src] = target
    return table


def _mapping_rows(name: str) -> list[tuple[str, list[str]]]:
    """The rows of a ``target<TAB>source source…`` file of ``lexicons/`` (comments skipped)."""
    text = resources.files("lexicons").joinpath(name).read_text(encoding="utf-8")
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            target, _, sources = line.partition("\t")
            rows.append((target, sources.split()))
    return rows


@cache
def _confusables() -> dict[str, str]:
    return _load_confusables()


@cache
def _emoji() -> dict[str, str]:
    """Emoji that stand for a Han character (🐶 狗, 🐴 马) or a word (🏥 医院), from CLDR Chinese
    names, then the hand rows of ``emoji.tsv`` (💀 死, 🔪 刀)."""
    table: dict[str, str] = {}
    if GENERATED_EMOJI:
        from moderation.glyphs import emoji_chars

        table.update(emoji_chars())
    if EMOJI_WORDS:
        from moderation.glyphs import emoji_words

        table.update(emoji_words())
        for target, sources in _mapping_rows("emoji.tsv"):
            for src in (s.replace("\ufe0f", "") for s in sources):
                if target == "-":
                    table.pop(src, None)
                else:
                    table[src] = target
    return table


@cache
def _keep_doubles() -> frozenset[str]:
    from lexicons.loader import load_keep_doubles

    return load_keep_doubles()


@cache
def _t2s() -> object:
    import opencc

    return opencc.OpenCC("t2s")


def _to_simplified(ch: str) -> str:
    conv = _t2s()
    out: str = conv.convert(ch)  # type: ignore[attr-defined]
    return out if out else ch


_NAME_STYLE = re.compile(
    r"(?:DIGIT|LATIN (?:CAPITAL|SMALL) LETTER|REGIONAL INDICATOR SYMBOL LETTER) (\w+)"
)
_DIGIT_NAMES = {
    "ZERO": "0",
    "ONE": "1",
    "TWO": "2",
    "THREE": "3",
    "FOUR": "4",
    "FIVE": "5",
    "SIX": "6",
    "SEVEN": "7",
    "EIGHT": "8",
    "NINE": "9",
}


def _styled_alnum(ch: str) -> str | None:
    """Map digit/letter styles NFKC does not decompose (❶, 🅰, 🇦) by their Unicode name."""
    name = unicodedata.name(ch, "")
    if not name:
        return None
    m = _NAME_STYLE.search(name)
    if m is None:
        return None
    word = m.group(1)
    if "DIGIT" in m.group(0):
        return _DIGIT_NAMES.get(word)
    if len(word) == 1 and "A" <= word <= "Z":
        return word.lower()
    return None


def _keep_in_clean(ch: str) -> bool:
    """Characters the ``clean`` view keeps: all but control/format/marks/emoji-like symbols.

    Newlines and tabs are kept because chat-log shapes are line-based.
    """
    if ch in "\n\t":
        return True
    cat = unicodedata.category(ch)
    return not (cat[0] in "CM" or cat == "So" or cat == "Sk")


@lru_cache(maxsize=1 << 16)
def fold_char(ch: str) -> tuple[str, str, str]:
    """Fold one original character.

    Returns ``(folded, clean, kind)``: its contribution to the ``folded`` view ("" when it is
    noise), its contribution to the ``clean`` view, and what changed it: ``""`` (nothing, or
    only case), ``"width"`` (NFKC, full-width, digit/letter styles, look-alike letters),
    ``"emoji"`` (an emoji standing for the character its Chinese name is: 🐶 狗),
    ``"traditional"`` or ``"noise"``.

    >>> fold_char("Ｂ"), fold_char("說"), fold_char("！")
    (('b', 'b', 'width'), ('说', '说', 'traditional'), ('', '!', 'noise'))
    >>> fold_char("①"), fold_char("×")
    (('1', '1', 'width'), ('*', '*', ''))
    """
    if ch == _MASK:
        return "", "", "noise"
    if ch in _WILDCARD_SOURCES:
        return WILDCARD, WILDCARD, ""
    conf = _confusables().get(ch)
    if conf is not None:
        return conf, conf, "width"
    pictured = _emoji().get(ch)
    if pictured is not None:
        return pictured, pictured, "emoji"
    nfkc = unicodedata.normalize("NFKC", ch)
    kind = "width" if nfkc != ch else ""
    if nfkc == ch and not ch.isascii() and not is_han(ch):
        styled = _styled_alnum(ch)
        if styled is not None:
            return styled, styled, "width"
    folded_parts: list[str] = []
    clean_parts: list[str] = []
    for c in nfkc.lower():
        if c in _WILDCARD_SOURCES:
            folded_parts.append(WILDCARD)
            clean_parts.append(WILDCARD)
            continue
        if c.isalnum():
            s = _to_simplified(c) if is_han(c) else c
            if s != c and not kind:
                kind = "traditional"
            folded_parts.append(s)
            clean_parts.append(s)
        elif _keep_in_clean(c):
            clean_parts.append(c)
    folded = "".join(folded_parts)
    if not folded:
        kind = "noise"
    return folded, "".join(clean_parts), kind


# Translate tables remember at most this many characters each, so posts made of ever-new rare
# code points cannot grow memory without bound (the tables then just compute, uncached).
_TABLE_LIMIT = 1 << 17


class _FoldTable(dict[int, str]):
    """``str.translate`` table that computes and caches :func:`fold_char` on first sight."""

    def __init__(self, index: int) -> None:
        super().__init__()
        self._index = index

    def __missing__(self, cp: int) -> str:
        value = fold_char(chr(cp))[self._index]
        if len(self) < _TABLE_LIMIT:
            self[cp] = value
        return value


class _LengthTable(dict[int, str]):
    """Translate table giving one code unit per original char: chr(length of its fold)."""

    def __init__(self, index: int) -> None:
        super().__init__()
        self._index = index

    def __missing__(self, cp: int) -> str:
        value = chr(len(fold_char(chr(cp))[self._index]))
        if len(self) < _TABLE_LIMIT:
            self[cp] = value
        return value


_FOLD = _FoldTable(0)
_FOLD_LEN = _LengthTable(0)
_CLEAN = _FoldTable(1)
_CLEAN_LEN = _LengthTable(1)


@lru_cache(maxsize=1 << 16)
def readings(ch: str) -> tuple[str, ...]:
    """Every toneless pinyin reading of a Han character, most common first; () for anything else.

    Read from pypinyin's character dictionary through :mod:`moderation.pinyin_table` (compact
    tables, so the service need not hold pypinyin's dictionaries).

    >>> readings("傻"), readings("绿"), readings("a")
    (('sha',), ('lv', 'lu'), ())
    """
    return pinyin_table.readings(ch)


_SYLLABLE_LOCK = threading.Lock()


@cache
def _syllables() -> dict[str, str]:
    """Every toneless syllable in pypinyin's table, numbered in sorted order (deterministic)."""
    names = pinyin_table.stripped_syllables()
    return {name: chr(_SYLLABLE_BASE + i) for i, name in enumerate(sorted(names))}


def syllable_code(syllable: str) -> str:
    """The private-use code point standing for one toneless syllable in the ``sound`` view.

    >>> syllable_code("sha") == syllable_code("sha") != syllable_code("shi")
    True
    """
    table = _syllables()
    code = table.get(syllable)
    if code is None:  # a reading outside pypinyin's table (never seen so far): number it once
        with _SYLLABLE_LOCK:
            code = table.setdefault(syllable, chr(_SYLLABLE_BASE + len(table)))
    return code


class _SoundTable(dict[int, str]):
    """Translate table for the ``sound`` view: a character's first reading, as one code point."""

    def __missing__(self, cp: int) -> str:
        ch = chr(cp)
        rs = readings(ch)
        if rs:
            value = syllable_code(rs[0])
        elif 0xF0000 <= cp <= 0x10FFFF:
            value = " "  # a raw private-use char in a post must never pose as a syllable
        else:
            value = ch
        if len(self) < _TABLE_LIMIT:
            self[cp] = value
        return value


class _InitialTable(dict[int, str]):
    def __missing__(self, cp: int) -> str:
        rs = readings(chr(cp))
        value = rs[0][0] if rs else chr(cp)
        if len(self) < _TABLE_LIMIT:
            self[cp] = value
        return value


_SOUND = _SoundTable()
_INITIALS = _InitialTable()

# Runs of one repeated letter or Han character; digits are left alone (QQ numbers, scores).
_REPEAT_RUN = re.compile(r"([^\W\d_])\1+")


class View:
    """One folded view with its map back to the original text.

    ``starts[i]`` is the original index of the character that produced ``text[i]``; ``ends[i]``
    is the original index just after it (after the last of a collapsed run).

    The maps are built on first use: most posts are matched, found clean and never ask where a
    character came from, so a view made by :func:`normalize` keeps the masked text and its
    length table until then. Views compare and hash by ``(text, starts, ends)``.
    """

    __slots__ = ("_ends", "_lengths", "_masked", "_starts", "text")

    def __init__(
        self,
        text: str,
        starts: tuple[int, ...] | None = None,
        ends: tuple[int, ...] | None = None,
        *,
        masked: str = "",
        lengths: dict[int, str] | None = None,
    ) -> None:
        if (starts is None or ends is None) and lengths is None:
            raise ValueError("a view needs its maps or the table to build them from")
        self.text = text
        self._starts = starts
        self._ends = ends
        self._masked = masked
        self._lengths = lengths

    @property
    def starts(self) -> tuple[int, ...]:
        """View index -> original index of the character it came from."""
        starts = self._starts
        if starts is None:
            starts = self._build()[0]
        return starts

    @property
    def ends(self) -> tuple[int, ...]:
        """View index -> original index just after it."""
        ends = self._ends
        if ends is None:
            ends = self._build()[1]
        return ends

    def _build(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        lengths = self._lengths
        assert lengths is not None
        # one code unit per original character: chr(how many view characters it became)
        codes = self._masked.translate(lengths)
        n = len(codes)
        starts: tuple[int, ...]
        ends: tuple[int, ...]
        if len(self.text) == n and codes.count("\x01") == n:
            starts, ends = tuple(range(n)), tuple(range(1, n + 1))
        elif max(codes, default="\x00") <= "\x01":
            kept = codes.encode("latin-1")  # 0 or 1 per character: compress keeps the ones
            starts = tuple(itertools.compress(range(n), kept))
            ends = tuple(itertools.compress(range(1, n + 1), kept))
        else:
            st: list[int] = []
            for i, c in enumerate(codes):
                if c != "\x00":
                    st.extend([i] * ord(c))
            starts, ends = tuple(st), tuple(i + 1 for i in st)
        # a thread that built them too built the same maps
        self._starts, self._ends = starts, ends
        return starts, ends

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Original ``(start, end)`` covering view characters ``start..end-1`` (end exclusive)."""
        if end <= start:
            pos = self.starts[start] if start < len(self.text) else self._tail()
            return pos, pos
        return self.starts[start], self.ends[end - 1]

    def _tail(self) -> int:
        return self.ends[-1] if self.ends else 0

    def _key(self) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
        return self.text, self.starts, self.ends

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, View):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"View(text={self.text!r}, starts={self.starts!r}, ends={self.ends!r})"

    def __reduce__(self) -> tuple[type[View], tuple[str, tuple[int, ...], tuple[int, ...]]]:
        return View, self._key()  # the maps themselves, never the shared length table


def _build_view(masked: str, fold: dict[int, str], lengths: dict[int, str]) -> View:
    """A view of ``masked`` through a fold table; its maps are built when first asked for."""
    return View(masked.translate(fold), masked=masked, lengths=lengths)


def _collapse(view: View) -> tuple[View, tuple[tuple[int, int], ...]]:
    """Collapse repeated letters/Han characters; returns the view and the collapsed runs."""
    text = view.text
    if _REPEAT_RUN.search(text) is None:
        return view, ()
    runs: list[tuple[int, int]] = []
    pieces: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    keep = _keep_doubles()
    for m in _REPEAT_RUN.finditer(text):
        a, b = m.span()
        if b - a == 2 and (text[a] in keep or text[a].isascii()):
            continue  # 妈妈, 哥哥: an ordinary word; zz, mm: abbreviations, not evasions
        pieces.append(text[pos:a])
        starts.extend(view.starts[pos:a])
        ends.extend(view.ends[pos:a])
        pieces.append(text[a])
        starts.append(view.starts[a])
        ends.append(view.ends[b - 1])
        runs.append((a, b))
        pos = b
    pieces.append(text[pos:])
    starts.extend(view.starts[pos:])
    ends.extend(view.ends[pos:])
    return View("".join(pieces), tuple(starts), tuple(ends)), tuple(runs)


@dataclass(frozen=True)
class NormalizedText:
    """A post and its normalisation views (see the module docstring).

    ``folded``/``offsets``/``ends`` are the main matching view; ``clean`` is a lighter view with
    its own offsets; ``pinyin``, ``initials`` and ``sound`` are per character of ``folded``.
    """

    original: str
    folded_view: View
    clean_view: View = field(repr=False)
    collapsed: bool = False
    masked: str = field(default="", repr=False)
    """``original`` with BBCode tags blanked to NUL (same length); empty when it had none."""

    @property
    def folded(self) -> str:
        """The fully folded text used for lexicon matching."""
        return self.folded_view.text

    @property
    def offsets(self) -> tuple[int, ...]:
        """Folded index -> original index of the character it came from."""
        return self.folded_view.starts

    @property
    def ends(self) -> tuple[int, ...]:
        """Folded index -> original index just after it (covers collapsed repeats)."""
        return self.folded_view.ends

    @property
    def clean(self) -> str:
        """Per-character fold with punctuation kept and nothing collapsed."""
        return self.clean_view.text

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Original ``(start, end)`` of folded characters ``start..end-1``.

        >>> nt = normalize("ＳＢ")
        >>> nt.span(0, 2)
        (0, 2)
        """
        return self.folded_view.span(start, end)

    @cached_property
    def pinyin(self) -> tuple[tuple[str, ...], ...]:
        """Every toneless reading of each folded character (() for non-Han characters)."""
        return tuple(readings(c) for c in self.folded)

    @cached_property
    def initials(self) -> str:
        """First letter of each folded Han character's first reading; other characters as is.

        >>> normalize("你妈死了").initials
        'nmsl'
        """
        return self.folded.translate(_INITIALS)

    @property
    def sound(self) -> str:
        """One private-use code point per Han syllable (first reading); letters/digits as is.

        Same length as ``folded``, so its indices are folded indices. Not cached: the lexicon
        matcher reads it once per post, and one ``str.translate`` costs less than
        ``cached_property``'s lock.
        """
        return self.folded.translate(_SOUND)


def _recompose(view: View) -> View:
    """``view`` with its split characters put back (扌斤言 → 誓: :mod:`moderation.recompose`),
    each recomposed character mapping back to its whole run; only runs written side by side in
    the original (no symbol or space inside) are read."""
    if not RECOMPOSE:
        return view
    from moderation.recompose import find_compositions

    found = find_compositions(view.text)
    if not found:
        return view
    text, starts, ends = view.text, view.starts, view.ends
    pieces: list[str] = []
    st: list[int] = []
    en: list[int] = []
    pos = 0
    for a, b, ch in found:
        if any(ends[k] != starts[k + 1] for k in range(a, b - 1)):
            continue
        pieces.append(text[pos:a])
        st.extend(starts[pos:a])
        en.extend(ends[pos:a])
        pieces.append(ch)
        st.append(starts[a])
        en.append(ends[b - 1])
        pos = b
    if not pos:
        return view
    pieces.append(text[pos:])
    st.extend(starts[pos:])
    en.extend(ends[pos:])
    return View("".join(pieces), tuple(st), tuple(en))


def normalize(text: str) -> NormalizedText:
    """Fold ``text`` into its normalisation views (see the module docstring).

    Never raises on odd input (lone surrogates, control characters, only emoji): such characters are
    noise.  Size limits are the screener's business, not this function's.

    >>> nt = normalize("[b]傻[/b]逼😀")
    >>> nt.folded, nt.span(0, 2)
    ('傻逼', (3, 9))
    >>> normalize("").folded
    ''
    """
    return _normalize(text, recompose=True)


def _normalize(text: str, *, recompose: bool) -> NormalizedText:
    masked = text
    if "[" in text:
        masked = _BBCODE_TAG.sub(lambda m: _MASK * (m.end() - m.start()), text)
    folded = _build_view(masked, _FOLD, _FOLD_LEN)
    clean = _build_view(masked, _CLEAN, _CLEAN_LEN)
    if recompose:
        recomposed = _recompose(folded)
        if recomposed is not folded:  # a run of the clean view is one of the folded view too
            folded, clean = recomposed, _recompose(clean)
    collapsed_view, runs = _collapse(folded)
    return NormalizedText(
        text, collapsed_view, clean, bool(runs), masked if masked is not text else ""
    )


def fold_term(term: str) -> str:
    """Fold a lexicon term exactly as posts are folded, so terms and posts meet in one space.

    Split characters are not put back (``fold_term("女马")`` stays 女马): terms are written
    plainly, and their split forms are keys of their own (``moderation.variants.split_forms``).

    >>> fold_term("傻 逼！"), fold_term("說謊")
    ('傻逼', '说谎')
    """
    return _normalize(term, recompose=False).folded
