"""The ``Idempotency-Key`` request header of ``POST /api/games``: a retry creates no second game.

A client that timed out sends the same request again with the same key. The first success is
remembered per (caller scope, key) — see :class:`models.idempotency.IdempotencyKey` — and a later
request with the same key and the same body gets the same answer (same game, same tokens, 201,
``Idempotent-Replayed: true``); the same key with another body is refused (422
``idempotency_key_reused``). The key's row is inserted in the transaction that creates the game,
under a unique constraint, so concurrent duplicates create one game: the loser's transaction
rolls back and it answers from the winner's row.

Tokens are random (:func:`api.auth.new_token`) whether or not a key is given, and the token
table keeps only their hashes. So that a replay can hand out the same tokens, the first request
seals them (:func:`seal_tokens`: Fernet, AES-128-CBC with HMAC-SHA256, under a key derived from the
service's ``SECRET_KEY``, i.e. ``BANSHA_SECRET_KEY``) into the key's row; a replay opens them
(:func:`open_tokens`). Nothing a client sends or sees (the idempotency key, the game id) lets anyone
compute a token: without the server's secret the sealed text is useless. Changing
``BANSHA_SECRET_KEY`` makes older sealed tokens unrecoverable: such a replay is refused (409
``idempotency_tokens_unrecoverable``) and the operator rotates the director token.

(Before revision 0005 the tokens of a game created with a key were an HMAC of that key; the
migration revoked them: see ``models/migrations/versions/0005_sealed_tokens.py``.)

>>> sealed = seal_tokens("k" * 32, "d-token", {"凛": "p-token"})
>>> open_tokens("k" * 32, sealed)
('d-token', {'凛': 'p-token'})
>>> "d-token" in sealed
False
>>> fingerprint({"b": 1, "a": "凛"}) == fingerprint({"a": "凛", "b": 1})
True
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any, cast

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from flask import current_app, request
from sqlalchemy import Table, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from api.errors import BadRequest, Conflict, Unprocessable
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


def _fernet(server_key: str) -> Fernet:
    """The cipher for sealed tokens: its key derived (HKDF-SHA256) from the service's secret, so
    that the secret signing console sessions is never used as is for a second purpose."""
    derived = HKDF(
        algorithm=hashes.SHA256(), length=32, salt=None, info=b"bansha idempotency tokens"
    ).derive(server_key.encode("utf-8"))
    return Fernet(base64.urlsafe_b64encode(derived))


def server_key() -> str:
    """The service's secret (``SECRET_KEY``: ``BANSHA_SECRET_KEY``, else the key file)."""
    key = current_app.config.get("SECRET_KEY")
    if not key:
        raise RuntimeError("SECRET_KEY is not configured (set BANSHA_SECRET_KEY)")
    return str(key)


def seal_tokens(server_secret: str, director: str, players: Mapping[str, str]) -> str:
    """The game's first tokens, encrypted and authenticated for the key's row."""
    plain = json.dumps({"director": director, "players": dict(players)}, ensure_ascii=False)
    return _fernet(server_secret).encrypt(plain.encode("utf-8")).decode("ascii")


def open_tokens(server_secret: str, sealed: str | None) -> tuple[str, dict[str, str]]:
    """The tokens :func:`seal_tokens` sealed; 409 when they cannot be recovered (a row from
    before revision 0005, whose tokens were revoked, or a changed ``BANSHA_SECRET_KEY``)."""
    try:
        if sealed is None:
            raise InvalidToken
        data = json.loads(_fernet(server_secret).decrypt(sealed.encode("ascii")))
    except InvalidToken:
        raise Conflict(
            "无法再次取回这局游戏的令牌（令牌已轮换，或服务密钥已更换）；"
            "请服务管理员用 bansha token rotate-director 为导演签发新令牌",
            rule="idempotency_tokens_unrecoverable",
        ) from None
    return str(data["director"]), {str(k): str(v) for k, v in data["players"].items()}


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
    sealed_tokens: str,
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
            "sealed_tokens": sealed_tokens,
            "created_at": utcnow(),
        },
    ).first()
    return inserted is not None


def check_same_request(stored: IdempotencyKey, request_hash: str) -> None:
    """422 when the key was first used with another body."""
    if stored.request_hash != request_hash:
        raise Unprocessable(
            f"这个 {HEADER} 已用于另一份请求正文：要取回那场游戏请发送原来的正文，"
            "要新建一场游戏请换一个新的键",
            rule="idempotency_key_reused",
        )
