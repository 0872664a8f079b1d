"""Post screening for 版杀 games: normalisation, variant lexicons, patterns, classifier, articles.

The public API lives in submodules (see ``docs/moderation.md``); the most used names are also
available here, imported on first use so that ``import moderation.classifier`` stays light:

>>> from moderation import Screener, is_water
>>> [f.category for f in Screener("m08", classifier=None).screen("你是傻逼")]
['insult']
>>> is_water("顶")
True
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "Screener": "moderation.screen",
    "ScreenResult": "moderation.screen",
    "Finding": "moderation.screen",
    "Article": "moderation.screen",
    "PostTooLargeError": "moderation.screen",
    "screen": "moderation.screen",
    "screen_many": "moderation.screen",
    "normalize": "moderation.normalize",
    "NormalizedText": "moderation.normalize",
    "is_water": "moderation.rules",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'moderation' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
