"""Word boundaries from jieba, taught the game's own vocabulary.

One private :class:`jieba.Tokenizer` is built on first use (never jieba's global one, so other
code's jieba settings are untouched): its log noise is silenced, its dictionary cache is written
only under the system temp directory, and every word of ``lexicons/game_vocab.txt`` is added so
that 查杀, 金水, 悍跳, 警徽流 stay whole words.

>>> words("他昨天悍跳预言家给我发查杀")
['他', '昨天', '悍跳', '预言家', '给', '我', '发查杀']
"""

from __future__ import annotations

import itertools
import logging
import math
import os
import re
import tempfile
import threading
from functools import cache
from typing import Any

from moderation.implementation import reference

__all__ = ["boundaries", "tokenizer", "words"]

_LOCK = threading.Lock()
_ENG = re.compile("[a-zA-Z0-9]")  # jieba's re_eng: one ASCII letter or digit


@cache
def _cache_dir() -> str:
    path = os.path.join(tempfile.gettempdir(), "bansha-jieba")
    os.makedirs(path, exist_ok=True)
    return path


@cache
def tokenizer() -> Any:
    """The shared, initialised jieba tokenizer (built once, thread-safe)."""
    with _LOCK:
        import jieba

        from lexicons.loader import load_game_vocab

        jieba.setLogLevel(logging.WARNING)
        logging.getLogger("jieba").setLevel(logging.WARNING)
        tok = jieba.Tokenizer()
        tok.tmp_dir = _cache_dir()
        tok.cache_file = "jieba.cache"
        tok.initialize()
        for word, freq, tag in load_game_vocab():
            tok.add_word(word, freq, tag)
        return tok


def words(text: str) -> list[str]:
    """Segment ``text`` into words (jieba precise mode with the game vocabulary)."""
    result: list[str] = tokenizer().lcut(text)
    return result


def boundaries(text: str) -> tuple[frozenset[int], frozenset[int]]:
    """Start and end offsets of every dictionary word of ``text`` (jieba without HMM).

    The same words as ``tokenizer().tokenize(text, HMM=False)`` (tested against it), computed
    without its generators: only posts with a short-term hit need word boundaries, and for those
    this is most of the lexicon matcher's time.

    >>> starts, ends = boundaries("操作失误")
    >>> 1 in starts or 1 in ends
    False
    """
    if reference():
        # jieba itself (the reference path of moderation.implementation)
        ends = list(itertools.accumulate(len(w) for w in tokenizer().lcut(text, HMM=False)))
        cuts = [0, *ends] if ends else []
    else:
        cuts = _cuts(text)
    return frozenset(cuts[:-1]), frozenset(cuts[1:])


def _cuts(text: str) -> list[int]:
    """Every word boundary of ``text`` in order, 0 and ``len(text)`` included ([] when empty).

    jieba's precise mode without HMM: the text is split into blocks of Han characters, ASCII
    letters, digits and ``+#&._%-`` (``re_han_default``); other characters are one word each
    except that ``\\r\\n`` and whitespace are words of their own; each block is cut along the most
    probable route through the dictionary's word graph, and runs of single ASCII letters or digits
    on that route are joined into one word.
    """
    # HMM off: only dictionary words (and the game vocabulary) form multi-character words, so an
    # unknown run such as 大傻逼 is not glued into one "word" that would hide the insult inside.
    if not text:
        return []
    import jieba

    tok = tokenizer()
    re_han, re_skip = jieba.re_han_default, jieba.re_skip_default
    cuts = [0]
    pos = 0
    for block in re_han.split(text):
        if not block:
            continue
        if re_han.match(block):
            memo = _block_cuts(tok, tok.total)
            relative = memo.get(block)
            if relative is None:
                found: list[int] = []
                _route_cuts(tok, block, 0, found)
                relative = tuple(found)
                if len(memo) < _BLOCKS_LIMIT:
                    memo[block] = relative
            cuts.extend(pos + c for c in relative)
            pos += len(block)
            continue
        for piece in re_skip.split(block):
            end = pos + len(piece)
            if re_skip.match(piece):
                cuts.append(end)  # \r\n or one whitespace character: a word of its own
            else:
                cuts.extend(range(pos + 1, end + 1))  # one word per character
            pos = end
    return cuts


_BLOCKS_LIMIT = 1 << 16  # memoised blocks (distinct Han/letter runs seen so far), at most


@cache
def _block_cuts(tok: Any, total: int) -> dict[str, tuple[int, ...]]:
    """The word ends of each block cut so far, relative to its start (blocks repeat: 预言家).

    Keyed like :func:`_weights`, so a word added to the dictionary later starts a fresh memo.
    """
    return {}


_WEIGHTS_LIMIT = 1 << 18  # cached word weights (the dictionary's words seen so far), at most


@cache
def _weights(tok: Any, total: int) -> dict[str, float]:
    """``log(freq) - log(total)`` of dictionary words, filled as blocks are cut.

    Keyed by the dictionary's total as well, so a word added later starts a fresh table.
    """
    return {}


def _route_cuts(tok: Any, block: str, offset: int, cuts: list[int]) -> None:
    """Append the word ends of ``block`` (at ``offset`` in the text) along jieba's best route.

    ``get_DAG``, ``calc`` and ``__cut_DAG_NO_HMM`` of jieba, with the same arithmetic in the same
    order (so ties resolve alike), in plain lists instead of dicts and generators.
    """
    freq = tok.FREQ
    logtotal = math.log(tok.total)
    weights = _weights(tok, tok.total)
    n = len(block)
    # edges[k]: (end index, log weight) of every dictionary word starting at k (jieba's DAG)
    edges: list[list[tuple[int, float]]] = []
    for k in range(n):
        found: list[tuple[int, float]] = []
        i = k
        frag = block[k]
        while i < n:
            f = freq.get(frag)
            if f is None:
                break
            if f:
                w = weights.get(frag)
                if w is None:
                    w = math.log(f) - logtotal
                    if len(weights) < _WEIGHTS_LIMIT:
                        weights[frag] = w
                found.append((i, w))
            i += 1
            frag = block[k : i + 1]
        # no word: the character alone, weighted as a word of frequency 1
        edges.append(found or [(k, math.log(freq.get(block[k]) or 1) - logtotal)])
    route: list[tuple[float, int]] = [(0.0, 0)] * (n + 1)  # route[n]: past the end
    for idx in range(n - 1, -1, -1):
        out = edges[idx]
        if len(out) == 1:
            x, w = out[0]
            route[idx] = (w + route[x + 1][0], x)
        else:
            route[idx] = max((w + route[x + 1][0], x) for x, w in out)
    x = 0
    eng_run = False  # inside a run of single ASCII letters/digits (one word in jieba)
    while x < n:
        y = route[x][1] + 1
        if y - x == 1 and _ENG.match(block, x):
            eng_run = True
        else:
            if eng_run:
                cuts.append(offset + x)
                eng_run = False
            cuts.append(offset + y)
        x = y
    if eng_run:
        cuts.append(offset + n)
