"""The ``Idempotency-Key`` request header of ``POST /api/games``: a retry creates no second game.

A client that timed out sends the same request again with the same key. The first success is
remembered per (caller scope, key) — see :class:`models.idempotency.IdempotencyKey` — and a later
request with the same key and the same body gets the same answer (same game, same tokens, 201,
``Idempotent-Replayed: true``); the same key with another body is refused (422
``idempotency_key_reused``). The key's row is inserted in the transaction that creates the game,
under a unique constraint, so concurrent duplicates create one game: the loser's transaction
rolls back and it answers from the winner's row.

The database keeps only token hashes, so the stored response has no tokens. When a key is given,
the tokens are not random but derived from it (HMAC-SHA256 keyed by the idempotency key, over the
game id and the token's holder), and a replay derives them again. The key is therefore as secret
as the director token while its row is kept: clients must use a fresh random value (a UUID4).

>>> derived_token("0b6f2c1e-3c4a-4d8e-9f00-5a7b8c9d0e1f", "g1", "director") == derived_token(
...     "0b6f2c1e-3c4a-4d8e-9f00-5a7b8c9d0e1f", "g1", "director")
True
>>> len(derived_token("0b6f2c1e-3c4a-4d8e-9f00-5a7b8c9d0e1f", "g1", "player:凛"))
43
>>> fingerprint({"b": 1, "a": "凛"}) == fingerprint({"a": "凛", "b": 1})
True
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from collections.abc import Mapping
from typing import Any, cast

from flask import request
from sqlalchemy import Table, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from api.errors import BadRequest, Unprocessable
from models.idempotency import IdempotencyKey
from models.types import utcnow

HEADER = "Idempotency-Key"
#: visible ASCII, no spaces; long enough that a random key cannot be guessed (a UUID is 36)
KEY_FORMAT = re.compile(r"[\x21-\x7e]{16,255}")
KEY_RULE = "16 to 255 visible ASCII characters (use a random UUID)"  # for the API description
KEY_RULE_ZH = "16 至 255 个可见 ASCII 字符（请用随机 UUID）"  # for the refusal


def request_key() -> str | None:
    """The current request's idempotency key, None without the header; 400 when malformed."""
    raw = request.headers.get(HEADER)
    if raw is None:
        return None
    key = raw.strip()
    if not KEY_FORMAT.fullmatch(key):
        raise BadRequest(f"{HEADER} 须为{KEY_RULE_ZH}", path=HEADER)
    return key


def key_hash(key: str) -> str:
    """How a key is stored and looked up (its SHA-256)."""
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def fingerprint(body: Mapping[str, Any]) -> str:
    """SHA-256 of the body's canonical JSON: the same request however its keys are ordered."""
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def derived_token(key: str, game_id: str, holder: str) -> str:
    """The token of ``holder`` (``director`` or ``player:<character>``) in a game created with
    ``key``: 256 bits, URL-safe, the same every time it is derived."""
    message = f"bansha-token\x00{game_id}\x00{holder}".encode()
    digest = hmac.new(key.encode("ascii"), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def find(session: Session, scope: str, hashed_key: str) -> IdempotencyKey | None:
    """The remembered first request for this key in this scope, if any."""
    return session.scalars(
        select(IdempotencyKey).where(
            IdempotencyKey.scope == scope, IdempotencyKey.key_hash == hashed_key
        )
    ).first()


def _insert_key(insert_for: Any) -> Any:
    table = cast(Table, IdempotencyKey.__table__)
    return (
        insert_for(table)
        .on_conflict_do_nothing(index_elements=["scope", "key_hash"])
        .returning(table.c.id)
    )


#: remember a key unless it is taken; on PostgreSQL a concurrent insert of the same key waits
#: for the other transaction and then does nothing (or inserts, if that one rolled back)
_INSERT_KEY = {"postgresql": _insert_key(postgresql.insert), "sqlite": _insert_key(sqlite.insert)}


def remember(
    session: Session,
    *,
    scope: str,
    hashed_key: str,
    request_hash: str,
    game_id: str,
    status: int,
    response: dict[str, Any],
) -> bool:
    """Store the first response for this key (inside the creating transaction); False when the
    key is already taken (by a committed or a concurrent request), and then nothing is stored."""
    connection = session.connection()
    inserted = connection.execute(
        _INSERT_KEY[connection.dialect.name],
        {
            "scope": scope,
            "key_hash": hashed_key,
            "request_hash": request_hash,
            "game_id": game_id,
            "status": status,
            "response": response,
            "created_at": utcnow(),
        },
    ).first()
    return inserted is not None


def check_same_request(stored: IdempotencyKey, request_hash: str) -> None:
    """422 when the key was first used with another body."""
    if stored.request_hash != request_hash:
        raise Unprocessable(
            f"this {HEADER} was already used with a different request body; send the original "
            "body to get that game again, or use a new key for a new game",
            rule="idempotency_key_reused",
        )
