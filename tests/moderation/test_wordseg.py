"""``moderation.wordseg.boundaries`` gives exactly the words of jieba's ``tokenize`` (no HMM)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

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


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), max_size=40).map("".join))
def test_same_words_as_jieba(text: str) -> None:
    assert boundaries(text) == jieba_boundaries(text)


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
