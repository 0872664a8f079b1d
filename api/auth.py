"""Tokens: a director token per game and a player token per character; the public needs none.

Tokens travel only in the ``Authorization: Bearer`` header; a token in the query string is refused
so that it never lands in access logs. The database stores only each token's SHA-256.

A token can be revoked (``revoked_at`` set once, never undone): the director revokes or reissues
player tokens (:mod:`api.tokens`), the operator rotates a director token (``bansha token``). A
revoked token is refused with 401 ``token_revoked`` by every endpoint from the commit on.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from flask import current_app, request
from sqlalchemy import Connection, select
from sqlalchemy.orm import Session

from api.actors import ActorKind, Principal, admin_principal, authenticated
from api.database import Database
from api.errors import BadRequest, Forbidden, TokenRevoked, Unauthorized
from models.game import Token

DIRECTOR = "director"
PLAYER = "player"
PUBLIC = "public"
#: the holder of BANSHA_ADMIN_TOKEN (configuration, not a token row)
ADMIN = "admin"
#: the token kinds as a refusal names them
_KIND_NAMES = {DIRECTOR: "导演", PLAYER: "玩家", PUBLIC: "公开"}


def new_token() -> str:
    """A fresh random token (URL-safe, 256 bits)."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """The stored form of a token.

    >>> len(hash_token("abc"))
    64
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
# Repeated on purpose: a Caller is a request's role in a game; actors.Principal who is audited.
class Caller:
    """Who is calling: the public, a player (one character of one game) or a game's director."""

    kind: str
    game_id: str | None = None
    character: str | None = None
    token_hash: str | None = None

    @property
    def label(self) -> str:
        """How the audit trail names this caller."""
        if self.kind == PLAYER:
            return f"player:{self.character}"
        return self.kind


def bearer_token() -> str | None:
    """The bearer token of the current request, or None when there is no Authorization header."""
    if "token" in request.args or "access_token" in request.args:
        raise BadRequest("令牌只能放在 Authorization 请求头中，不能写在网址里")
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise Unauthorized("Authorization 请求头须为 'Bearer <令牌>'")
    return value.strip()


def identify(session: Session) -> Caller:
    """Resolve the current request's caller (public when no token is given)."""
    token = bearer_token()
    if token is None:
        return _authenticated(Caller(PUBLIC))
    return _authenticated(_lookup(hash_token(token), session))


def identify_cached(database: Database) -> Caller:
    """:func:`identify` through this process's token cache (a read transaction on a miss).

    What a token names (game, kind, character) never changes, so that is what is cached. Whether
    it is still live is not: a caller that takes this path must confirm it inside its own
    transaction (pass the caller to :func:`api.locking.shared_game` or
    :func:`api.locking.locked_game`, or call :func:`refuse_revoked`), which also drops a revoked
    one from the cache (:func:`forget_token`).
    """
    token = bearer_token()
    if token is None:
        return _authenticated(Caller(PUBLIC))
    digest = hash_token(token)
    cache: dict[str, Caller] = current_app.extensions.setdefault("bansha_tokens", {})
    found = cache.get(digest)
    if found is None:
        with database.read() as session:
            found = _lookup(digest, session)
        if len(cache) > 10_000:
            cache.clear()
        cache[digest] = found
    return _authenticated(found)


def _authenticated(caller: Caller) -> Caller:
    """Record ``caller`` as the request's identity for the audit trail (:mod:`api.actors`)."""
    kind = ActorKind(caller.kind)
    authenticated(Principal(kind, caller.token_hash, caller.character))
    return caller


def forget_token(digest: str) -> None:
    """Drop a token from this process's cache (it was found revoked), so that its next request
    is refused by the look-up itself."""
    cache: dict[str, Caller] = current_app.extensions.setdefault("bansha_tokens", {})
    cache.pop(digest, None)


def revoked_message(kind: str) -> str:
    """What a revoked token is told (and how to get a new one)."""
    if kind == DIRECTOR:
        return (
            "this director token was revoked; the service operator issues a new one "
            "(bansha token rotate-director)"
        )
    return "this player token was revoked by the game's director; ask the director for a new one"


def refuse_revoked(session: Session | Connection, caller: Caller) -> None:
    """Raise 401 ``token_revoked`` if ``caller``'s token is revoked now (one indexed read)."""
    if caller.token_hash is None:
        return
    revoked = session.execute(
        select(Token.revoked_at).where(Token.token_hash == caller.token_hash)
    ).scalar()
    refuse_if_revoked(caller, revoked is not None)


def refuse_if_revoked(caller: Caller, revoked: bool) -> None:
    """Raise 401 ``token_revoked`` if ``revoked`` (read by the caller's own statement, e.g. the
    post path's share lock), dropping the token from this process's cache first."""
    if revoked:
        assert caller.token_hash is not None
        forget_token(caller.token_hash)
        raise TokenRevoked(revoked_message(caller.kind))


def _lookup(digest: str, session: Session) -> Caller:
    row = session.execute(
        select(Token.game_id, Token.kind, Token.character, Token.revoked_at).where(
            Token.token_hash == digest
        )
    ).first()
    if row is None:
        raise Unauthorized("无效的令牌")
    if row.revoked_at is not None:
        raise TokenRevoked(revoked_message(row.kind))
    return Caller(row.kind, row.game_id, row.character, digest)


def require(caller: Caller, game_id: str, *kinds: str) -> Caller:
    """Check that ``caller`` may act on ``game_id`` as one of ``kinds``; raise 401/403 otherwise."""
    if PUBLIC in kinds:
        if caller.kind != PUBLIC and caller.game_id != game_id:
            raise Forbidden("此令牌属于另一场游戏")
        return caller
    if caller.kind == PUBLIC:
        raise Unauthorized("此接口需要在 Authorization 请求头中提供令牌")
    if caller.game_id != game_id:
        raise Forbidden("此令牌属于另一场游戏")
    if caller.kind not in kinds:
        raise Forbidden(f"此接口需要{'或'.join(_KIND_NAMES.get(k, k) for k in kinds)}令牌")
    return caller


def identify_director_or_admin(session: Session, game_id: str) -> str:
    """The caller as ``admin`` (the configured BANSHA_ADMIN_TOKEN) or as ``game_id``'s director;
    401/403 otherwise. The admin token is compared in constant time and never looked up."""
    expected = current_app.config.get("ADMIN_TOKEN")
    given = bearer_token()
    if (
        expected
        and given is not None
        and secrets.compare_digest(given.encode(), str(expected).encode())
    ):
        authenticated(admin_principal(given))
        return ADMIN
    require(identify(session), game_id, DIRECTOR)
    return DIRECTOR
