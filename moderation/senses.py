"""Game senses: the lexicon's hits read in the sense a 版杀 post gives them.

Three layers over the lexicon matcher's candidates, each with its own switch
(:class:`moderation.layers.Layer`), data in ``lexicons/senses.yaml`` and ``lexicons/compounds.tsv``:

* **game senses** (``GAME_SENSES``): a term that is a role or skill of the board (白痴 the role,
  the 乌鸦's 诅咒) is no insult or oath when its sentence talks the game and nobody is addressed
  with it (你就是个白痴 stays an insult); hits inside game words or ordinary compounds that
  contain a term (场外信息, 马甲线, and the jieba-derived ``compounds.tsv``) are dropped;
* **kinship** (``KINSHIP``): 妈的 inside a possessive (拿我妈的快递) is no insult, and inside a
  kinship oath (拿我老妈的名誉担保) it belongs to the oath: 以亲属的人格作为担保, category oath;
* **cross-boundary syllables** (``SYLLABLES``): a term of three or more characters whose hit
  starts or ends inside a word of the post (上一场 in 马上一场雨, 不要脸 in 不要脸红, 二百五 in
  二百五十) is no hit; shorter terms and sound matches already need word boundaries (matcher).

>>> from moderation.lexicon import default_matcher
>>> nt = normalize("我是白痴，被投出去翻牌了")
>>> [c.term for c in default_matcher().candidates(nt)]
['白痴']
>>> apply_senses(nt, default_matcher().candidates(nt), Layer.ALL).candidates
[]
"""

from __future__ import annotations

import bisect
import itertools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import ahocorasick
import yaml

from lexicons.loader import read_text
from moderation.layers import Layer
from moderation.lexicon import Candidate
from moderation.normalize import NormalizedText, fold_term, is_han, normalize

__all__ = ["SenseResult", "Senses", "apply_senses", "default_senses", "load_compounds"]

_NEVER = r"(?!)"  # a sense without one of its three cues

#: Terms of at least this many characters must not start or end inside a word (SYLLABLES).
LONG_TERM = 3


@dataclass(frozen=True)
class _Sense:
    term: str
    category: str
    near: re.Pattern[str]  # right before the hit
    after: re.Pattern[str]  # right after it
    context: re.Pattern[str]  # anywhere in its sentence
    not_near: re.Pattern[str]  # right before it: never the game's word (你老子)
    # the sense holds only where its own cue is: one self-mocking 小丑 does not excuse the next
    local: bool = False
    # the sentences read for `context`: its own, or the whole post (导演…判罚…。双标。)
    whole_post: bool = False


@dataclass(frozen=True)
class SenseResult:
    """Candidates after the sense layers, and the categories of the hits they explained away."""

    candidates: list[Candidate]
    explained: frozenset[str]


def load_compounds() -> list[tuple[str, str]]:
    """``(word, category)`` rows of ``lexicons/compounds.tsv`` (generated: moderation.compounds)."""
    rows: list[tuple[str, str]] = []
    for raw in read_text("compounds.tsv").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        word, category, *_ = raw.split("\t")
        rows.append((word, category))
    return rows


