"""Perturb labelled violations the way evaders do, and measure how much screening survives.

:func:`perturb` rewrites one span of a post in one evasion *kind* (deterministic for a given
seed); :func:`invariance` screens every corpus violation in its plain form, perturbs each span
that made it a finding of its labelled category, screens it again, and reports per kind the share
of posts caught plain that are still caught perturbed.  ``bansha screen-invariance`` prints that
table (:func:`main`).

Kinds (what a player does to a word):

==================  ==========================================================================
``homophone``       characters replaced by common characters of the same sound (傻逼 → 沙比)
``pinyin``          the word spelled in pinyin, no spaces (shabi)
``pinyin_spaced``   spelled in pinyin with spaces (sha bi)
``pinyin_fullwidth`` spelled in full-width letters (ｓｈａ ｂｉ)
``initials``        the pinyin initials (sb), for two or more characters
``split``           one character written as its components (弓虽 for 强)
``lookalike``       one character replaced by a look-alike (偪 for 逼)
``confusable``      Latin letters (the pinyin, if the word has none) as Cyrillic/Greek look-alikes
``traditional``     traditional characters (OpenCC ``s2t``)
``emoji``           a character replaced by an emoji that stands for it or for its sound (🐶, 🐴)
``noise``           symbols, spaces, zero-width characters or BBCode between the characters
``swapped``         two neighbouring characters swapped (reported, not expected to hold)
==================  ==========================================================================

Only plain violations (corpus ``evasion: none``) and only their lexicon-term findings are
disguised (the word an evader would hide); a span longer than four characters is perturbed on a
window of two Han characters inside it.  Where a kind cannot apply (no character with an emoji,
no split form), the post is not counted for that kind.

The look-alike, confusable and emoji kinds draw on the same generated tables the matcher folds
with (:mod:`moderation.glyphs`), so they measure that the matcher reads them in context (word
boundaries, allow-list, patterns), not that the tables are complete.
"""

from __future__ import annotations

import argparse
import random
import sys
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from moderation.normalize import fold_term, is_han, readings

__all__ = [
    "KINDS",
    "TARGET",
    "KindResult",
    "invariance",
    "main",
    "perturb",
]

KINDS: tuple[str, ...] = (
    "homophone",
    "pinyin",
    "pinyin_spaced",
    "pinyin_fullwidth",
    "initials",
    "split",
    "lookalike",
    "confusable",
    "traditional",
    "emoji",
    "noise",
    "swapped",
)
#: The share every kind but ``swapped`` should keep (issue 11).
TARGET = 0.85
#: Homophones are drawn from characters at least this common in jieba's dictionary: evaders
#: write 沙比, not a rare character of the same sound nobody recognises.
COMMON_FREQ = 2000
_WINDOW = 2
#: The initials kind needs at least this many Han characters: one letter stands for nothing.
MIN_INITIALS = 2
_NOISE = (" ", "  ", "*", ".", "·", "、", "\u200b", "~", "😂", "[b][/b]", "|", "-")


@cache
def _homophones() -> dict[str, tuple[str, ...]]:
    """First reading -> common characters that read so first (sorted, deterministic)."""
    from pypinyin.pinyin_dict import pinyin_dict

    from moderation.wordseg import tokenizer

    freq = tokenizer().FREQ
    out: dict[str, list[str]] = {}
    for cp in sorted(pinyin_dict):
        ch = chr(cp)
        if not is_han(ch) or freq.get(ch, 0) < COMMON_FREQ:
            continue
        rs = readings(ch)
        if rs:
            out.setdefault(rs[0], []).append(ch)
    return {k: tuple(v) for k, v in out.items()}


@cache
def _emoji_for() -> dict[str, tuple[str, ...]]:
    """Han character -> emoji standing for it or for a character of the same first reading."""
    from moderation.glyphs import emoji_chars

    by_char: dict[str, list[str]] = {}
    for symbol, ch in sorted(emoji_chars().items()):
        by_char.setdefault(ch, []).append(symbol)
    by_sound: dict[str, list[str]] = {}
    for ch, symbols in by_char.items():
        for r in readings(ch)[:1]:
            by_sound.setdefault(r, []).extend(symbols)
    out: dict[str, tuple[str, ...]] = {}
    from pypinyin.pinyin_dict import pinyin_dict  # generating evasions (training) only

    for cp in pinyin_dict:
        ch = chr(cp)
        rs = readings(ch)
        found = by_char.get(ch) or (by_sound.get(rs[0]) if rs else None)
        if found:
            out[ch] = tuple(found)
    return out


