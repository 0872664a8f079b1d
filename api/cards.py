"""Card ledgers: ``GET /api/games/{id}/cards``; ``POST /api/games/{id}/cards`` gives a card."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify
from sqlalchemy import select

from api import cardrules, schemas
from api.auth import DIRECTOR, identify, require
from api.card_store import ledger_for
from api.database import db
from api.errors import BadRequest
from api.locking import characters_of, locked_game
from api.openapi import endpoint
from api.payloads import card_json
from api.rulings import give_card as referee_give_card
from api.store import get_game
from game_rules.penalties import CardColour
from models.cards import Card

bp = Blueprint("cards", __name__)


def ledger_json(ruleset: str, character: str, cards: list[Card]) -> dict[str, Any]:
    """One character's ledger with escalations and the active (unmerged) counts."""
    ledger = ledger_for(ruleset, character, cards)
    return {
        "character": character,
        "cards": [card_json(c) for c in cards],
        "active": {
            colour.value: ledger.count(colour)
            for colour in (CardColour.BLUE, CardColour.YELLOW, CardColour.RED)
        },
        "summary": ledger.describe(),
        "escalations": [card_json(c) for c in cards if c.source == "escalation"],
        "red": ledger.is_red,
    }


@endpoint(
    bp,
    "GET",
    "/api/games/<game_id>/cards",
    summary="Every character's card ledger, escalations shown",
    auth=("director",),
    tag="cards",
    response=schemas.CARDS_RESPONSE,
    errors=(401, 403, 404),
)
def list_cards(game_id: str) -> Response:
    with db().read() as session:
        caller = identify(session)
        row = get_game(session, game_id)
        require(caller, game_id, DIRECTOR)
        cards = list(session.scalars(select(Card).where(Card.game_id == game_id).order_by(Card.id)))
        by_character: dict[str, list[Card]] = {c: [] for c in characters_of(row)}
        for card in cards:
            by_character.setdefault(card.character, []).append(card)
        return jsonify(
            {"players": [ledger_json(row.ruleset, c, cs) for c, cs in by_character.items()]}
        )


@endpoint(
    bp,
    "POST",
    "/api/games/<game_id>/cards",
    summary="Give a card directly (e.g. 串号/作弊 → red), recorded as a decided suggestion",
    auth=("director",),
    tag="cards",
    request_schema=schemas.MANUAL_CARD,
    response=schemas.DECISION_RESPONSE,
    status=201,
    errors=(400, 401, 403, 404, 409, 413),
)
def give_card(game_id: str, body: dict[str, Any]) -> tuple[Response, int]:
    with db().read() as session:
        caller = identify(session)
        row = get_game(session, game_id)
        require(caller, game_id, DIRECTOR)
        if body["character"] not in characters_of(row):
            raise BadRequest(f"没有名为「{body['character']}」的角色", path="$.character")
        if not cardrules.known_category(body["category"]):
            raise BadRequest(f"未知的违规类别：{body['category']!r}", path="$.category")
    actor = body.get("director") or DIRECTOR
    with locked_game(game_id) as (_session, locked):
        result = referee_give_card(
            locked,
            character=body["character"],
            category=body["category"],
            colour=body["colour"],
            reason=body["reason"],
            day=body.get("day"),
            faction_lost=bool(body.get("faction_lost", False)),
            actor=actor,
        )
    return jsonify(result), 201
