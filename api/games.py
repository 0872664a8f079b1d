"""``POST /api/games``: create a game."""

from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, Response, current_app, jsonify

from api import schemas
from api.auth import DIRECTOR, PLAYER, bearer_token, hash_token, new_token
from api.database import db
from api.errors import BadRequest, Forbidden, Unauthorized
from api.gameplay import GameRuleError, create_game, events_to_dicts
from api.openapi import endpoint
from api.store import append_events, audit
from models.game import Game as GameRow
from models.game import Token
from models.types import utcnow

bp = Blueprint("games", __name__)


def _check_admin() -> None:
    """With ``ADMIN_TOKEN`` configured, only its holder may create games."""
    expected = current_app.config.get("ADMIN_TOKEN")
    if not expected:
        return
    given = bearer_token()
    if given is None:
        raise Unauthorized("creating a game needs the service's admin token")
    if not secrets.compare_digest(given.encode(), str(expected).encode()):
        raise Forbidden("this token may not create games")


def _players(raw: list[Any]) -> list[dict[str, Any]]:
    players: list[dict[str, Any]] = []
    for i, item in enumerate(raw):
        entry = {"character": item} if isinstance(item, str) else dict(item)
        entry.setdefault("aliases", [])
        entry.setdefault("player", entry["character"])
        if entry["character"] != entry["character"].strip():
            raise BadRequest(
                "character names must not start or end with spaces", path=f"$.players[{i}]"
            )
        players.append(entry)
    names = [p["character"] for p in players]
    if len(set(names)) != len(names):
        raise BadRequest("character names must be unique", path="$.players")
    return players


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
    errors=(400, 401, 403, 413),
    description="The response is the only time the tokens are shown; the service keeps only "
    "their hashes. Give each player their own token; keep the director token. When the service "
    "is configured with an admin token (BANSHA_ADMIN_TOKEN), creating a game requires it as the "
    "bearer token.",
)
def create(body: dict[str, Any]) -> tuple[Response, int]:
    _check_admin()
    players = _players(body["players"])
    names = [p["character"] for p in players]
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
    with db().write() as session:
        row = GameRow(
            id=game_id,
            ruleset=body["ruleset"],
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
        append_events(session, row, events_to_dicts(game.log))
        session.add(Token(token_hash=hash_token(director_token), game_id=game_id, kind=DIRECTOR))
        for name, token in player_tokens.items():
            session.add(
                Token(token_hash=hash_token(token), game_id=game_id, kind=PLAYER, character=name)
            )
        audit(
            session,
            game_id,
            DIRECTOR,
            "create_game",
            {"ruleset": row.ruleset, "characters": names, "commitment": row.commitment},
        )
    current_app.extensions["bansha_games"].put(game_id, len(game.log), game)
    return jsonify(
        {
            "id": game_id,
            "ruleset": row.ruleset,
            "characters": names,
            "commitment": row.commitment,
            "director_token": director_token,
            "player_tokens": player_tokens,
            "announcements": [a.text for a in game.public_view().announcements],
        }
    ), 201
