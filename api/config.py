"""Service configuration: defaults, overridden by environment variables, then by ``test_config``.

=============================  ====================================  ==============================
key                            environment variable                  default
=============================  ====================================  ==============================
``DATABASE_URL``               ``DATABASE_URL``                      ``sqlite:///…/var/bansha.sqlite3``
``MAX_CONTENT_LENGTH``         ``BANSHA_MAX_BODY``                   2 MiB (larger bodies get 413)
``MAX_BATCH``                  ``BANSHA_MAX_BATCH``                  500 posts per request
``MAX_POST_CHARS``             ``BANSHA_MAX_POST_CHARS``             16,000 characters per post
``RATE_LIMIT_POSTS``           ``BANSHA_RATE_LIMIT`` (``N/SECONDS``) 3000 posts per 60 s per token
``RATE_LIMIT_GAMES``           ``BANSHA_RATE_LIMIT_GAMES``           20 games / 600 s per client
``RATE_LIMIT_WRITES``          ``BANSHA_RATE_LIMIT_WRITES``          600 writes / 60 s per client
``MAX_URL_LENGTH``             ``BANSHA_MAX_URL``                    2048 characters (longer: 414)
``TRUSTED_PROXIES``            ``BANSHA_TRUSTED_PROXIES``            0 (1 behind deploy/nginx.conf)
``USE_CLASSIFIER``             ``BANSHA_CLASSIFIER`` (0 = rules only)  on (if the model file exists)
(model file)                   ``BANSHA_MODEL``                      ``var/model.skops`` (optional)
``ADMIN_TOKEN``                ``BANSHA_ADMIN_TOKEN``                unset: anyone may create games
``SECRET_KEY``                 ``BANSHA_SECRET_KEY``                 ``var/console-secret``
``REGISTRY_PUBLIC``            ``BANSHA_REGISTRY_PUBLIC``            ``red_cards,bans``
=============================  ====================================  ==============================

``SECRET_KEY`` signs console sessions and, through a key derived from it, seals the tokens kept
for ``Idempotency-Key`` replays; every worker and host must share it (set ``BANSHA_SECRET_KEY``).
Unset, the console creates ``var/console-secret`` once (:mod:`api.console.security`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from api.registry_rules import parse_published
from models.database import default_database_url, normalise_url

DEFAULT_MAX_BODY = 2 * 1024 * 1024


def parse_rate(text: str) -> tuple[int, int]:
    """Parse ``"N/SECONDS"`` into ``(N, SECONDS)``.

    >>> parse_rate("3000/60")
    (3000, 60)
    >>> parse_rate("5")
    Traceback (most recent call last):
    ...
    ValueError: rate limit must look like N/SECONDS, got '5'
    """
    try:
        count, seconds = (int(part) for part in text.split("/"))
    except ValueError:
        raise ValueError(f"rate limit must look like N/SECONDS, got {text!r}") from None
    if count < 1 or seconds < 1:
        raise ValueError(f"rate limit must be positive, got {text!r}")
    return count, seconds


def load_config(test_config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The effective configuration."""
    env = os.environ
    config: dict[str, Any] = {
        "DATABASE_URL": default_database_url(),
        "MAX_CONTENT_LENGTH": int(env.get("BANSHA_MAX_BODY", DEFAULT_MAX_BODY)),
        "MAX_BATCH": int(env.get("BANSHA_MAX_BATCH", 500)),
        # 16,000 characters stay under the screener's 64 KiB limit whatever the characters.
        "MAX_POST_CHARS": int(env.get("BANSHA_MAX_POST_CHARS", 16_000)),
        "USE_CLASSIFIER": env.get("BANSHA_CLASSIFIER", "1") not in ("0", "false", "no"),
        "RATE_LIMIT_POSTS": parse_rate(env.get("BANSHA_RATE_LIMIT", "3000/60")),
        # Per client (its token, else its address; see api.guard), charged before any work.
        "RATE_LIMIT_GAMES": parse_rate(env.get("BANSHA_RATE_LIMIT_GAMES", "20/600")),
        "RATE_LIMIT_WRITES": parse_rate(env.get("BANSHA_RATE_LIMIT_WRITES", "600/60")),
        # Under gunicorn's own request-line limit (4094 bytes), so that the service answers first.
        "MAX_URL_LENGTH": int(env.get("BANSHA_MAX_URL", 2048)),
        # Proxies in front whose X-Forwarded-For is believed (the client address rate limits use).
        "TRUSTED_PROXIES": int(env.get("BANSHA_TRUSTED_PROXIES", 0)),
        # When set, POST /api/games needs it as the bearer token (default: anyone may create).
        "ADMIN_TOKEN": env.get("BANSHA_ADMIN_TOKEN") or None,
        # Signs console sessions and seals idempotency replays' tokens (None: the console's file).
        "SECRET_KEY": env.get("BANSHA_SECRET_KEY", "").strip() or None,
        # What the public sees of a player's record (docs/registry.md).
        "REGISTRY_PUBLIC": parse_published(env.get("BANSHA_REGISTRY_PUBLIC", "red_cards,bans")),
    }
    if test_config:
        config.update(test_config)
    config["DATABASE_URL"] = normalise_url(config["DATABASE_URL"])
    return config
