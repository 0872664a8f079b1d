"""Which implementation of the screener's hot steps runs: the fast path or the reference.

The fast path (the default) computes the same findings as the reference with less work: word
boundaries along jieba's route in plain lists with a memo per distinct Han block, pinyin through
pypinyin's own phrase cuts with a memo per distinct Han run, evidence that ranks only the
strongest contributions and reuses the screener's own lexicon hits. The reference calls jieba
(``Tokenizer.tokenize(HMM=False)``) and pypinyin (``lazy_pinyin``) directly and ranks every
contribution; ``tests/moderation/test_fast_path.py`` screens the corpus and the held-out set both
ways and requires the same findings.

Select the reference with ``BANSHA_SCREEN_PATH=reference`` (read at import) or, in one process,
with :func:`use_reference`.

>>> with use_reference():
...     reference()
True
>>> reference()
False
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["reference", "use_reference"]

_REFERENCE = os.environ.get("BANSHA_SCREEN_PATH", "fast").strip().lower() == "reference"


def reference() -> bool:
    """True when the reference implementations (jieba and pypinyin called directly) run."""
    return _REFERENCE


@contextmanager
def use_reference(enabled: bool = True) -> Iterator[None]:
    """Run the block on the reference path (``enabled``) or the fast path, then restore."""
    global _REFERENCE
    before = _REFERENCE
    _REFERENCE = enabled
    try:
        yield
    finally:
        _REFERENCE = before
