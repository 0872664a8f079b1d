"""A view's maps, built on first use, are the maps; a pickled view carries them."""

from __future__ import annotations

import pickle

from moderation.normalize import View, normalize


def test_lazy_maps_are_the_maps_character_by_character() -> None:
    text = "[b]傻[/b] 傻 ＢＩ！說話😀ﬁ"  # masked tags, noise, width, traditional, emoji, ﬁ -> fi
    nt = normalize(text)
    for view in (nt.folded_view, nt.clean_view):
        starts, ends = list(view.starts), list(view.ends)
        assert len(starts) == len(ends) == len(view.text)
        assert all(a < b for a, b in zip(starts, ends, strict=True))
    # ﬁ folds to two letters, both from one original character
    assert nt.folded.endswith("fi") and nt.offsets[-2] == nt.offsets[-1] == len(text) - 1


def test_views_compare_by_text_and_maps_and_pickle_with_them() -> None:
    nt = normalize("傻 逼")
    eager = View(nt.folded, nt.offsets, nt.ends)
    assert normalize("傻 逼").folded_view == eager and hash(normalize("傻 逼").folded_view) == hash(
        eager
    )
    assert normalize("".join(map(chr, range(0x4E00, 0x5200)))).offsets  # fills the shared tables
    data = pickle.dumps(normalize("傻 逼"))  # maps not built yet: pickling builds them
    assert len(data) < 1000  # the maps, not the shared length table behind them
    copy = pickle.loads(data)
    assert copy == nt and copy.span(0, 2) == (0, 3)
