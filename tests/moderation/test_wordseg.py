"""``moderation.wordseg.boundaries`` gives exactly the words of jieba's ``tokenize`` (no HMM)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from lexicons.loader import load_game_vocab
from moderation.normalize import normalize
from moderation.wordseg import boundaries, tokenizer

# Han characters from dictionary words and game vocabulary, ASCII letters and digits (joined into
# one word when single), jieba's block punctuation (+#&._%-), whitespace and \r\n (words of their
# own), other punctuation, rare Han outside jieba's range, and emoji.
ALPHABET = list("傻逼你妈的操作失误查杀金水悍跳预言家狼人我是好人发誓起誓") + list(
    "abxyAB019 \r\n\t.+#&_%-*，。！?　㐀鿖😀"
)


def jieba_boundaries(text: str) -> tuple[frozenset[int], frozenset[int]]:
    starts: set[int] = set()
    ends: set[int] = set()
    for _, a, b in tokenizer().tokenize(text, HMM=False):
        starts.add(a)
        ends.add(b)
    return frozenset(starts), frozenset(ends)


def _words(text: str, cut: tuple[frozenset[int], frozenset[int]]) -> list[str]:
    places = sorted(cut[0] | cut[1])
    return [text[a:b] for a, b in itertools.pairwise(places)]


def _log_probability(words: list[str]) -> float:
    import math

    tok = tokenizer()
    return sum(math.log(tok.FREQ.get(w) or 1) - math.log(tok.total) for w in words)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), max_size=40).map("".join))
def test_same_words_as_jieba(text: str) -> None:
    import math

    ours, jiebas = boundaries(text), jieba_boundaries(text)
    if ours != jiebas:
        # Only an exact tie may differ (好好好: 好|好好 or 好好|好, the same words in another
        # order, equally probable), as test_fast_path_cuts_every_corpus_block_as_jieba allows.
        mine, theirs = _words(text, ours), _words(text, jiebas)
        assert sorted(mine) == sorted(theirs), (text, mine, theirs)
        assert math.isclose(_log_probability(mine), _log_probability(theirs)), (text, mine)


def test_same_words_as_jieba_on_game_posts() -> None:
    posts = [
        "他昨天悍跳预言家给我发查杀",
        "我发誓我是好人，要是狼我全家死光",
        "你个sb，ok sb usb 123abc",
        "操作失误，被查杀了\r\n明天见",
        "3号今天的发言很像狼",
        "",
    ]
    for post in posts:
        for text in (post, normalize(post).folded):
            assert boundaries(text) == jieba_boundaries(text)


def test_word_boundaries_of_a_known_sentence() -> None:
    starts, ends = boundaries("操作失误")
    assert 0 in starts and 4 in ends
    assert 1 not in starts | ends


def test_fast_path_dictionary_table_answers_as_jieba_freq() -> None:
    """``word_frequencies`` (the trie the fast path reads) says what ``tokenizer().FREQ`` says:
    every word and every start of a word is in it, with jieba's frequency (0 for a start)."""
    from moderation.wordseg import word_frequencies

    freq = tokenizer().FREQ
    table = word_frequencies()
    keys = list(freq)[::37]
    assert len(keys) > 10000 and any(freq[k] == 0 for k in keys)  # prefixes are sampled too
    differing = [k for k in keys if k not in table or table.get(k, -1) != freq[k]]
    assert not differing, differing[:5]
    for word, _freq, _tag in load_game_vocab():
        assert table.get(word) == freq[word]
    for absent in ("傻逼你妈", "zzqqxx", "狼人杀了吗好的", "😀"):
        assert (absent in table) == (absent in freq)
        assert table.get(absent, -1) == freq.get(absent, -1)
    words = dict(word_frequencies().words())
    assert words == {w: f for w, f in freq.items() if w in words}
    assert {w for w, f in freq.items() if f > 0} <= set(words)


def test_fast_path_cuts_every_corpus_block_as_jieba() -> None:
    """jieba-rs (the fast path's cutter) cuts every Han block of the corpus along jieba's route.

    Where two routes are exactly as probable (不服不服不服: 不|服不服|不服 or 不服|不|服不服, the
    same words in another order), jieba takes the one whose first word is longest and jieba-rs
    may take the other; the route's probability must still be the same, and such ties must stay
    rare (tests/moderation/test_fast_path.py requires the same findings either way).
    """
    import json
    import math
    from pathlib import Path

    import jieba

    from moderation.wordseg import _fast_cutter

    root = Path(__file__).resolve().parents[2]
    blocks: set[str] = set()
    for path in sorted((root / "corpus").glob("**/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                folded = normalize(json.loads(line)["text"]).folded
                blocks.update(b for b in jieba.re_han_default.split(folded) if b)
    blocks = {b for b in blocks if jieba.re_han_default.match(b)}
    assert len(blocks) > 5000
    tok, cutter = tokenizer(), _fast_cutter()
    logtotal = math.log(tok.total)

    def probability(words: list[str]) -> float:
        return sum(math.log(tok.FREQ.get(w) or 1) - logtotal for w in words)

    differing = [b for b in blocks if list(tok.cut(b, HMM=False)) != cutter.cut(b, False)]
    other_route = [
        b
        for b in differing
        if not math.isclose(
            probability(list(tok.cut(b, HMM=False))), probability(cutter.cut(b, False))
        )
        or sorted(tok.cut(b, HMM=False)) != sorted(cutter.cut(b, False))
    ]
    assert not other_route, other_route[:5]
    assert len(differing) <= len(blocks) // 1000, differing[:5]  # ties only


def test_fast_path_block_patterns_are_jiebas_and_jieba_is_never_imported() -> None:
    """The fast path splits blocks with copies of jieba's own patterns, so that screening (with
    the game's posts, short hits and all) never imports jieba and its tables."""
    import subprocess
    import sys
    from pathlib import Path

    import jieba

    from moderation.wordseg import RE_HAN_DEFAULT, RE_SKIP_DEFAULT

    for mine, theirs in (
        (RE_HAN_DEFAULT, jieba.re_han_default),
        (RE_SKIP_DEFAULT, jieba.re_skip_default),
    ):
        assert (mine.pattern, mine.flags) == (theirs.pattern, theirs.flags)
    code = (
        "import sys\n"
        "from moderation.screen import Screener\n"
        "s = Screener('m08', classifier=None)\n"
        "found = s.screen('操作失误，你个沙比，笑死🐶，我拿人格担保')\n"
        "assert found, found\n"
        "print(sorted({n.split('.')[0] for n in sys.modules} & {'jieba', 'rjieba'}))\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "['rjieba']"