class Senses:
    """The sense layers over one data set (``lexicons/senses.yaml`` + ``compounds.tsv``)."""

    def __init__(self, data: dict[str, Any], compounds: Sequence[tuple[str, str]]) -> None:
        from lexicons.loader import CATEGORIES, load_terms

        self._senses: dict[tuple[str, str], _Sense] = {}
        for s in data["senses"]:
            near, after, ctx, not_near = (
                re.compile(s.get(k) or _NEVER) for k in ("near", "after", "context", "not_near")
            )
            if (s["term"], s["category"]) in self._senses:  # a second entry would replace the first
                raise ValueError(f"senses.yaml: {s['term']} ({s['category']}) has two entries")
            self._senses[(s["term"], s["category"])] = _Sense(
                s["term"],
                s["category"],
                near,
                after,
                ctx,
                not_near,
                bool(s.get("local")),
                s.get("context_scope") == "post",
            )
        self._addressed = re.compile(data["addressed"])
        allow = ahocorasick.Automaton()
        entries: dict[str, set[str]] = {}
        for word, category in [*(tuple(a) for a in data["allow"]), *compounds]:
            folded = fold_term(word)
            if folded:
                entries.setdefault(folded, set()).add(category)
        # the board's own words allow every category, except words that are terms themselves
        terms = {fold_term(e.term) for e in load_terms()}
        vocab = data["vocabulary"]
        for word in (*vocab["roles"], *vocab["terms"]):
            folded = fold_term(word)
            if len(folded) >= 2 and folded not in terms:
                entries.setdefault(folded, set()).update(CATEGORIES)
        for folded, cats in entries.items():
            allow.add_word(folded, (len(folded), frozenset(cats)))
        if not entries:
            allow.add_word("\x00\x00", (2, frozenset()))
        allow.make_automaton()
        self._allow = allow
        self._word_start = frozenset(data["word_start_patterns"])
        self._ordinary = [(cat, re.compile(rx)) for cat, rx in data["ordinary_homophones"]]
        kin = data["kinship"]
        self._possessive = re.compile(kin["possessive"])
        self._kin_oath = re.compile(kin["oath"])
        from moderation.patterns import required_literals

        # the oath's verb (担保, 发誓…) must be in the post for the regex to be worth running
        self._kin_oath_literals = tuple(required_literals(kin["oath"]) or ("",))
        self._possessive_out = frozenset(kin["possessive_rules_out"])
        self._oath_out = frozenset(kin["oath_rules_out"])

    # -- the layers ----------------------------------------------------------------------------

    def apply(self, nt: NormalizedText, cands: Sequence[Candidate], layers: Layer) -> SenseResult:
        """Apply the switched-on sense layers to one post's candidates."""
        out = list(cands)
        explained: set[str] = set()
        if not out:
            return SenseResult(out, frozenset())
        if layers & Layer.GAME_SENSES:
            out = self._game_senses(nt, out, explained)
        if layers & Layer.KINSHIP:
            out = self._kinship(nt, out, explained)
        if layers & Layer.SYLLABLES:
            out = self._syllables(nt, out, explained)
        return SenseResult(out, frozenset(explained))

    def _game_senses(
        self, nt: NormalizedText, cands: list[Candidate], explained: set[str]
    ) -> list[Candidate]:
        allowed = self._allowed_spans(nt)
        if any(c.via == "homophone" for c in cands):
            view = nt.clean_view
            for category, rx in self._ordinary:
                for m in rx.finditer(view.text):
                    a, b = view.span(*m.span())
                    allowed.append((a, b, frozenset({category})))
        kept: list[Candidate] = []
        # a term the post once uses in its game sense (白痴翻牌…) keeps that sense in the rest of
        # the post wherever nobody is addressed with it (…这板子没有白痴吧)
        in_sense: set[tuple[str, str]] = set()
        undecided: list[tuple[Candidate, _Sense]] = []
        for c in cands:
            lexical = c.via != "pattern"
            if lexical and any(
                a <= c.start and c.end <= b and c.category in cats for a, b, cats in allowed
            ):  # a game word, an ordinary compound, or an ordinary phrase heard as a term
                explained.add(c.category)
                continue
            sense = self._senses.get((c.term, c.category)) if lexical else None
            if sense is not None:
                reading = self._in_game_sense(nt.original, c, sense)
                if reading:
                    in_sense.add((c.term, c.category))
                    explained.add(c.category)
                    continue
                if reading is None and not sense.local:
                    undecided.append((c, sense))
            kept.append(c)
        if undecided and in_sense:
            dropped = {id(c) for c, s in undecided if (s.term, s.category) in in_sense}
            if dropped:
                kept = [c for c in kept if id(c) not in dropped]
        return kept

    def _allowed_spans(self, nt: NormalizedText) -> list[tuple[int, int, frozenset[str]]]:
        spans = []
        for end, (length, cats) in self._allow.iter(nt.folded):
            a, b = nt.span(end + 1 - length, end + 1)
            spans.append((a, b, cats))
        return spans

    def _in_game_sense(self, original: str, c: Candidate, sense: _Sense) -> bool | None:
        """Whether ``c`` is used as the game's word and not aimed at anyone.

        True: its own sentence gives the game sense; False: it is aimed at someone; None: no
        cue either way (the game sense holds if another hit of the term in the post has it).
        """
        a, b = _sentence(original, c.start, c.end)
        before = normalize(original[a : c.start]).clean
        if self._addressed.search(before[-8:]) or sense.not_near.search(before[-8:]):
            return False
        after = normalize(original[c.end : b]).clean
        if (
            sense.near.search(before[-8:])
            or sense.after.search(after)
            or sense.context.search(
                normalize(original).clean if sense.whole_post else before + " " + after
            )
        ):
            return True
        return None

    def _kinship(
        self, nt: NormalizedText, cands: list[Candidate], explained: set[str]
    ) -> list[Candidate]:
        view = nt.clean_view
        text = view.text
        possessive = (
            [view.span(*m.span()) for m in self._possessive.finditer(text)]
            if any(c.term in self._possessive_out for c in cands)
            else []
        )
        oaths = (
            [view.span(*m.span()) for m in self._kin_oath.finditer(text)]
            if any(lit in text for lit in self._kin_oath_literals)
            else []
        )
        if not possessive and not oaths:
            return cands
        kept: list[Candidate] = []
        for c in cands:
            if c.via != "pattern":
                if c.term in self._possessive_out and _inside(c, possessive):
                    explained.add(c.category)
                    continue
                if c.term in self._oath_out and c.category != "oath" and _inside(c, oaths):
                    explained.add(c.category)
                    continue
            kept.append(c)
        for a, b in oaths:
            if not any(c.category == "oath" and c.start < b and a < c.end for c in kept):
                kept.append(Candidate("oath", "person", a, b, "kinship-oath", "pattern", 0.9))
        return kept

    def _syllables(
        self, nt: NormalizedText, cands: list[Candidate], explained: set[str]
    ) -> list[Candidate]:
        long = [
            c
            for c in cands
            if c.via not in ("pattern", "homophone", "initials") and _long_han_term(c.term)
        ]
        # the sentence patterns listed in senses.yaml must start a word (上一场 in 马上一场雨)
        patterns = [c for c in cands if c.via == "pattern" and c.term in self._word_start]
        if not long and not patterns:
            return cands
        bounds = _WordBounds(nt)
        crossing = set()
        for c in long:
            if bounds.crosses(c, start_only=False):
                crossing.add(c)
        for c in patterns:
            if bounds.crosses(c, start_only=True):
                crossing.add(c)
        explained.update(c.category for c in crossing)
        return [c for c in cands if c not in crossing]


