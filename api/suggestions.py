"""The review queue: list suggestions of a game, and decide one."""

from __future__ import annotations

from typing import Any, Literal

from flask import Blueprint, Response, jsonify
from sqlalchemy import select

from api import schemas
from api.auth import DIRECTOR, identify, require
from api.database import db
from api.errors import NotFound
from api.locking import locked_game
from api.openapi import endpoint, read_query
from api.payloads import suggestion_json
from api.rulings import decide, find_suggestion
from api.schema import Schema, Text
from api.store import get_game
from models.cards import Decision, Suggestion
from models.posts import Post

bp = Blueprint("suggestions", __name__)

STATUS: Schema = Schema(
    Literal["pending", "decided", "all"], description="pending (default), decided or all"
)
CHARACTER: Schema = Schema(Text, description="only this character")


@endpoint(
    bp,
    "GET",
    "/api/games/<game_id>/suggestions",
    summary="The review queue (pending suggestions by default)",
    auth=("director",),
    tag="suggestions",
    response=schemas.SUGGESTIONS_RESPONSE,
    errors=(400, 401, 403, 404),
    query={"status": STATUS, "character": CHARACTER},
)
def list_suggestions(game_id: str) -> Response:
    with db().read() as session:
        caller = identify(session)
        get_game(session, game_id)
        require(caller, game_id, DIRECTOR)
        # Validated after authentication: a stranger learns nothing from a 400.
        status = read_query("status", STATUS, "pending")
        character = read_query("character", CHARACTER)
        query = (
            select(Suggestion, Post, Decision)
            .outerjoin(Post, Post.id == Suggestion.post_id)
            .outerjoin(Decision, Decision.suggestion_id == Suggestion.id)
            .where(Suggestion.game_id == game_id)
            .order_by(Suggestion.id)
        )
        if status != "all":
            query = query.where(Suggestion.status == status)
        if character:
            query = query.where(Suggestion.character == character)
        rows = session.execute(query).all()
        return jsonify({"suggestions": [suggestion_json(s, p, d) for s, p, d in rows]})


def _suggestion_id(raw: str) -> int:
    # ASCII digits only: str.isdigit() also admits "²", which int() refuses, and "١" or "１"
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 12:
        raise NotFound(f"没有这条建议：{raw!r}")
    return int(raw)


@endpoint(
    bp,
    "POST",
    "/api/suggestions/<sid>/decision",
    summary="Decide a suggestion: confirm, change the colour, or dismiss (green), with a note",
    auth=("director",),
    tag="suggestions",
    request_schema=schemas.DECISION_REQUEST,
    response=schemas.DECISION_RESPONSE,
    errors=(400, 401, 403, 404, 409, 413),
    description="The card enters the player's ledger; three blues escalate to a yellow and three "
    "yellows to a red. A red card (decided or by escalation) ejects the character through the "
    "game core at once (红牌罚下, announced publicly) and victory is re-checked; `faction_lost` "
    "also judges the character's faction lost. The decision is stored as a labelled training "
    "example. Deciding twice is a 409 (`already_decided`).",
)
def decision(sid: str, body: dict[str, Any]) -> Response:
    suggestion_id = _suggestion_id(sid)
    with db().read() as session:
        caller = identify(session)
        found = find_suggestion(session, suggestion_id)
        game_id = found.game_id
        require(caller, game_id, DIRECTOR)
    actor = body.get("director") or DIRECTOR
    with locked_game(game_id) as (session, locked):
        suggestion = find_suggestion(session, suggestion_id)
        session.refresh(suggestion)
        result = decide(
            locked,
            suggestion,
            action=body["action"],
            colour=body.get("colour"),
            note=body.get("note", ""),
            faction_lost=bool(body.get("faction_lost", False)),
            actor=actor,
        )
    return jsonify(result)
