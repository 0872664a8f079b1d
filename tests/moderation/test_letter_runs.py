"""Letter-run checks of lexicon hits are shared per post and agree with a run-by-run scan."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from moderation.lexicon import LexiconMatcher, _alnum_edge, _is_alnum_ascii, default_matcher
from moderation.normalize import NormalizedText, fold_char, normalize
from moderation.screen import Screener


def _scan_bounded(nt: NormalizedText, start: int, end: int, runs: object = None) -> bool:
    """The rule written plainly: walk the run around the hit, every time."""
    folded, original = nt.folded, nt.original
    ostart, oend = nt.span(start, end)
    left = _is_alnum_ascii(folded[start]) and ostart > 0 and _alnum_edge(original[ostart - 1], -1)
    right = (
        _is_alnum_ascii(folded[end - 1]) and oend < len(original) and _alnum_edge(original[oend], 0)
    )
    if not (left or right):
        return True
    a, b = ostart, oend
    while a > 0 and _alnum_edge(original[a - 1], -1):
        a -= 1
    while b < len(original) and _alnum_edge(original[b], 0):
        b += 1
    run = "".join(fold_char(c)[0] for c in original[a:b])
    key = folded[start:end]
    return len(run) % len(key) == 0 and run == key * (len(run) // len(key))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["sb", "s", "b", "u", "2", "2b", " ", "傻", "逼", "ｓ", "㎏", "nmsl", "tmd", "，"]
        ),
        max_size=14,
    ).map("".join)
)
def test_shared_runs_give_the_same_hits(text: str) -> None:
    matcher = default_matcher()
    nt = normalize(text)
    fast = matcher.candidates(nt)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LexiconMatcher, "_letters_bounded", staticmethod(_scan_bounded))
        assert matcher.candidates(nt) == fast


def test_a_long_repeated_key_is_one_finding() -> None:
    text = "sb" * 5000
    (finding,) = Screener("m08", classifier=None).screen(text)
    assert (finding.category, finding.start, finding.end) == ("insult", 0, len(text))
    assert Screener("m08", classifier=None).screen("usb" * 3000) == []
