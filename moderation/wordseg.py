"""Word boundaries from jieba, taught the game's own vocabulary.

One private :class:`jieba.Tokenizer` is built on first use (never jieba's global one, so other
code's jieba settings are untouched): its log noise is silenced, its dictionary cache is written
only under the system temp directory, and every word of ``lexicons/game_vocab.txt`` is added so
that 查杀, 金水, 悍跳, 警徽流 stay whole words.

>>> words("他昨天悍跳预言家给我发查杀")
['他', '昨天', '悍跳', '预言家', '给', '我', '发查杀']
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from functools import cache
from typing import Any

__all__ = ["boundaries", "tokenizer", "words"]

_LOCK = threading.Lock()


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

    >>> starts, ends = boundaries("操作失误")
    >>> 1 in starts or 1 in ends
    False
    """
    starts: set[int] = set()
    ends: set[int] = set()
    # HMM off: only dictionary words (and the game vocabulary) form multi-character words, so an
    # unknown run such as 大傻逼 is not glued into one "word" that would hide the insult inside.
    for _, a, b in tokenizer().tokenize(text, HMM=False):
        starts.add(a)
        ends.add(b)
    return frozenset(starts), frozenset(ends)
