"""Multi-pattern lexicon matching over the folded and sound views (Aho-Corasick).

The lexicon terms of ``lexicons/terms/*.tsv`` are expanded into variant keys by
:mod:`moderation.variants` and loaded into two Aho-Corasick automata
(:class:`moderation.scan.Scanner`), one over the ``folded`` view and one over the ``sound`` view,
so that a post is scanned once per view however many terms there are.  Candidate hits then pass
three filters that keep game talk clean:

1. **letter boundaries**: a key that starts or ends with a Latin letter or digit must not continue
   a longer word in the original text (``sb`` in ``usb`` is not a hit);
2. **the allow-list** (``lexicons/allow.tsv`` plus the game vocabulary): a hit lying inside an
   allowed word is dropped (``操`` in ``操作``, ``狗`` in ``单身狗``);
3. **jieba word boundaries** (:mod:`moderation.wordseg`): hits of terms of one or two characters
   (and terms marked ``boundary``) and homophone hits must start and end on word boundaries
   (``操`` in ``操作``, ``杀必`` in ``杀必须``); a homophone must not be a common dictionary word
   of its own (``白吃``).

>>> m = default_matcher()
>>> [(c.category, c.term, c.via) for c in m.candidates(normalize("你这个沙比"))]
[('insult', '傻逼', 'homophone')]
>>> m.candidates(normalize("操作失误，被查杀了"))
[]
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import OrderedDict, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from lexicons.loader import (
    CATEGORIES,
    AllowEntry,
    TermEntry,
    load_allow,
    load_game_vocab,
    load_letter_words,
    load_terms,
)
from moderation import pinyin_table
from moderation.normalize import (
    WILDCARD,
    NormalizedText,
    fold_char,
    fold_term,
    is_han,
    normalize,
)
from moderation.scan import Scanner
from moderation.variants import GUARDED_INITIALS_VIA, GUARDED_VIA, sound_keys, text_keys

__all__ = [
    "VIA_CONFIDENCE",
    "Candidate",
    "LexiconMatcher",
    "category_hits",
    "crosses_clause",
    "default_matcher",
    "lexicon_hits",
    "remember_hits",
    "span_via",
]

#: Confidence of a lexicon hit by how it matched (multiplied by the term's weight).
VIA_CONFIDENCE: dict[str, float] = {
    "exact": 0.95,
    "traditional": 0.93,
    "width": 0.93,
    "emoji": 0.9,
    "noise": 0.9,
    "repeat": 0.9,
    "split": 0.85,
    "shape": 0.8,
    "initials": 0.8,
    "homophone": 0.75,
}

#: Terms of at most this many characters must start and end on word boundaries (操 in 操作,
#: 妈的 in 他妈妈的 and 我靠 in 我靠近 are not hits).
SHORT_TERM = 2

# A homophone whose matched text is itself a word at least this frequent in jieba's dictionary
# (白吃, 是比) is ordinary language, not an evasion.
_COMMON_WORD_FREQ = 50


@dataclass(frozen=True)
class Candidate:
    """A rule hit before ruleset scoping: category, article key, span in the ORIGINAL text."""

    category: str
    article: str
    start: int
    end: int
    term: str
    via: str
    confidence: float


def _is_alnum_ascii(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def has_han_span(folded: str, start: int, end: int) -> bool:
    """True when folded ``start..end`` contains a Han character."""
    return any(is_han(c) for c in folded[start:end])


def _punctuated(nt: NormalizedText, start: int, end: int) -> bool:
    """Is there punctuation (not just spaces) between the matched characters in the original?"""
    ostart, oend = nt.span(start, end)
    return any(unicodedata.category(c).startswith("P") for c in nt.original[ostart:oend])


#: Switch for the English-word check of sounded hits (tests turn it off to show what it does).
ENGLISH_WORDS = True


_ASCII_RUN = re.compile("[A-Za-z]+")
#: A stretch of Latin words with the spaces and light punctuation of a sentence between them.
_VOWEL = re.compile("[aeiouy]")
_LATIN_PROSE = re.compile(r"[A-Za-z][A-Za-z'’ ,.!?;:\-]*[A-Za-z]")


def _english_prose(original: str, a: int, b: int) -> bool:
    """Is ``original[a:b]`` one word of an English sentence rather than romanised Chinese?

    In a stretch of three or more Latin words, romanised Chinese reads word by word as pinyin
    syllables (ni ma de sha bi); English does not (that vote made zero sense: made reads as
    ma de, but vote, zero and that read as nothing). When at least a third of the stretch's
    words of two letters or more do not read whole as pinyin, it is English, and a hit inside
    one of its words (made) is not that word sounded as Chinese. A hit across words (sha bi)
    still stands: English has no words that spell the syllables one by one.
    """
    from moderation.features import _pinyin_syllables, split_pinyin

    if not (a < b and original[a:b].isascii() and original[a:b].isalpha()):
        return False
    syllables = _pinyin_syllables()
    for m in _LATIN_PROSE.finditer(original, max(0, a - 200), min(len(original), b + 200)):
        if m.start() <= a and b <= m.end():
            words = [w.lower() for w in _ASCII_RUN.findall(m.group()) if len(w) >= 2]
            if len(words) < 3:
                return False
            # a word with a vowel that does not read as pinyin (sb and nmsl have no vowel: they
            # are initials, however many times repeated)
            foreign = sum(
                1
                for w in words
                if _VOWEL.search(w) and any(p not in syllables for p in split_pinyin(w))
            )
            return 3 * foreign >= len(words)
    return False


def _ascii_letter(ch: str) -> bool:
    return ch.isascii() and ch.isalpha()


#: Switch for :func:`crosses_clause` in the allow-list (tests turn it off to show what it does).
ALLOW_WHOLE_CLAUSE = True


def crosses_clause(nt: NormalizedText, start: int, end: int) -> bool:
    """Does folded ``start..end`` span a clause boundary (punctuation or a line break) in the
    original? Connector and dash punctuation (白_痴, 白-痴) joins characters, it ends no clause.

    >>> from moderation.normalize import normalize
    >>> nt = normalize("白痴，翻牌")
    >>> crosses_clause(nt, 0, 4), crosses_clause(normalize("白痴翻牌"), 0, 4)
    (True, False)
    """
    ostart, oend = nt.span(start, end)
    return any(_ends_clause(c) for c in nt.original[ostart:oend])


def _ends_clause(ch: str) -> bool:
    if ch in "\n\r":
        return True
    cat = unicodedata.category(ch)
    return cat.startswith("P") and cat not in ("Pc", "Pd")


#: What follows a player's seat number (9号, 9楼): a key ending in that digit is no word.
_SEAT_MARKS = frozenset("号號楼樓")


def _alnum_edge(ch: str, side: int) -> bool:
    """Does original character ``ch`` fold to a Latin letter/digit at its ``side`` (0 or -1)?"""
    folded = fold_char(ch)[0]
    return bool(folded) and _is_alnum_ascii(folded[side])


def _has_emoji(nt: NormalizedText, start: int, end: int) -> bool:
    """Did some folded character of ``start..end`` come from an emoji?"""
    source = nt.masked or nt.original
    ostart, oend = nt.span(start, end)
    return any(fold_char(ch)[2] == "emoji" for ch in source[ostart:oend])


#: Characters after which an emoji fills a noun's place (还是🐖, 你个🐶, 这只蠢🫏, 像头🐷) rather
#: than decorating the end of a clause (笑死🐶).
_NOUN_SLOT = frozenset("是个只头条群像当叫这那")


def _decoration(nt: NormalizedText, start: int, end: int) -> bool:
    """Is an emoji-made hit the decoration at the end of a clause rather than a word?

    Only hits made at least half of emoji and not read on by a Han character (``🐶一样``) nor
    standing in a noun's place (``还是🐖``) can be: those made only of emoji (``🐷``), and those
    whose first character belongs to the word before it (``笑死🐶``: 笑死 is a word, not 死狗).
    ``傻🖊`` or ``🐦人`` are words.
    """
    emoji = _emoji_count(nt, start, end)
    if 2 * emoji == 2 * (end - start) and _named_as_emoji(nt, end):
        return True  # 🤡这个表情: the emoji talked about, not written for a word
    if 2 * emoji < end - start or _read_on(nt, end):
        return False
    folded = nt.folded
    if start > 0 and folded[start - 1] in _NOUN_SLOT:
        return False
    if emoji == end - start:
        return True
    from moderation.wordseg import frequencies

    # a dictionary word or the start of one (jieba keeps 笑死 as a prefix of 笑死人)
    return start > 0 and folded[start - 1 : start + 1] in frequencies()


#: Words after an emoji that talk about it as a picture (🤡这个表情, 🐷的emoji, 💩图标).
_EMOJI_NAMED = re.compile(r"(?:这个|这|那个|的)?(?:表情|emoji|图标|符号|贴纸)")


def _named_as_emoji(nt: NormalizedText, end: int) -> bool:
    """Is the emoji that ends before folded ``end`` followed by words naming it as an emoji?"""
    return _EMOJI_NAMED.match(nt.folded, end) is not None


def _read_on(nt: NormalizedText, end: int) -> bool:
    """Is folded ``end`` a Han character right after folded ``end - 1`` in the original?"""
    if end >= len(nt.folded) or not is_han(nt.folded[end]):
        return False
    return nt.offsets[end] == nt.ends[end - 1]


#: A guarded homophone (see :data:`moderation.variants.GUARDED_VIA`) without an emoji counts when
#: jieba knows no such word, every changed character is rarer than this as a word of its own
#: (function words such as 把 108,066, 被, 是, 没 52,407, 吧, 吗, 马 19,918 make cross-word bigrams:
#: 我把, 被逼, 你没, 马的; 姊 4,076 or 抽 2,778 in 老姊 or 小抽 are chosen for their sound), and
#: neither character joins its outer neighbour into a word (这局赢了 holds 局赢, not 巨婴).
GUARDED_CHAR_FREQ = 15000
#: Function words (particles such as 嘛, 呢, 啦; see ``moderation.wordseg.function_characters``)
#: never count as a chosen substitute; the switch is for tests.
PARTICLES_CROSS_WORDS = True


def _rare_substitute(folded: str, start: int, end: int, term: str) -> bool:
    """A two-character homophone that looks chosen, not a bigram across words (see above).

    jieba knows no such word, every substituted character is rarer than
    :data:`GUARDED_CHAR_FREQ`, and neither character joins its outer neighbour into a dictionary
    word or the start of one: in 这局赢了 the 局赢 of 巨婴 belongs to 这局 and 赢了.
    """
    from moderation.wordseg import frequencies, function_characters

    freq = frequencies()
    span = folded[start:end]
    if freq.get(span, 0):
        return False
    changed = [a for a, b in zip(span, term, strict=False) if a != b]
    if not changed or any(freq.get(c, 0) >= GUARDED_CHAR_FREQ for c in changed):
        return False
    if PARTICLES_CROSS_WORDS and any(c in function_characters() for c in changed):
        return False  # 他嘛 is 他 and the particle 嘛, however rare 嘛 is as a word
    if start > 0 and folded[start - 1 : start + 1] in freq:
        return False
    return not (end < len(folded) and folded[end - 1 : end + 1] in freq)


@cache
def _syllable_pairs() -> frozenset[str]:
    """Pinyin syllables of two letters (ma, de, wo): such a run is spelled out, not initials."""
    return frozenset(r for r in pinyin_table.stripped_syllables() if len(r) == 2 and r.isalpha())


def ordinary_pairs(game_words: Iterable[str]) -> frozenset[str]:
    """Two-letter runs never read as a term's guarded initials.

    English words and everyday shorthand (``lexicons/letter_words.txt``), pinyin syllables
    (``ma``), doubled letters (``hh``, ``gg``: 哈哈, 哥哥 and a dozen other 叠词) and the initials
    of the game's own two-character words (``js`` 金水, ``gp`` 归票, ``zb`` 站边).
    """
    game = {
        "".join(s[0] for s in pinyin_table.lazy_pinyin(w))
        for w in game_words
        if len(w) == 2 and all(is_han(c) for c in w)
    }
    doubles = {c * 2 for c in "abcdefghijklmnopqrstuvwxyz"}
    return frozenset(load_letter_words() | _syllable_pairs() | doubles | game)


def chosen_initials(nt: NormalizedText, start: int, end: int) -> bool:
    """Do two letters read as the initials of a word chosen to hide it (我fs, 找个tb, wc！)?

    Only two lowercase letters written among Chinese: the nearest letter or Han character on
    each side (spaces, punctuation and digits skipped) is not a Latin letter, and one of them is
    Han. ``FS`` or ``Fs`` is a name or an acronym, and letters inside an English phrase are
    English (``ok sb`` aside, which lists ``initials``).
    """
    ostart, oend = nt.span(start, end)
    original = nt.original
    letters = original[ostart:oend]
    if len(letters) != 2 or not all(c.isascii() and c.islower() for c in letters):
        return False
    left = _nearest_word_char(original, ostart - 1, -1)
    right = _nearest_word_char(original, oend, 1)
    if _latin(left) or _latin(right):
        return False
    return is_han(left) if left else bool(right) and is_han(right)


def _nearest_word_char(text: str, i: int, step: int) -> str:
    """The first letter or Han character from ``i`` on in direction ``step`` ('' if none)."""
    while 0 <= i < len(text):
        ch = text[i]
        if ch.isalpha():
            return ch
        i += step
    return ""


def _latin(ch: str) -> bool:
    return bool(ch) and unicodedata.name(ch, "").startswith(("LATIN", "FULLWIDTH LATIN"))


def _emoji_count(nt: NormalizedText, start: int, end: int) -> int:
    """How many folded characters of ``start..end`` came from an emoji."""
    source = nt.masked or nt.original
    return sum(
        any(fold_char(ch)[2] == "emoji" for ch in source[nt.offsets[i] : nt.ends[i]])
        for i in range(start, end)
    )


def _recomposed(nt: NormalizedText, source: str, start: int, end: int) -> bool:
    """Whether a folded character of ``start..end`` is a split character put back (女马 → 妈),
    rather than a collapsed repeat (傻傻 → 傻)."""
    folded = nt.folded
    for i in range(start, end):
        a, b = nt.offsets[i], nt.ends[i]
        if b - a > 1 and any(fold_char(ch)[0] not in ("", folded[i]) for ch in source[a:b]):
            return True
    return False


def span_via(nt: NormalizedText, start: int, end: int, key_via: str) -> str:
    """How a hit on folded ``start..end`` was disguised, read off the original characters.

    Key-level kinds (split, shape, homophone, initials) win; otherwise the most telling change
    among the original characters: emoji (🐶 for 狗), traditional, width, repeat (a collapsed
    run inside the span), noise (something removed between the characters), else exact.

    >>> nt = normalize("傻 傻 逼")
    >>> span_via(nt, 0, 2, "exact")
    'repeat'
    >>> span_via(normalize("女马的"), 0, 2, "exact")
    'split'
    """
    if key_via != "exact":
        return key_via
    if WILDCARD in nt.folded[start:end]:
        return "noise"  # matched with the asterisks between its characters ignored
    ostart, oend = nt.span(start, end)
    kinds: set[str] = set()
    kept = 0
    source = nt.masked or nt.original
    for ch in source[ostart:oend]:
        folded, _, kind = fold_char(ch)
        kinds.add(kind)
        if folded:
            kept += 1
    if "emoji" in kinds:
        return "emoji"
    if "traditional" in kinds:
        return "traditional"
    if "width" in kinds:
        return "width"
    if kept > end - start:
        if _recomposed(nt, source, start, end):
            return "split"
        return "repeat"
    if "noise" in kinds:
        return "noise"
    return "exact"


class LexiconMatcher:
    """Aho-Corasick automata over the variant keys of a set of lexicon terms."""

    def __init__(
        self,
        entries: Sequence[TermEntry],
        allow: Sequence[AllowEntry] = (),
        game_words: Iterable[str] = (),
    ) -> None:
        self.entries: tuple[TermEntry, ...] = tuple(entries)
        game_words = tuple(game_words)  # read twice: the allow-list and the ordinary pairs
        self._folded_terms = [fold_term(e.term) for e in self.entries]
        text_map: dict[str, list[tuple[int, str]]] = defaultdict(list)
        sound_map: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for idx, (entry, folded) in enumerate(zip(self.entries, self._folded_terms, strict=True)):
            if not folded:
                continue
            for key, via in text_keys(folded, entry.options):
                text_map[key].append((idx, via))
            for key, via in sound_keys(folded, entry.options):
                sound_map[key].append((idx, via))
        _prune_guarded_initials(sound_map, self.entries, ordinary_pairs(game_words))
        self._text_keys = frozenset(text_map)
        self._text = _automaton(text_map)
        self._sound = _automaton(sound_map)
        allow_map: dict[str, list[str | None]] = defaultdict(list)
        for a in allow:
            word = fold_term(a.word)
            if word:
                allow_map[word].append(a.category)
        for word in game_words:
            folded = fold_term(word)
            if folded:
                allow_map[folded].append(None)
        self._allow = _automaton(allow_map)
        # letter words of three letters or more: English words a mixed key may run into (mad)
        self._english = frozenset(w for w in load_letter_words() if len(w) >= 3)
        self._needs_boundary = tuple(
            "boundary" in e.options or (len(f) <= SHORT_TERM and "no-boundary" not in e.options)
            for e, f in zip(self.entries, self._folded_terms, strict=True)
        )

    def candidates(self, nt: NormalizedText) -> list[Candidate]:
        """Every lexicon hit in ``nt`` that survives the filters (spans in the original text)."""
        folded = nt.folded
        if not folded:
            return []
        raw: dict[tuple[int, int, int], str] = {}
        for end, payload in self._text.iter(folded):
            start = end + 1 - payload[0]
            for idx, via in payload[1]:
                raw.setdefault((idx, start, end + 1), via)
        if WILDCARD in folded:
            # 你*妈*的: asterisks between every character are noise, not masked characters
            kept = [i for i, c in enumerate(folded) if c != WILDCARD]
            bare = "".join(folded[i] for i in kept)
            for end, payload in self._text.iter(bare):
                start = end + 1 - payload[0]
                for idx, via in payload[1]:
                    raw.setdefault((idx, kept[start], kept[end] + 1), via)
        # Only the first reading of each character in the post: evasions are written with a
        # character's everyday sound, and rare readings (被 as pi) would invent homophones.
        for end, payload in self._sound.iter(nt.sound):
            start = end + 1 - payload[0]
            for idx, via in payload[1]:
                raw.setdefault((idx, start, end + 1), via)
        if not raw:
            return []
        allowed = self._allowed_spans(nt)
        seg: _Segmentation | None = None
        runs: _LetterRuns | None = None
        out: list[Candidate] = []
        for (idx, start, end), via in raw.items():
            entry = self.entries[idx]
            runs = runs or _LetterRuns(nt.original)  # computes nothing until a hit needs it
            if not self._letters_bounded(nt, start, end, runs):
                continue
            if any(
                a <= start and end <= b and cat in (None, entry.category) for a, b, cat in allowed
            ):
                continue
            if _decoration(nt, start, end):
                continue  # 笑死🐶 and 🐷 end a clause as decoration; 🐶一样, 还是🐖 say something
            if via == GUARDED_VIA:
                if not (
                    _has_emoji(nt, start, end)
                    or _rare_substitute(folded, start, end, self._folded_terms[idx])
                ):
                    continue  # 我把 is not 我爸, 被逼 not 卑鄙; 尼🐴 is 尼玛, 老姊 is 老子
                via = "homophone"
            elif via == GUARDED_INITIALS_VIA:
                if not chosen_initials(nt, start, end):
                    continue  # FS is a name, "is" English; 我fs and 找个tb are chosen
                via = "initials"
            sounded = via in ("homophone", "initials")
            if sounded and self._english_run(nt, start, end):
                continue  # 他mad了: mad is English, not ma + 的's initial
            has_han = has_han_span(folded, start, end)
            if sounded and not has_han and _punctuated(nt, start, end):
                continue  # A、B、C are player labels, not the initials of 白痴
            if sounded and folded[start:end] in self._text_keys:
                continue  # the text automaton reports this span with a better explanation
            if has_han and (self._needs_boundary[idx] or sounded):
                seg = seg or _Segmentation(folded)
                if not seg.is_word_span(start, end):
                    continue
                if sounded and seg.is_common_word(folded[start:end]):
                    continue
            how = span_via(nt, start, end, via)
            ostart, oend = nt.span(start, end)
            out.append(
                Candidate(
                    category=entry.category,
                    article=entry.article,
                    start=ostart,
                    end=oend,
                    term=entry.term,
                    via=how,
                    confidence=round(VIA_CONFIDENCE[how] * entry.weight, 4),
                )
            )
        return _best_per_span(out)

    def _allowed_spans(self, nt: NormalizedText) -> list[tuple[int, int, str | None]]:
        """Folded spans of the allowed words written as one word in the original.

        Folding drops punctuation, so 白痴，翻牌 folds to the allowed 白痴翻牌; an allowed compound
        split by a clause boundary is two clauses, and the insult in the first one stands.
        """
        spans: list[tuple[int, int, str | None]] = []
        for end, (length, cats) in self._allow.iter(nt.folded):
            start = end + 1 - length
            if ALLOW_WHOLE_CLAUSE and crosses_clause(nt, start, end + 1):
                continue
            spans.extend((start, end + 1, cat) for cat in cats)
        return spans

    def _english_run(self, nt: NormalizedText, start: int, end: int) -> bool:
        """Does folded ``start..end`` hold a whole Latin run that is a listed English word?

        Two-letter words are pruned from the guarded initials when the matcher is built; longer
        ones (``mad``) take part in mixed keys (他 + ma + d), so they are checked here.
        """
        if not self._english or not ENGLISH_WORDS:
            return False
        original = nt.original
        a, b = nt.span(start, end)
        # widen the span to whole Latin runs at its edges; the runs inside are then all whole
        while a > 0 and _ascii_letter(original[a - 1]):
            a -= 1
        while b < len(original) and _ascii_letter(original[b]):
            b += 1
        if any(m.group().lower() in self._english for m in _ASCII_RUN.finditer(original, a, b)):
            return True
        return _english_prose(original, a, b)

    @staticmethod
    def _letters_bounded(
        nt: NormalizedText, start: int, end: int, runs: _LetterRuns | None = None
    ) -> bool:
        """A key starting/ending with a Latin letter or digit must not extend a longer word.

        Neighbours are read in the original text (``ok sb`` keeps its space there), and a run
        that is only the key repeated (``sbsbsb``) still counts as the key. ``runs`` shares the
        run extents and verdicts between the hits of one post (``sb`` repeated 30,000 times
        would otherwise rescan the whole run for every hit).
        """
        folded = nt.folded
        original = nt.original
        ostart, oend = nt.span(start, end)
        if folded[end - 1].isdigit() and original[oend : oend + 1] in _SEAT_MARKS:
            return False  # on 9号 is "on seat 9", not on9: a number before 号 is a player's seat
        left = (
            _is_alnum_ascii(folded[start]) and ostart > 0 and _alnum_edge(original[ostart - 1], -1)
        )
        right = (
            _is_alnum_ascii(folded[end - 1])
            and oend < len(original)
            and _alnum_edge(original[oend], 0)
        )
        if not (left or right):
            return True
        runs = runs or _LetterRuns(original)
        return runs.only_repeats(ostart, oend, folded[start:end])


def _prune_guarded_initials(
    sound_map: dict[str, list[tuple[int, str]]],
    entries: Sequence[TermEntry],
    ordinary: frozenset[str],
) -> None:
    """Drop guarded initials keys that are ordinary pairs or stand for terms of two categories.

    ``fs`` is 发誓 (oath) but also 发烧 (real life): a pair that two categories' terms share says
    nothing about which was meant, so only the terms that list ``initials`` keep it.
    """
    for key, payload in list(sound_map.items()):
        guarded = [p for p in payload if p[1] == GUARDED_INITIALS_VIA]
        if not guarded:
            continue
        categories = {entries[idx].category for idx, _ in payload}
        if key in ordinary or len(categories) > 1:
            kept = [p for p in payload if p[1] != GUARDED_INITIALS_VIA]
            if kept:
                sound_map[key] = kept
            else:
                del sound_map[key]


class _LetterRuns:
    """Letter/digit runs of one post's original text, computed once and shared by its hits.

    A run around ``ostart..oend`` extends left while the previous character folds to a letter
    or digit at its end, and right while the next one does at its start.
    """

    def __init__(self, original: str) -> None:
        self.original = original
        self._bounds: tuple[list[int], list[int]] | None = None
        self._folded: dict[tuple[int, int], str] = {}
        self._verdicts: dict[tuple[int, int, str], bool] = {}

    def _extents(self) -> tuple[list[int], list[int]]:
        """``(run_start, run_end)``: how far left/right a run at each position extends."""
        if self._bounds is None:
            original = self.original
            n = len(original)
            run_start = [0] * (n + 1)
            for i in range(1, n + 1):
                run_start[i] = run_start[i - 1] if _alnum_edge(original[i - 1], -1) else i
            run_end = [n] * (n + 1)
            for i in range(n - 1, -1, -1):
                run_end[i] = run_end[i + 1] if _alnum_edge(original[i], 0) else i
            self._bounds = (run_start, run_end)
        return self._bounds

    def only_repeats(self, ostart: int, oend: int, key: str) -> bool:
        """Is the whole run around ``ostart..oend`` made of ``key`` repeated?"""
        run_start, run_end = self._extents()
        a, b = run_start[ostart], run_end[oend]
        verdict = self._verdicts.get((a, b, key))
        if verdict is None:
            run = self._folded.get((a, b))
            if run is None:
                run = "".join(fold_char(c)[0] for c in self.original[a:b])
                self._folded[(a, b)] = run
            verdict = len(run) % len(key) == 0 and run == key * (len(run) // len(key))
            self._verdicts[(a, b, key)] = verdict
        return verdict


class _Segmentation:
    """jieba word boundaries of one folded post, computed only when a filter needs them."""

    def __init__(self, folded: str) -> None:
        from moderation.wordseg import boundaries

        self.starts, self.ends = boundaries(folded)

    def is_word_span(self, start: int, end: int) -> bool:
        return start in self.starts and end in self.ends

    @staticmethod
    def is_common_word(text: str) -> bool:
        from moderation.wordseg import frequencies

        freq: int = frequencies().get(text, 0)
        return freq >= _COMMON_WORD_FREQ


def _best_per_span(cands: list[Candidate]) -> list[Candidate]:
    """One candidate per (category, span): the most confident, the earliest-listed on a tie."""
    best: dict[tuple[str, int, int], Candidate] = {}
    for c in cands:
        key = (c.category, c.start, c.end)
        if key not in best or c.confidence > best[key].confidence:
            best[key] = c
    return sorted(best.values(), key=lambda c: (c.start, -c.end, c.category))


def _automaton(mapping: dict[str, Any]) -> Scanner:
    """A scanner whose values are ``(length of the key, payload)``; equal values share one tuple
    (tens of thousands of keys carry the same few ``(term, via)`` lists, and a term's variant keys
    mostly have its length), so the values stay small."""
    shared: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    values = ((k, (len(k), tuple(v))) for k, v in mapping.items())
    return Scanner((k, shared.setdefault(value, value)) for k, value in values)


@cache
def default_matcher() -> LexiconMatcher:
    """The matcher over the project's lexicon files (built once per process)."""
    from moderation.variants import release_build_tables

    matcher = LexiconMatcher(
        load_terms(),
        load_allow(),
        (word for word, _, _ in load_game_vocab()),
    )
    release_build_tables()  # the keys are in the automata: the tables that made them can go
    return matcher