@cache
def _long_han_term(term: str) -> bool:
    """A term of :data:`LONG_TERM` or more Han characters (its hits skip the matcher's check)."""
    folded = fold_term(term)
    return len(folded) >= LONG_TERM and all(is_han(ch) for ch in folded)


#: Longest dictionary word looked for across a hit's edge (二百五十元 is five characters).
_MAX_WORD = 6


class _WordBounds:
    """Whether a hit starts or ends inside a jieba word of the post, computed lazily.

    Only a dictionary word can cross a hit's edge (jieba without HMM joins nothing else), so an
    edge no dictionary word of the post spans is a boundary without segmenting anything; the
    rest are settled by jieba's cut of the stretch between punctuation marks around the hit.
    The folded view drops punctuation, so 揭秘帖见，到时候 would otherwise read 见到 as one word
    across the comma.
    """

    def __init__(self, nt: NormalizedText) -> None:
        from moderation.wordseg import frequencies

        self.nt = nt
        self.freq = frequencies()
        self._pieces: list[int] | None = None
        self._cut: dict[int, tuple[frozenset[int], frozenset[int]]] = {}

    def crosses(self, c: Candidate, *, start_only: bool) -> bool:
        """Does ``c`` start (or, unless ``start_only``, end) strictly inside a word?"""
        offsets, ends = self.nt.offsets, self.nt.ends
        fs = bisect.bisect_left(offsets, c.start)
        if fs < len(offsets) and offsets[fs] == c.start and self.edge_inside(fs):
            return True
        if start_only:
            return False
        fe = bisect.bisect_right(ends, c.end)  # just after the last folded char ending there
        return fe > 0 and ends[fe - 1] == c.end and self.edge_inside(fe)

    def edge_inside(self, pos: int) -> bool:
        """Whether folded position ``pos`` lies strictly inside a jieba word of the post."""
        folded = self.nt.folded
        if pos <= 0 or pos >= len(folded):
            return False
        # jieba's FREQ holds every prefix of its words: no entry for folded[a:pos + 1] means no
        # dictionary word starting at ``a`` runs across ``pos``
        freq = self.freq
        if not any(
            folded[a : pos + 1] in freq for a in range(pos - 1, max(-1, pos - _MAX_WORD), -1)
        ):
            return False
        lo, hi = self._piece(pos)
        starts, ends = self._cuts(lo, hi)
        return pos not in starts and pos not in ends

    def _piece(self, pos: int) -> tuple[int, int]:
        if self._pieces is None:
            nt = self.nt
            folded, original = nt.folded, nt.original
            pieces = [0]
            for i in range(1, len(folded)):
                gap = original[nt.ends[i - 1] : nt.offsets[i]]
                if any(unicodedata.category(ch)[0] in "PZ" or ch == "\n" for ch in gap):
                    pieces.append(i)
            pieces.append(len(folded))
            self._pieces = pieces
        pieces = self._pieces
        for lo, hi in itertools.pairwise(pieces):
            if lo <= pos < hi:
                return lo, hi
        return pieces[-2], pieces[-1]

    def _cuts(self, lo: int, hi: int) -> tuple[frozenset[int], frozenset[int]]:
        if lo not in self._cut:
            from moderation.wordseg import boundaries

            s, e = boundaries(self.nt.folded[lo:hi])
            self._cut[lo] = frozenset(lo + x for x in s), frozenset(lo + x for x in e)
        return self._cut[lo]


