"""Driving the game: actions, closing days and nights, announcements and views."""

# Repeated on purpose: each endpoint is declared alike (@endpoint), the OpenAPI doc's source.

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify

from api import schemas
from api.auth import DIRECTOR, PLAYER, PUBLIC, Caller, identify, require
from api.closing import close_day, close_night
from api.database import db
from api.gameplay import Game, action_from_json, events_to_dicts
from api.locking import locked_game, read_game
from api.openapi import endpoint
from api.payloads import card_json
from api.store import audit, get_game
from game_rules.events import Announced
from models.cards import Card
from models.game import Game as GameRow

bp = Blueprint("play", __name__)


def _director(game_id: str) -> Caller:
    with db().read() as session:
        caller = identify(session)
        get_game(session, game_id)
        return require(caller, game_id, DIRECTOR)


def _announcement_texts(events: tuple[Any, ...] | list[Any]) -> list[str]:
    return [e.text for e in events if isinstance(e, Announced)]


@endpoint(
    bp,
    "POST",
    "/api/games/<game_id>/actions",
    summary="Apply a game action: night skill, proxy vote (代投), last words, 替补, 判负…",
    auth=("director",),
    tag="play",
    request_schema=schemas.ACTION,
    response=schemas.ACTION_RESPONSE,
    errors=(400, 401, 403, 404, 409, 413),
    description="The game core validates the action; an illegal one is a 409 whose `rule` names "
    "the rule broken (e.g. `guard_repeat_target`), and the game is unchanged. Red cards are not "
    "actions: give them through a decision or `POST /api/games/{id}/cards`.",
)
def apply_action(game_id: str, body: dict[str, Any]) -> Response:
    caller = _director(game_id)
    action = action_from_json(body)
    with locked_game(game_id) as (session, locked):
        events = locked.apply(action)
        audit(session, game_id, caller.label, "action", {"action": _jsonable(body)})
        result = {
            "events": events_to_dicts(list(events)),
            "announcements": _announcement_texts(events),
            "outcome": locked.game.outcome().to_dict(),
        }
    return jsonify(result)


def _jsonable(body: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in body.items()}


@endpoint(
    bp,
    "POST",
    "/api/games/<game_id>/advance",
    summary="Close the day (tally, 潜水/未投票 yellows) or the night (resolve it)",
    auth=("director",),
    tag="play",
    request_schema=schemas.ADVANCE,
    response=schemas.ADVANCE_RESPONSE,
    errors=(400, 401, 403, 404, 409, 413),
    description="Closing a day tallies the votes through the game core, then gives each living "
    "character the seeds' fixed yellows: too few non-water posts (潜水) and no vote (未投票), "
    "unless "
    "the day was accelerated (加速). They escalate like any card; with `review_penalties` they "
    "are queued as suggestions instead.",
)
def advance(game_id: str, body: dict[str, Any]) -> Response:
    caller = _director(game_id)
    with locked_game(game_id) as (_session, locked):
        if body["close"] == "day":
            result = close_day(
                locked,
                at=body.get("at"),
                accelerated=bool(body.get("accelerated", False)),
                review=bool(body.get("review_penalties", False)),
                actor=caller.label,
            )
        else:
            result = close_night(locked, actor=caller.label)
        result["outcome"] = locked.game.outcome().to_dict()
    return jsonify(result)


def _announcements(game: Game) -> list[dict[str, Any]]:
    return [
        {"day": a.day, "phase": a.phase, "kind": a.kind, "text": a.text}
        for a in game.public_view().announcements
    ]


@endpoint(
    bp,
    "GET",
    "/api/games/<game_id>/announcements",
    summary="The public feed (公示) in the seeds' wording",
    auth=("public", "player", "director"),
    tag="play",
    response=schemas.ANNOUNCEMENTS_RESPONSE,
    errors=(401, 403, 404),
)
def announcements(game_id: str) -> Response:
    with read_game(game_id) as (session, row, game):
        require(identify(session), game_id, PUBLIC)
        public = game.public_view()
        return jsonify(
            {
                "game_id": row.id,
                "ruleset": row.ruleset,
                "commitment": row.commitment,
                "announcements": _announcements(game),
                "ended": public.ended,
                "winner": public.winner,
                "seed": public.seed,
                "secret": public.secret,
                "verification": public.verification,
            }
        )


def _player_part(session: Any, row: GameRow, game: Game, character: str) -> dict[str, Any]:
    view = game.character_view(character)
    cards = (
        session.query(Card)
        .filter(Card.game_id == row.id, Card.character == character)
        .order_by(Card.id)
    )
    return {
        "character": view.character,
        "player": view.player,
        "role": view.role,
        "role_name": view.role_name,
        "faction": view.faction,
        "faction_name": view.faction_name,
        "alive": view.alive,
        "messages": [{"day": t.day, "kind": t.kind, "text": t.text} for t in view.told],
        "events": events_to_dicts(list(view.events)),
        "cards": [card_json(c) for c in cards],
    }


@endpoint(
    bp,
    "GET",
    "/api/games/<game_id>/view",
    summary="The caller's view: public (no token), own character (player token), or director",
    auth=("public", "player", "director"),
    tag="play",
    response=schemas.VIEW_RESPONSE,
    errors=(401, 403, 404),
    description="A player's view holds only what the rules grant that character: own role and "
    "faction, private feedback addressed to it, its own actions and cards, and the public feed. "
    "It never holds another character's role, a night action of another, or a private result.",
)
def view(game_id: str) -> Response:
    with read_game(game_id) as (session, row, game):
        caller = require(identify(session), game_id, PUBLIC)
        public = game.public_view()
        state = game.state
        out: dict[str, Any] = {
            "kind": caller.kind,
            "game_id": row.id,
            "ruleset": row.ruleset,
            "day": state.day,
            "phase": state.phase,
            "characters": list(public.characters),
            "living": public.living(),
            "sheriff": public.sheriff,
            "announcements": _announcements(game),
            "ended": public.ended,
            "winner": public.winner,
            "secret": public.secret,
            "verification": public.verification,
        }
        if caller.kind == PLAYER and caller.character is not None:
            out["me"] = _player_part(session, row, game, caller.character)
        elif caller.kind == DIRECTOR:
            director = game.director_view()
            out["director"] = {
                "seed": director.seed,
                "secret": director.secret,
                "roles": dict(director.roles),
                "alive": state.living(),
                "legal_actions": [_action_json(a) for a in game.legal_actions()],
                "director_actions": [_action_json(a) for a in game.director_actions()],
                "events": director.event_dicts(),
                "outcome": game.outcome().to_dict(),
            }
        return jsonify(out)


def _action_json(action: Any) -> dict[str, Any]:
    import dataclasses

    data = {f.name: getattr(action, f.name) for f in dataclasses.fields(action)}
    data = {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in data.items()}
    return {"type": type(action).__name__, **data}
