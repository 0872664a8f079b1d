"""Fair randomness: one seed drives every random pick, committed to before the game.

The deal and every later random pick (random successors, random targets) come from generators
derived from the seed and a label (for picks: the log position), so the same seed and log always
give the same picks, and a rebuilt game draws exactly what the original drew. At the start the game
publishes ``commitment(seed, deal)``; at the end it reveals the seed, and anyone can check it.

>>> c = commitment("s3cret", {"饺子": "wolf", "包子": "seer"})
>>> len(c), verify_commitment(c, "s3cret", {"包子": "seer", "饺子": "wolf"})
(64, True)
>>> derived_rng("s3cret", "deal").random() == derived_rng("s3cret", "deal").random()
True
"""

from __future__ import annotations

import hashlib
import json
import random
import secrets
from collections.abc import Mapping


def new_seed() -> str:
    """A fresh unpredictable seed (hex), for games created without one."""
    return secrets.token_hex(16)


def derived_rng(seed: str, label: str) -> random.Random:
    """A generator determined only by ``seed`` and ``label``."""
    digest = hashlib.sha256(f"{seed}\x00{label}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def deal_json(deal: Mapping[str, str]) -> str:
    """Canonical JSON of a deal (sorted keys, no spaces), the text the commitment covers."""
    return json.dumps(dict(deal), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def commitment(seed: str, deal: Mapping[str, str]) -> str:
    """SHA-256 hex over the seed and the canonical deal."""
    return hashlib.sha256(f"{seed}\x00{deal_json(deal)}".encode()).hexdigest()


def verify_commitment(published: str, seed: str, deal: Mapping[str, str]) -> bool:
    """Whether ``published`` is the commitment of ``seed`` and ``deal``."""
    return secrets.compare_digest(published, commitment(seed, deal))
