"""``POST /api/games``: create a game."""

from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, Response, current_app, jsonify
from sqlalchemy.orm import Session

from api import idempotency, schemas
from api.actors import ActorKind, Principal, admin_principal, authenticated
from api.auth import DIRECTOR, PLAYER, bearer_token, hash_token, new_token
from api.database import db
from api.errors import BadRequest, Forbidden, Unauthorized
from api.gameplay import Game, GameRuleError, create_game, events_to_dicts
from api.openapi import endpoint
from api.registry import admit_players
from api.schema import Annotated, Field, Schema
from api.store import append_events, audit
from game_rules.names import normalise_name, normalise_names
from models.game import Game as GameRow
from models.game import Token
from models.idempotency import IdempotencyKey
from models.types import utcnow

bp = Blueprint("games", __name__)


def _check_admin(typed: str | None = None) -> str:
    """With ``ADMIN_TOKEN`` configured, only its holder may create games. The token is the
    request's bearer token, or ``typed`` (the console's new-game form asks for it).

    Returns the caller's scope for idempotency keys: ``public``, or ``admin:<token hash>``.
    """
    expected = current_app.config.get("ADMIN_TOKEN")
    if not expected:
        authenticated(Principal(ActorKind.PUBLIC))
        return "public"
    given = bearer_token() if typed is None else typed
    if given is None:
        raise Unauthorized("创建游戏需要服务的管理员令牌")
    if not secrets.compare_digest(given.encode(), str(expected).encode()):
        raise Forbidden("此令牌不能创建游戏")
    authenticated(admin_principal(given))
    return f"admin:{hash_token(given)}"


def _players(raw: list[Any]) -> list[dict[str, Any]]:
    """The players as stored: character names and aliases normalised (NFKC) and refused when
    they hold invisible characters, collide or are vote keywords (:mod:`game_rules.names`)."""
    players: list[dict[str, Any]] = []
    for i, item in enumerate(raw):
        entry = {"character": item} if isinstance(item, str) else dict(item)
        try:
            entry["character"] = normalise_name(entry["character"])
            entry["aliases"] = [normalise_name(a) for a in entry.get("aliases", [])]
        except GameRuleError as exc:
            raise BadRequest(exc.message, rule=exc.rule, path=f"$.players[{i}]") from exc
        entry.setdefault("player", entry["character"])
        players.append(entry)
    try:
        normalise_names(p["character"] for p in players)
    except GameRuleError as exc:
        raise BadRequest(exc.message, rule=exc.rule, path="$.players") from exc
    return players


class _KeyTaken(Exception):
    """The idempotency key was stored by another request first: roll back and replay that one."""


def _replay(stored: IdempotencyKey, request_hash: str) -> tuple[Response, int]:
    """The first response for the key again, its tokens unsealed with the server's secret (422
    for another body, 409 when they cannot be recovered)."""
    idempotency.check_same_request(stored, request_hash)
    body = dict(stored.response)
    body["director_token"], body["player_tokens"] = idempotency.open_tokens(
        idempotency.server_key(), stored.sealed_tokens
    )
    response = jsonify(body)
    response.headers["Idempotent-Replayed"] = "true"
    return response, stored.status


def _insert_game(
    session: Session, game_id: str, ruleset: str, players: list[dict[str, Any]], game: Game
) -> GameRow:
    """The game's row, flushed (so that rows referring to it may follow)."""
    row = GameRow(
        id=game_id,
        ruleset=ruleset,
        seed=game.seed_for_director,
        players=players,
        commitment=game.state.commitment,
        version=0,
        finished=False,
        accelerated_days=[],
        created_at=utcnow(),
    )
    session.add(row)
    session.flush()
    return row


def _insert_tokens(
    session: Session, game_id: str, director_token: str, player_tokens: dict[str, str]
) -> None:
    """Store the hashes of the game's first tokens."""
    session.add(Token(token_hash=hash_token(director_token), game_id=game_id, kind=DIRECTOR))
    for name, token in player_tokens.items():
        session.add(
            Token(token_hash=hash_token(token), game_id=game_id, kind=PLAYER, character=name)
        )


