"""Revoking and reissuing tokens.

The director revokes a player token (``POST /api/games/{id}/tokens/revoke``) or replaces it with a
new one (``POST /api/games/{id}/tokens``) when it leaks or the character changes hands. A director
token is the root of its game and cannot be revoked through the API — a thief holding it could
otherwise lock the director out; the service's operator rotates it with ``bansha token
rotate-director`` (:mod:`api.cli`), which uses the same functions.

Revocation sets ``tokens.revoked_at`` once (a database trigger refuses any other change to a token
row), in a transaction that holds the game's lock, and is audited. Every endpoint checks it
(:mod:`api.auth`), so a revoked token is refused from the commit on, by every worker.
"""

# Repeated on purpose: each endpoint is declared alike (@endpoint), the OpenAPI doc's source.

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from flask import Blueprint, Response, jsonify
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from api import schemas
from api.auth import DIRECTOR, PLAYER, hash_token, identify, new_token, require
from api.database import db
from api.errors import BadRequest
from api.locking import characters_of
from api.openapi import endpoint
from api.store import audit, get_game, lock_game
from models.game import Token
from models.types import utcnow

bp = Blueprint("tokens", __name__)


def revoke_live(
    session: Session, game_id: str, kind: str, character: str | None, now: datetime
) -> list[int]:
    """Revoke every live token of ``kind`` (and ``character``) in the game; their row ids.

    Call with the game locked (:func:`api.store.lock_game`), so that a concurrent reissue cannot
    leave two live tokens for one holder.
    """
    holder = Token.character.is_(None) if character is None else Token.character == character
    live = Token.game_id == game_id, Token.kind == kind, holder, Token.revoked_at.is_(None)
    ids = list(session.scalars(select(Token.id).where(*live).order_by(Token.id)))
    if ids:
        session.execute(
            update(Token).where(Token.id.in_(ids)).values(revoked_at=now),
            execution_options={"synchronize_session": False},
        )
    return ids


def issue(
    session: Session, game_id: str, kind: str, character: str | None, now: datetime
) -> tuple[str, Token]:
    """A fresh token for the holder and its row, flushed (the database keeps only its hash)."""
    token = new_token()
    row = Token(
        token_hash=hash_token(token),
        game_id=game_id,
        kind=kind,
        character=character,
        created_at=now,
    )
    session.add(row)
    session.flush()
    return token, row


def replace_token(
    session: Session,
    game_id: str,
    kind: str,
    character: str | None,
    *,
    reissue: bool,
    actor: str,
    detail: Mapping[str, Any],
) -> tuple[list[int], str | None]:
    """Revoke the holder's live tokens and, with ``reissue``, issue a new one, in one go; the
    revoked row ids and the new token (None without ``reissue``).

    Audited as ``revoke_token`` (only when a token was live) and ``issue_token``, each entry
    holding ``detail`` (reason, ...) besides the kind, character and token row ids. Call with the
    game locked, as for :func:`revoke_live`.
    """
    now = utcnow()
    ids = revoke_live(session, game_id, kind, character, now)
    entry = {"kind": kind, "character": character, **detail}
    if ids:
        audit(session, game_id, actor, "revoke_token", {**entry, "tokens": ids})
    if not reissue:
        return ids, None
    token, row = issue(session, game_id, kind, character, now)
    audit(session, game_id, actor, "issue_token", {**entry, "tokens": [row.id]})
    return ids, token


def _authorised_character(game_id: str, character: str) -> None:
    """401/403/404 for the caller, 400 for a character not in the game."""
    with db().read() as session:
        caller = identify(session)
        row = get_game(session, game_id)
        require(caller, game_id, DIRECTOR)
        if character not in characters_of(row):
            raise BadRequest(f"没有名为「{character}」的角色", path="$.character")


def _change(game_id: str, body: dict[str, Any], *, reissue: bool) -> tuple[list[int], str | None]:
    """The endpoints' work: the director's player-token change under the game's lock."""
    _authorised_character(game_id, body["character"])
    with db().write() as session:
        lock_game(session, game_id)
        return replace_token(
            session,
            game_id,
            PLAYER,
            body["character"],
            reissue=reissue,
            actor=body.get("director") or DIRECTOR,
            detail={"reason": body.get("reason", "")},
        )


@endpoint(
    bp,
    "POST",
    "/api/games/<game_id>/tokens/revoke",
    summary="Revoke a character's player token (without a replacement)",
    auth=("director",),
    tag="tokens",
    request_schema=schemas.PLAYER_TOKEN_REQUEST,
    response=schemas.TOKEN_REVOKED,
    errors=(400, 401, 403, 404, 413),
    description="Every live player token of the character is revoked at once and for good: each "
    "later request carrying it gets 401 `token_revoked`. Revoking again is harmless "
    "(`revoked: 0`). Use `POST /api/games/{id}/tokens` to give the character a new token. "
    "Audited (`revoke_token`). Director tokens are rotated by the operator "
    "(`bansha token rotate-director`), never through the API.",
)
def revoke(game_id: str, body: dict[str, Any]) -> Response:
    ids, _ = _change(game_id, body, reissue=False)
    return jsonify({"game_id": game_id, "character": body["character"], "revoked": len(ids)})


@endpoint(
    bp,
    "POST",
    "/api/games/<game_id>/tokens",
    summary="Reissue a character's player token: revoke the live one, return a new one",
    auth=("director",),
    tag="tokens",
    request_schema=schemas.PLAYER_TOKEN_REQUEST,
    response=schemas.TOKEN_REISSUED,
    status=201,
    errors=(400, 401, 403, 404, 413),
    description="The character's live player token (if any) is revoked and a new one is issued "
    "in the same transaction, so the character never has two live tokens; the new token is shown "
    "only in this response. A retry issues yet another token and revokes this one. Audited "
    "(`revoke_token`, `issue_token`).",
)
def reissue(game_id: str, body: dict[str, Any]) -> tuple[Response, int]:
    ids, token = _change(game_id, body, reissue=True)
    return jsonify(
        {
            "game_id": game_id,
            "character": body["character"],
            "revoked": len(ids),
            "player_token": token,
        }
    ), 201
