"""A Scanner reports exactly what pyahocorasick reports over the text itself."""

from __future__ import annotations

import ahocorasick
from hypothesis import given, settings
from hypothesis import strategies as st

from moderation.lexicon import default_matcher
from moderation.normalize import normalize
from moderation.scan import Scanner

# Han, letters, digits, a two-byte letter, emoji (four bytes), a lone surrogate, private-use
# syllable codes (four bytes): every UTF-8 length, and keys sharing lead bytes.
_ALPHABET = "傻逼沙比你妈的sbSB12éü😀🐶\ud800\U000f0005\U000f0137"
_KEYS = st.lists(st.text(alphabet=_ALPHABET, min_size=1, max_size=4), min_size=1, max_size=30)


def _reference(keys: list[str], text: str) -> list[tuple[int, str]]:
    auto = ahocorasick.Automaton()
    for key in keys:
        auto.add_word(key, key)
    auto.make_automaton()
    return list(auto.iter(text))


@settings(max_examples=300, deadline=None)
@given(_KEYS, st.text(alphabet=_ALPHABET, max_size=40))
def test_scanner_matches_are_pyahocorasick_matches(keys: list[str], text: str) -> None:
    for many in (False, True):  # both modes: the text as it is, and its UTF-8 bytes
        scanner = _rebuilt(keys, many)
        assert list(scanner.iter(text)) == _reference(keys, text)
        assert list(scanner.values(text)) == [k for _, k in _reference(keys, text)]


def _rebuilt(keys: list[str], utf8: bool) -> Scanner:
    """A scanner over ``keys`` in the mode asked for, whatever its own choice would be."""
    import moderation.scan as scan

    before = scan._PLAIN_ROOT
    scan._PLAIN_ROOT = -1 if utf8 else 1 << 30
    try:
        scanner = Scanner([(k, k) for k in keys])
    finally:
        scan._PLAIN_ROOT = before
    assert scanner.utf8 is utf8
    return scanner


def test_the_lexicon_scans_its_many_first_characters_as_utf8() -> None:
    matcher = default_matcher()
    assert matcher._text.utf8  # thousands of first characters: the bytes are scanned
    post = normalize("你这个沙比，操作失误还骂人傻逼😀")
    found = list(matcher._text.iter(post.folded))
    assert found and all(
        post.folded[: e + 1][-length:] in matcher._text_keys for e, (length, _) in found
    )


def test_an_empty_scanner_finds_nothing() -> None:
    assert list(Scanner([]).iter("傻逼")) == [] and list(Scanner([]).values("傻逼")) == []