# The screener computes every post's candidates before the classifier asks for the same post's
# hits (as features), so it leaves them here; a small FIFO keeps the memory bounded.
_RECENT_HITS: OrderedDict[str, tuple[tuple[str, str], ...]] = OrderedDict()
_RECENT_LIMIT = 4096
_RECENT_LOCK = threading.Lock()


def lexicon_hits(candidates: Iterable[Candidate]) -> tuple[tuple[str, str], ...]:
    """``(category, via)`` of the candidates in classifier categories (the ``l:`` features).

    >>> lexicon_hits(default_matcher().candidates(normalize("你是煞笔")))
    (('insult', 'homophone'),)
    """
    return tuple((c.category, c.via) for c in candidates if c.category in CATEGORIES)


def remember_hits(text: str, candidates: Iterable[Candidate]) -> None:
    """Record ``text``'s lexicon and pattern candidates for :func:`category_hits`."""
    hits = lexicon_hits(candidates)
    with _RECENT_LOCK:
        _RECENT_HITS[text] = hits
        _RECENT_HITS.move_to_end(text)
        while len(_RECENT_HITS) > _RECENT_LIMIT:
            _RECENT_HITS.popitem(last=False)


def category_hits(text: str) -> list[tuple[str, str]]:
    """``(category, via)`` for every lexicon and sentence-pattern hit in ``text``.

    Used by :mod:`moderation.features` for lexicon features; ruleset-independent.

    >>> category_hits("你是煞笔")
    [('insult', 'homophone')]
    """
    with _RECENT_LOCK:
        cached = _RECENT_HITS.get(text)
    if cached is not None:
        return list(cached)
    from moderation.patterns import default_patterns

    nt = normalize(text)
    hits = [(c.category, c.via) for c in default_matcher().candidates(nt)]
    hits += [(c.category, c.via) for c in default_patterns().candidates(nt)]
    return hits
