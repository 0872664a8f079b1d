"""The targeted search for a few tokens finds every place the full listing finds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from moderation.features import token_places, token_spans

# repeats and overlaps (光光光, sbsb, 沙比沙比), letters read as pinyin, digits, noise, emoji
_PIECES = ["沙比", "光", "傻逼", "sb", "shabi", "nmsl", "3号", "你妈", "-", " ", "😡", "銀行", "行"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=14).map("".join))
def test_token_places_are_token_spans(text: str) -> None:
    spans = token_spans(text)
    assert token_places(spans, text) == spans
    # tokens the post does not have, and malformed ones, have no places
    absent = ["p:sha  bi", "p: sha", "i:zzzz", "p:bi sha sha", "c:金水"]
    assert all(v == [] for k, v in token_places(absent, text).items() if k not in spans)
