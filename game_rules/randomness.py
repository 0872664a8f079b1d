"""Fair randomness: a server secret and the director's seed drive every random pick, committed to
before the game.

The service draws a fresh secret of 256 bits for every game (:func:`new_secret`, at the edge: the
core takes it as an input) and combines it with the director's optional seed into one key
(:func:`rng_key`). The deal and every later random pick (random successors, couples, random
targets) come from generators derived from that key and a label (for picks: the log position), so
the same inputs always give the same picks and a rebuilt game draws exactly what the original drew.
At the start the game publishes ``commitment(seed, deal, secret)`` (SHA-256 over the secret, the
seed and the canonical deal); at the end it reveals the secret and the seed, and anyone can
recompute the deal and each pick (:mod:`game_rules.verification`).

Because the secret is unknown until the end, a weak director seed (one character, a birthday)
gives nothing away: the public data cannot be searched for the deal. A game script without a
secret (``examples/*.yaml``) uses its seed alone, as before, so old scripts replay unchanged.

>>> c = commitment("s3cret", {"饺子": "wolf", "包子": "seer"}, "ab" * 32)
>>> len(c), verify_commitment(c, "s3cret", {"包子": "seer", "饺子": "wolf"}, "ab" * 32)
(64, True)
>>> verify_commitment(c, "s3cret", {"包子": "seer", "饺子": "wolf"}, "cd" * 32)
False
>>> derived_rng(rng_key("ab" * 32, "1"), "deal").random() == derived_rng(
...     rng_key("ab" * 32, "1"), "deal").random()
True
>>> rng_key("", "m72-demo")  # no secret: the seed alone
'm72-demo'
>>> len(new_secret())
64
"""

from __future__ import annotations

import hashlib
import json
import random
import secrets
from collections.abc import Mapping

#: bytes of a game's secret: 256 bits
SECRET_BYTES = 32


def new_seed() -> str:
    """A fresh unpredictable seed (hex), for games created without one."""
    return secrets.token_hex(16)


def new_secret() -> str:
    """A fresh server secret for one game: 256 random bits as 64 hex digits."""
    return secrets.token_hex(SECRET_BYTES)


def rng_key(secret: str, seed: str) -> str:
    """The key every generator of a game derives from: SHA-256 over the secret and the seed,
    or the seed itself when there is no secret (game scripts, games created before secrets)."""
    if not secret:
        return seed
    return hashlib.sha256(f"bansha-rng\x00{secret}\x00{seed}".encode()).hexdigest()


def derived_rng(key: str, label: str) -> random.Random:
    """A generator determined only by ``key`` (see :func:`rng_key`) and ``label``."""
    digest = hashlib.sha256(f"{key}\x00{label}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def deal_json(deal: Mapping[str, str]) -> str:
    """Canonical JSON of a deal (sorted keys, no spaces), the text the commitment covers."""
    return json.dumps(dict(deal), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def commitment(seed: str, deal: Mapping[str, str], secret: str = "") -> str:
    """SHA-256 hex over the secret, the seed and the canonical deal (without a secret: over the
    seed and the deal, the form of game scripts and of games created before secrets)."""
    if not secret:
        return hashlib.sha256(f"{seed}\x00{deal_json(deal)}".encode()).hexdigest()
    text = f"{secret}\x00{seed}\x00{deal_json(deal)}"
    return hashlib.sha256(text.encode()).hexdigest()


def verify_commitment(published: str, seed: str, deal: Mapping[str, str], secret: str = "") -> bool:
    """Whether ``published`` is the commitment of ``secret``, ``seed`` and ``deal``."""
    return secrets.compare_digest(published, commitment(seed, deal, secret))