def _inside(c: Candidate, spans: Sequence[tuple[int, int]]) -> bool:
    return any(a <= c.start and c.end <= b for a, b in spans)


_SENTENCE_MARKS = "。！？!?；;\n"


_SENTENCE_END = re.compile("[" + _SENTENCE_MARKS + "]")
#: At most this many characters of a hit's sentence on each side of it are read: a run with no
#: sentence mark at all (a 64 KiB post of one oath repeated, thousands of hits) would otherwise
#: make every hit read the whole post, and screening it take seconds.
_MAX_SENTENCE_SIDE = 160


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence around ``start:end``: from after the last mark before it to the next mark,
    at most :data:`_MAX_SENTENCE_SIDE` characters each side.

    >>> _sentence("他是狼。我发誓我是好人！对吧", 6, 8)
    (4, 11)
    """
    low = max(0, start - _MAX_SENTENCE_SIDE)
    a = max(max(text.rfind(mark, low, start) for mark in _SENTENCE_MARKS) + 1, low)
    m = _SENTENCE_END.search(text, end, end + _MAX_SENTENCE_SIDE)
    return a, m.start() if m else min(len(text), end + _MAX_SENTENCE_SIDE)


@cache
def default_senses() -> Senses:
    """The sense layers over the project's data files (built once per process)."""
    return Senses(yaml.safe_load(read_text("senses.yaml")), load_compounds())


def apply_senses(nt: NormalizedText, cands: Sequence[Candidate], layers: Layer) -> SenseResult:
    """:meth:`Senses.apply` with the project's data."""
    return default_senses().apply(nt, cands, layers)