@cache
def _latin_lookalikes() -> dict[str, tuple[str, ...]]:
    from moderation.normalize import _confusables

    out: dict[str, list[str]] = {}
    for src, target in sorted(_confusables().items()):  # what the matcher folds with
        # evaders type what their keyboard offers: Greek, Cyrillic and IPA letters
        if (src.islower() or not src.isalpha()) and 0x0250 <= ord(src) <= 0x04FF:
            out.setdefault(target, []).append(src)
    return {k: tuple(v) for k, v in out.items()}


def _pinyin_of(text: str) -> list[str]:
    """Syllables of the Han characters in ``text`` (in context), other characters as they are."""
    from pypinyin import Style, lazy_pinyin

    return list(lazy_pinyin(text, style=Style.NORMAL, errors="default"))


def _to_fullwidth(text: str) -> str:
    return "".join(
        chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else "\u3000" if c == " " else c for c in text
    )


def _han_positions(text: str) -> list[int]:
    return [i for i, c in enumerate(text) if is_han(c)]


def _replace_some(
    text: str, rng: random.Random, choices: Callable[[str], Sequence[str]], every: bool
) -> str | None:
    """Replace one (or, with ``every``, each) character that has choices; None if none has."""
    positions = [i for i in _han_positions(text) if choices(text[i])]
    if not positions:
        return None
    picked = positions if every else [rng.choice(positions)]
    chars = list(text)
    for i in picked:
        chars[i] = rng.choice(list(choices(text[i])))
    return "".join(chars)


def _homophone(text: str, rng: random.Random) -> str | None:
    table = _homophones()

    def choices(ch: str) -> Sequence[str]:
        rs = readings(ch)
        return [c for c in table.get(rs[0], ()) if c != ch] if rs else []

    positions = [i for i in _han_positions(text) if choices(text[i])]
    if not positions:
        return None
    picked = [i for i in positions if rng.random() < 0.5] or [rng.choice(positions)]
    chars = list(text)
    for i in picked:
        chars[i] = rng.choice(list(choices(text[i])))
    return "".join(chars)


def _spelled(text: str, sep: str) -> str | None:
    if not _han_positions(text):
        return None
    return sep.join(_pinyin_of(text)).replace(" " * 2, " ")


def _initials(text: str) -> str | None:
    # One letter (c for 蠢) is no disguise anyone reads back, so a single character has no
    # initials form (the post is not counted for the kind, as one without an emoji is not).
    if len(_han_positions(text)) < MIN_INITIALS:
        return None
    return "".join(s[0] if s and s[0].isalpha() else s for s in _pinyin_of(text))


def _split(text: str, rng: random.Random) -> str | None:
    from moderation.variants import split_forms

    return _replace_some(text, rng, split_forms, every=False)


def _lookalike(text: str, rng: random.Random) -> str | None:
    from moderation.variants import lookalikes

    return _replace_some(text, rng, lookalikes, every=False)


def _confusable(text: str, rng: random.Random) -> str | None:
    base = text if any(c.isascii() and c.isalpha() for c in text) else _spelled(text, "")
    if base is None:
        return None
    table = _latin_lookalikes()
    letters = [i for i, c in enumerate(base) if table.get(c.lower())]
    if not letters:
        return None
    chars = list(base)
    for i in letters:
        if i == letters[0] or rng.random() < 0.5:
            chars[i] = rng.choice(table[base[i].lower()])
    return "".join(chars)


def _traditional(text: str) -> str | None:
    import opencc

    out: str = opencc.OpenCC("s2t").convert(text)
    return out if out != text else None


def _emoji(text: str, rng: random.Random) -> str | None:
    table = _emoji_for()
    return _replace_some(text, rng, lambda c: table.get(c, ()), every=False)


def _noise(text: str, rng: random.Random) -> str | None:
    if len(text) < 2:
        return None
    out = [text[0]]
    for ch in text[1:]:
        out.append(rng.choice(_NOISE))
        out.append(ch)
    return "".join(out)


