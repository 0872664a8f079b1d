"""Switches for the screener's reading layers (who is speaking, and in which sense).

Each layer removes or adds findings for one cause, so each can be switched off on its own: to
measure what it is worth (``python -m bench.screen_quality --layers none``) and so that a test
of a cause can show that it fails without its layer.

>>> Layer.parse("quoted_rules,game_senses") == Layer.QUOTED_RULES | Layer.GAME_SENSES
True
>>> Layer.parse("all") == Layer.ALL, Layer.parse("none") == Layer.NONE
(True, True)
"""

from __future__ import annotations

import enum

__all__ = ["Layer", "UnknownLayerError"]


class UnknownLayerError(ValueError):
    """A layer name that :class:`Layer` does not know."""

    def __init__(self, name: str) -> None:
        known = ", ".join(m.name.lower() for m in Layer if m.name)
        super().__init__(f"未知的检查层 {name!r}；可用：{known}, all, none")
        self.name = name


class Layer(enum.Flag):
    """One reading layer of :class:`moderation.screen.Screener` (``layers=`` takes a union)."""

    NONE = 0
    #: the rules quoted, discussed or asked about (规则帖写了…, 导演，…算违规吗, 别…/不许…)
    QUOTED_RULES = enum.auto()
    #: another's words: quotation marks, [quote], 引用, 回复 X：, 他说/X说, 如果…的话
    QUOTED_PLAYERS = enum.auto()
    #: M72 2(8): another's 贴脸 cited as an argument is a ``meta`` finding (cite-* patterns too)
    CITATIONS = enum.auto()
    #: game senses of ordinary words (白痴 the role, 乌鸦's 诅咒, 场外信息) and allowed compounds
    GAME_SENSES = enum.auto()
    #: kinship in an oath (拿我老妈的名誉担保) or possessive (我妈的快递) is not the insult 妈的
    KINSHIP = enum.auto()
    #: a longer term matched across a word boundary (上一场 in 马上一场雨) is no hit
    SYLLABLES = enum.auto()
    #: the trained model, reading the whole post, overrules an ambiguous word's rule finding it
    #: scores far below its threshold (``moderation.classifier.RuleVeto``; 替补 in a rule reminder)
    MODEL_VETO = enum.auto()
    ALL = QUOTED_RULES | QUOTED_PLAYERS | CITATIONS | GAME_SENSES | KINSHIP | SYLLABLES | MODEL_VETO

    @classmethod
    def parse(cls, text: str) -> Layer:
        """``all``, ``none`` or comma-separated member names (case-insensitive)."""
        result = cls.NONE
        for part in (p.strip().upper() for p in text.split(",")):
            if not part:
                continue
            try:
                result |= cls[part]
            except KeyError:
                raise UnknownLayerError(part.lower()) from None
        return result
