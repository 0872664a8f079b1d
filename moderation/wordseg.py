"""Word boundaries from jieba, taught the game's own vocabulary.

One private :class:`jieba.Tokenizer` is built on first use (never jieba's global one, so other
code's jieba settings are untouched): its log noise is silenced, its dictionary cache is written
only under the system temp directory, and every word of ``lexicons/game_vocab.txt`` is added so
that 查杀, 金水, 悍跳, 警徽流 stay whole words.

That tokenizer is the reference (:mod:`moderation.implementation`). The fast path never loads
it (its dictionary is about 70 MiB of Python objects): blocks are cut by jieba-rs (``rjieba``,
the same dictionary and route, taught the same game vocabulary), and the screener's questions
about the dictionary (is this a word, a word's start, how frequent) are answered by
:func:`word_frequencies`, a compact trie of the same dictionary (``marisa-trie``, written once
under the system temp directory and mapped read-only, so every process shares its pages).
``tests/moderation/test_wordseg.py`` compares both with jieba's own.

>>> words("他昨天悍跳预言家给我发查杀")
['他', '昨天', '悍跳', '预言家', '给', '我', '发查杀']
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import tempfile
import threading
from collections.abc import Iterator
from functools import cache
from typing import Any

from moderation.implementation import reference

__all__ = ["boundaries", "tokenizer", "word_frequencies", "word_items", "words"]

_LOCK = threading.Lock()
# jieba's ``re_han_default`` and ``re_skip_default``, copied so that the fast path need not import
# jieba (tests/moderation/test_wordseg.py checks they are still jieba's own)
RE_HAN_DEFAULT = re.compile("([\u4e00-\u9fd5a-zA-Z0-9+#&\\._%\\-]+)", re.U)
RE_SKIP_DEFAULT = re.compile("(\r\n|\\s)", re.U)


@cache
def cache_dir() -> str:
    """Where the tables built once per machine live (jieba's cache, the word trie, the pinyin
    tables of :mod:`moderation.pinyin_table`): under the system temp directory."""
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
        tok.tmp_dir = cache_dir()
        tok.cache_file = "jieba.cache"
        tok.initialize()
        for word, freq, tag in load_game_vocab():
            tok.add_word(word, freq, tag)
        return tok


@cache
def _fast_cutter() -> Any:
    """jieba-rs with jieba's dictionary and the game vocabulary (the fast path's cutting)."""
    with _LOCK:
        import rjieba

        from lexicons.loader import load_game_vocab

        cutter = rjieba.Jieba()
        for word, freq, tag in load_game_vocab():
            cutter.add_word(word, freq, tag)
        return cutter


class WordFrequencies:
    """jieba's ``FREQ`` as the screener asks it, from a compact trie of the same words.

    ``word in table`` is true for every word and every start of a word (jieba's ``FREQ`` holds
    each prefix of each word with frequency 0); ``table.get(word, default)`` is the word's
    frequency, 0 for a start of a word, ``default`` for anything else. Exactly what
    ``tokenizer().FREQ`` answers (tested), in about a tenth of its memory.
    """

    def __init__(self, trie: Any) -> None:
        self._trie = trie

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and next(self._trie.iterkeys(key), None) is not None

    def get(self, key: str, default: int | None = None) -> int | None:
        found = self._trie.get(key)
        if found:
            value: int = found[0][0]
            return value
        return 0 if key in self else default

    def words(self) -> Iterator[tuple[str, int]]:
        """Every word with its frequency (not the prefix-only entries), in trie order."""
        for word, (freq,) in self._trie.iteritems():
            yield word, freq


def _jieba_dictionary() -> str:
    """jieba's ``dict.txt``, found without importing jieba (its import alone loads its HMM
    tables, about 19 MiB the fast path never reads)."""
    import importlib.util

    spec = importlib.util.find_spec("jieba")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("jieba is not installed")
    return os.path.join(next(iter(spec.submodule_search_locations)), "dict.txt")


def _dictionary_words() -> dict[str, int]:
    """jieba's dictionary file read as its ``gen_pfdict`` reads it, plus the game vocabulary
    as ``add_word`` adds it: word -> frequency (the last line of a word wins)."""
    from lexicons.loader import load_game_vocab

    freq: dict[str, int] = {}
    with open(_jieba_dictionary(), "rb") as fh:
        for raw in fh:
            line = raw.strip().decode("utf-8")
            if not line:
                continue
            word, count = line.split(" ")[:2]
            freq[word] = int(count)
    for game_word, game_freq, _tag in load_game_vocab():
        freq[game_word] = game_freq
    return freq


#: jieba's part-of-speech tags of function words: 语气词 (嘛, 吧, 呢), 助词 (的, 了), 叹词 (哎).
FUNCTION_TAGS = frozenset({"y", "u", "e"})


@cache
def function_characters() -> frozenset[str]:
    """Single characters jieba's dictionary tags as function words (:data:`FUNCTION_TAGS`).

    Such a character attaches to whatever precedes it (他嘛, 你呢), so a bigram holding one is
    read across words, whatever its frequency.

    >>> {"嘛", "吧"} <= function_characters(), "姊" in function_characters()
    (True, False)
    """
    with open(_jieba_dictionary(), encoding="utf-8") as fh:
        text = fh.read()
    tags = "".join(sorted(FUNCTION_TAGS))
    return frozenset(re.findall(rf"^(\S) \d+ [{tags}]$", text, re.MULTILINE))


#: Bump when the trie file's layout changes (its name carries it, so old files are not read).
_TRIE_FORMAT = "marisa RecordTrie <I, word -> jieba frequency, v1"


@cache
def word_frequencies() -> WordFrequencies:
    """The fast path's dictionary table (see :class:`WordFrequencies`), built once per machine.

    The trie file is named by a digest of jieba's dictionary file and the game vocabulary, so an
    edit of either builds a new one; it is mapped read-only (shared by every process).
    """
    import hashlib

    import marisa_trie

    from lexicons.loader import load_game_vocab

    with _LOCK:
        stat = os.stat(_jieba_dictionary())
        digest = hashlib.sha256(
            repr((stat.st_size, stat.st_mtime_ns, load_game_vocab(), _TRIE_FORMAT)).encode()
        ).hexdigest()[:16]
        path = os.path.join(cache_dir(), f"words-{digest}.marisa")
        if not os.path.exists(path):
            built = marisa_trie.RecordTrie(
                "<I", ((w, (f,)) for w, f in _dictionary_words().items())
            )
            fd, tmp = tempfile.mkstemp(dir=cache_dir(), suffix=".tmp")
            os.close(fd)
            try:
                built.save(tmp)
                os.replace(tmp, path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        trie = marisa_trie.RecordTrie("<I")
        trie.mmap(path)
        return WordFrequencies(trie)


def frequencies() -> Any:
    """jieba's ``FREQ`` on the reference path, :func:`word_frequencies` on the fast path: both
    answer ``word in table`` and ``table.get(word, default)`` alike."""
    return tokenizer().FREQ if reference() else word_frequencies()


def word_items() -> Iterator[tuple[str, int]]:
    """Every dictionary word (and game word) whose frequency is above 0, with its frequency."""
    if reference():
        return ((w, f) for w, f in tokenizer().FREQ.items() if f > 0)
    return ((w, f) for w, f in word_frequencies().words() if f > 0)


def words(text: str) -> list[str]:
    """Segment ``text`` into words (jieba precise mode with the game vocabulary)."""
    result: list[str] = tokenizer().lcut(text)
    return result


def boundaries(text: str) -> tuple[frozenset[int], frozenset[int]]:
    """Start and end offsets of every dictionary word of ``text`` (jieba without HMM).

    The same words as ``tokenizer().tokenize(text, HMM=False)`` (tested against it); on the
    fast path each block is cut by jieba-rs (:func:`_fast_cutter`) once per distinct block:
    only posts with a short-term hit need word boundaries, and for those this was most of the
    lexicon matcher's time.

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
    cutter = _fast_cutter()
    re_han, re_skip = RE_HAN_DEFAULT, RE_SKIP_DEFAULT
    cuts = [0]
    pos = 0
    for block in re_han.split(text):
        if not block:
            continue
        if re_han.match(block):
            memo = _FAST_BLOCKS
            relative = memo.get(block)
            if relative is None:  # jieba-rs: jieba's route (exact ties aside, tested)
                relative = tuple(itertools.accumulate(map(len, cutter.cut(block, False))))
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
# the word ends of each block the fast path has cut, relative to its start (blocks repeat: 预言家)
_FAST_BLOCKS: dict[str, tuple[int, ...]] = {}