def _swapped(text: str, rng: random.Random) -> str | None:
    pairs = [i for i in range(len(text) - 1) if text[i] != text[i + 1] and is_han(text[i])]
    if not pairs:
        return None
    i = rng.choice(pairs)
    return text[:i] + text[i + 1] + text[i] + text[i + 2 :]


_KIND_FUNCS: dict[str, Callable[[str, random.Random], str | None]] = {
    "homophone": _homophone,
    "pinyin": lambda t, _r: _spelled(t, ""),
    "pinyin_spaced": lambda t, _r: _spelled(t, " "),
    "pinyin_fullwidth": lambda t, r: (
        None if (s := _spelled(t, r.choice(("", " ")))) is None else _to_fullwidth(s)
    ),
    "initials": lambda t, _r: _initials(t),
    "split": _split,
    "lookalike": _lookalike,
    "confusable": _confusable,
    "traditional": lambda t, _r: _traditional(t),
    "emoji": _emoji,
    "noise": _noise,
    "swapped": _swapped,
}


def _window(span: str, rng: random.Random) -> tuple[int, int]:
    """The part of a matched span to disguise: all of a word, two Han characters of a sentence."""
    if len(span) <= 4:
        return 0, len(span)
    han = _han_positions(span)
    runs = [i for i in han if i + 1 < len(span) and is_han(span[i + 1])]
    if not runs:
        return 0, len(span)
    start = rng.choice(runs)
    return start, start + _WINDOW


def perturb(text: str, spans: Sequence[tuple[int, int]], kind: str, seed: int = 0) -> str | None:
    """``text`` with each ``(start, end)`` span disguised in ``kind``; None if it cannot apply.

    >>> perturb("你是傻逼吧", [(2, 4)], "pinyin_spaced")
    '你是sha bi吧'
    >>> perturb("你是傻逼吧", [(2, 4)], "initials")
    '你是sb吧'
    >>> perturb("你是傻逼吧", [(2, 4)], "traditional") is None
    True
    """
    func = _KIND_FUNCS[kind]
    rng = random.Random(zlib.crc32(f"{seed}:{kind}:{text}".encode()))
    out = text
    applied = False
    for start, end in sorted(set(spans), reverse=True):  # right to left: offsets stay valid
        span = out[start:end]
        a, b = _window(span, rng)
        new = func(span[a:b], rng)
        if new is None:
            continue
        applied = True
        out = out[:start] + span[:a] + new + span[b:] + out[end:]
    return out if applied else None


@dataclass(frozen=True)
class KindResult:
    """Posts caught plain that the kind could disguise, and how many were still caught."""

    kind: str
    applicable: int
    caught: int
    missed: tuple[tuple[str, str], ...] = ()
    by_length: tuple[tuple[int, int, int], ...] = ()
    """``(term length, posts, still caught)``: by the longest disguised term (3 = three or more)."""

    @property
    def share(self) -> float:
        return self.caught / self.applicable if self.applicable else 1.0


_RULESET_FOR = {"real_life": "m08", "meta": "m72"}