@endpoint(
    bp,
    "POST",
    "/api/games",
    summary="Create a game: deal roles, publish the commitment, hand out tokens",
    auth=("public",),
    tag="games",
    request_schema=schemas.CREATE_GAME,
    response=schemas.CREATED_GAME,
    status=201,
    errors=(400, 401, 403, 413, 422),
    headers={
        idempotency.HEADER: Schema(
            Annotated[str, Field(pattern=f"^(?:{idempotency.KEY_FORMAT.pattern})$")],
            description="Optional. A fresh random value (a UUID4; "
            + idempotency.KEY_RULE
            + ") that makes a retry safe: while the key is kept (at least 24 hours), the same key "
            "with the same body answers "
            "with the game the first request created (same id and tokens, 201, header "
            "`Idempotent-Replayed: true`) instead of creating another; the same key with another "
            "body is a 422. The tokens are random either way; for the replay the service keeps "
            "them encrypted under its own secret key (BANSHA_SECRET_KEY), never derived from the "
            "key. Whoever holds the key and the body can fetch the tokens again while the key is "
            "kept, so keep the key as secret as the director token.",
        )
    },
    response_headers={
        "Idempotent-Replayed": "`true` when this is the remembered answer to an earlier request "
        "with the same Idempotency-Key (no game was created by this request)"
    },
    description="The response is the only time the tokens are shown; the service keeps only "
    "their hashes (and, under an Idempotency-Key, a copy encrypted with the service's secret key "
    "for the replay). The deal and every random pick come from a fresh 256-bit server secret "
    "combined with the optional `seed`; the commitment is SHA-256 over the secret, the seed and "
    "the deal, and the secret and seed are revealed when the game ends. Give each "
    "player their own token; keep the director token. When the service is configured with an "
    "admin token (BANSHA_ADMIN_TOKEN), creating a game requires it as the bearer token.",
)
def create(body: dict[str, Any], admin_token: str | None = None) -> tuple[Response, int]:
    # admin_token: only the console passes it (calling this view directly); HTTP uses the header.
    scope = _check_admin(admin_token)
    key = idempotency.request_key()
    players = _players(body["players"])
    names = [p["character"] for p in players]
    hashed_key = request_hash = ""
    if key is not None:
        hashed_key, request_hash = idempotency.key_hash(key), idempotency.fingerprint(body)
        with db().read() as session:
            stored = idempotency.find(session, scope, hashed_key)
        if stored is not None:
            return _replay(stored, request_hash)
    try:
        game = create_game(
            body["ruleset"],
            names,
            body.get("seed"),
            body.get("roles"),
            {p["character"]: p["player"] for p in players},
        )
    except GameRuleError as exc:
        raise BadRequest(exc.message, rule=exc.rule) from exc
    game_id = secrets.token_hex(8)
    director_token = new_token()
    player_tokens = {name: new_token() for name in names}
    created = {
        "id": game_id,
        "ruleset": body["ruleset"],
        "characters": names,
        "commitment": game.state.commitment,
        "director_token": director_token,
        "player_tokens": player_tokens,
        "announcements": [a.text for a in game.public_view().announcements],
    }
    try:
        with db().write() as session:
            row = _insert_game(session, game_id, body["ruleset"], players, game)
            # The forum's registry: seat the players, refusing a banned one (api.registry).
            admit_players(
                session, game_id, players, body.get("ban_overrides", []), admin=scope != "public"
            )
            if key is not None and not idempotency.remember(
                session,
                scope=scope,
                hashed_key=hashed_key,
                request_hash=request_hash,
                game_id=game_id,
                status=201,
                response={
                    k: v for k, v in created.items() if k not in ("director_token", "player_tokens")
                },
                sealed_tokens=idempotency.seal_tokens(
                    idempotency.server_key(), director_token, player_tokens
                ),
            ):
                raise _KeyTaken
            append_events(session, row, events_to_dicts(game.log))
            _insert_tokens(session, game_id, director_token, player_tokens)
            audit(
                session,
                game_id,
                DIRECTOR,
                "create_game",
                {"ruleset": row.ruleset, "characters": names, "commitment": row.commitment},
            )
    except _KeyTaken:
        # A concurrent request with the same key committed first; this one stored nothing.
        with db().read() as session:
            stored = idempotency.find(session, scope, hashed_key)
        assert stored is not None
        return _replay(stored, request_hash)
    current_app.extensions["bansha_games"].put(game_id, len(game.log), game)
    return jsonify(created), 201
