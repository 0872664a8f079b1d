"""Stand-in classifiers for the screener's classifier layer, shared by the cause tests."""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

from moderation.classifier import Evidence


class WordModel:
    """Reads every post holding ``word`` as ``category`` (0.9) and shows the word as its evidence,
    as the trained model tends to read a frame it has learned (倒霉一辈子, 导演, 担保)."""

    def __init__(self, category: str, word: str) -> None:
        self.category, self.word = category, word
        self.thresholds = MappingProxyType({category: 0.5})

    def predict(self, texts: Sequence[str]) -> list[dict[str, float]]:
        return [{self.category: 0.9 if self.word in t else 0.0} for t in texts]

    def explain(self, text: str, category: str, normalized: object = None) -> list[Evidence]:
        at = text.find(self.word)
        end = at + len(self.word)
        return [Evidence(at, end, self.word, (f"c:{self.word}",), 2.0)] if at >= 0 else []