def invariance(
    posts: Sequence[object],
    kinds: Sequence[str] = KINDS,
    seed: int = 0,
    classifier: Any = None,
    keep_missed: int = 0,
) -> list[KindResult]:
    """Per kind, the share of violations caught plain that stay caught when disguised.

    ``posts`` are :class:`moderation.training.Post` objects (labels, text, ruleset).  A post is
    *caught* when the screener (rules only unless ``classifier`` is given) reports a finding of
    one of its labels through a lexicon term; the perturbation disguises the spans of those
    term findings (posts caught only by sentence patterns or the classifier are not counted:
    which of a sentence's words an evader would disguise is not known).
    """
    from moderation.screen import Screener

    screeners: dict[str, Screener] = {}

    def screener(ruleset: str) -> Screener:
        if ruleset not in screeners:
            screeners[ruleset] = Screener(ruleset, classifier=classifier)
        return screeners[ruleset]

    counts = {k: [0, 0] for k in kinds}
    by_length = {k: {n: [0, 0] for n in (1, 2, 3)} for k in kinds}
    missed: dict[str, list[tuple[str, str]]] = {k: [] for k in kinds}
    for post in posts:
        labels = getattr(post, "labels", ())
        text: str = getattr(post, "text", "")
        if not labels or getattr(post, "evasion", "none") != "none":
            continue  # only plain violations: disguising a disguise measures nothing
        ruleset = getattr(post, "ruleset", None) or next(
            (_RULESET_FOR[c] for c in labels if c in _RULESET_FOR), "m08"
        )
        s = screener(ruleset)
        label_set = set(labels)
        found = [
            f
            for f in s.screen(text)
            if f.category in label_set
            and f.via not in ("pattern", "classifier")
            and f.end > f.start
        ]
        if not found:
            continue
        spans = [(f.start, f.end) for f in found]
        length = min(3, max(len(fold_term(f.term)) for f in found))
        for kind in kinds:
            disguised = perturb(text, spans, kind, seed)
            if disguised is None:
                continue
            counts[kind][0] += 1
            by_length[kind][length][0] += 1
            if any(f.category in label_set for f in s.screen(disguised)):
                counts[kind][1] += 1
                by_length[kind][length][1] += 1
            elif len(missed[kind]) < keep_missed:
                missed[kind].append((text, disguised))
    return [
        KindResult(
            k,
            counts[k][0],
            counts[k][1],
            tuple(missed[k]),
            tuple((n, a, c) for n, (a, c) in by_length[k].items()),
        )
        for k in kinds
    ]


def clean_flag_rate(posts: Sequence[object], classifier: Any = None) -> tuple[int, int]:
    """``(flagged, clean)``: clean posts with any finding, under each post's ruleset (m08 if none).

    The other side of invariance: a matcher that reads more disguises must not read them into
    clean game talk.
    """
    from moderation.screen import Screener

    screeners: dict[str, Screener] = {}
    flagged = total = 0
    for post in posts:
        if getattr(post, "labels", ()):
            continue
        ruleset = getattr(post, "ruleset", None) or "m08"
        if ruleset not in screeners:
            screeners[ruleset] = Screener(ruleset, classifier=classifier)
        total += 1
        flagged += bool(screeners[ruleset].screen(getattr(post, "text", "")))
    return flagged, total


def format_table(results: Sequence[KindResult]) -> str:
    """A Markdown table: kind, posts, still caught, share, the target, shares by term length."""
    lines = [
        "| kind | posts | still caught | share | ≥ 0.85 | 1-char terms | 2-char | ≥ 3 chars |",
        "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |",
    ]
    for r in results:
        ok = "—" if r.kind == "swapped" else ("yes" if r.share >= TARGET else "**no**")
        parts = " | ".join(f"{c / a:.2f} ({a})" if a else "—" for _, a, c in r.by_length)
        lines.append(f"| {r.kind} | {r.applicable} | {r.caught} | {r.share:.3f} | {ok} | {parts} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``bansha screen-invariance [--corpus DIR] [--file F.jsonl] [--kind K] [--model]``."""
    from moderation.training import DEFAULT_CORPUS, load_corpus, load_jsonl

    p = argparse.ArgumentParser(
        prog="bansha screen-invariance",
        description="逃避检测的稳定性：语料中的违规帖经变形后是否仍被检出。",
    )
    p.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="corpus directory")
    p.add_argument("--file", type=Path, action="append", help="JSONL file(s) instead of --corpus")
    p.add_argument("--kind", action="append", choices=KINDS, help="only these kinds")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--model", action="store_true", help="screen with the trained classifier too")
    p.add_argument("--show", type=int, default=0, help="print up to N misses per kind")
    p.add_argument("--every", type=int, default=1, help="take every N-th post (a quick sample)")
    args = p.parse_args(argv)
    posts = (
        [post for f in args.file for post in load_jsonl(f)]
        if args.file
        else load_corpus(args.corpus)
    )[:: max(1, args.every)]
    classifier: Any = None
    if args.model:
        from moderation.screen import AUTO

        classifier = AUTO
    results = invariance(posts, args.kind or KINDS, args.seed, classifier, args.show)
    print(format_table(results))
    flagged, clean = clean_flag_rate(posts, classifier)
    if clean:
        print(f"\nclean posts with a finding: {flagged} / {clean} ({flagged / clean:.2%})")
    for r in results:
        for plain, disguised in r.missed:
            print(f"[{r.kind}] {plain!r} -> {disguised!r}", file=sys.stderr)
    return 0
