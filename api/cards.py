"""Card ledgers: ``GET /api/games/{id}/cards``; ``POST /api/games/{id}/cards`` gives a card;
a card given in error is revoked (``…/cards/{cid}/revoke``) during the game, or appealed
(``…/cards/{cid}/appeal``) after it and ruled on (``…/appeals/{aid}/ruling``)."""

# Repeated on purpose: each endpoint is declared alike (@endpoint), the OpenAPI doc's source.

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Response, jsonify
from sqlalchemy import select

from api import cardrules, schemas
from api.appeals import appeal_card, appeals_of, rule_on_appeal
from api.auth import DIRECTOR, PLAYER, identify, identify_director_or_admin, require
from api.card_store import ledger_for, revocations_of
from api.database import db
from api.errors import BadRequest, number_in_path
from api.locking import characters_of, locked_game
from api.openapi import endpoint
from api.payloads import appeal_json, card_json
from api.revocation import revoke_card
from api.rulings import give_card as referee_give_card
from api.store import get_game, lock_game
from game_rules.penalties import CardColour
from models.cards import AppealRuling, Card, CardAppeal, CardRevocation, Ruling

bp = Blueprint("cards", __name__)


def ledger_json(
    ruleset: str,
    character: str,
    cards: list[Card],
    revoked: Mapping[int, CardRevocation],
    appeals: Mapping[int, tuple[CardAppeal, AppealRuling | None]],
) -> dict[str, Any]:
    """One character's ledger with escalations and the active (unmerged) counts; revoked cards
    are listed (marked) but no longer count."""
    ledger = ledger_for(ruleset, character, [c for c in cards if c.id not in revoked])

    def shown(c: Card) -> dict[str, Any]:
        appeal, ruling = appeals.get(c.id, (None, None))
        return card_json(c, revocation=revoked.get(c.id), appeal=appeal, ruling=ruling)

    return {
        "character": character,
        "cards": [shown(c) for c in cards],
        "active": {
            colour.value: ledger.count(colour)
            for colour in (CardColour.BLUE, CardColour.YELLOW, CardColour.RED)
        },
        "summary": ledger.describe(),
        "escalations": [shown(c) for c in cards if c.source == "escalation"],
        "red": ledger.is_red,
    }


@endpoint(
    bp,
    "GET",
    "/api/games/<game_id>/cards",
    summary="Every character's card ledger, escalations, revocations and appeals shown",
    auth=("director", "player"),
    tag="cards",
    response=schemas.CARDS_RESPONSE,
    errors=(401, 403, 404),
    description="A player token sees its own character's ledger only (the card ids it may "
    "appeal after the game).",
)
def list_cards(game_id: str) -> Response:
    with db().read() as session:
        caller = identify(session)
        row = get_game(session, game_id)
        require(caller, game_id, DIRECTOR, PLAYER)
        query = select(Card).where(Card.game_id == game_id).order_by(Card.id)
        names = characters_of(row)
        if caller.kind == PLAYER:
            query = query.where(Card.character == caller.character)
            names = [str(caller.character)]
        by_character: dict[str, list[Card]] = {c: [] for c in names}
        for card in session.scalars(query):
            by_character.setdefault(card.character, []).append(card)
        revoked = revocations_of(session, game_id)
        appeals = appeals_of(session, game_id)
        return jsonify(
            {
                "players": [
                    ledger_json(row.ruleset, c, cs, revoked, appeals)
                    for c, cs in by_character.items()
                ]
            }
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


def _number(raw: str, what: str) -> int:
    return number_in_path(raw, f"没有这{what}：{raw!r}")


@endpoint(
    bp,
    "POST",
    "/api/games/<game_id>/cards/<card_id>/revoke",
    summary="Revoke a card given in error (while the game runs); the ledger is recomputed",
    auth=("director",),
    tag="cards",
    request_schema=schemas.REVOKE_CARD,
    response=schemas.REVOCATION_RESPONSE,
    errors=(400, 401, 403, 404, 409, 413),
    description="The card stays on record, marked revoked; the character's ledger is replayed "
    "from the cards that still count, so an escalation that no longer holds is revoked with it "
    "(`undone`) and one the remaining cards make is stored (`cards`). If the character no longer "
    "has a red card, its ejection is withdrawn in the game (the public is told 「XX的红牌已撤销，"
    "XX回到游戏」), but only while that ejection is still the game's latest event: otherwise 409 "
    "`withdrawal_not_latest` and nothing changes (the card can be appealed after the game). "
    "409 `escalation_not_revocable`, `already_revoked`, `appeal_after_game` (the game has ended).",
)
def revoke(game_id: str, card_id: str, body: dict[str, Any]) -> Response:
    number = _number(card_id, "张牌")
    with db().read() as session:
        caller = identify(session)
        get_game(session, game_id)
        require(caller, game_id, DIRECTOR)
    actor = body.get("director") or DIRECTOR
    with locked_game(game_id, caller) as (_session, locked):
        result = revoke_card(locked, number, reason=body["reason"], actor=actor)
    return jsonify(result)


@endpoint(
    bp,
    "POST",
    "/api/games/<game_id>/cards/<card_id>/appeal",
    summary="Appeal a card of one's own character, after the game (player token)",
    auth=("player",),
    tag="cards",
    request_schema=schemas.APPEAL_REQUEST,
    response=schemas.APPEAL_RESPONSE,
    status=201,
    errors=(400, 401, 403, 404, 409, 413),
    description="The seeds: 「如需投诉法官的不当判罚，必须等该版杀结束后进行」. Before the game "
    "has ended: 409 `appeal_after_game`. One appeal per card (409 `already_appealed`); a revoked "
    "card or an escalation cannot be appealed (409).",
)
def appeal(game_id: str, card_id: str, body: dict[str, Any]) -> tuple[Response, int]:
    number = _number(card_id, "张牌")
    with db().write() as session:
        caller = identify(session)
        row = lock_game(session, game_id)
        require(caller, game_id, PLAYER)
        result = appeal_card(
            session,
            row,
            number,
            character=str(caller.character),
            text=body["text"],
            actor=caller.label,
        )
    return jsonify(result), 201


@endpoint(
    bp,
    "GET",
    "/api/games/<game_id>/appeals",
    summary="The game's appeals with their rulings (director or admin)",
    auth=("director", "admin"),
    tag="cards",
    response=schemas.APPEALS_RESPONSE,
    errors=(401, 403, 404),
)
def list_appeals(game_id: str) -> Response:
    with db().read() as session:
        get_game(session, game_id)
        identify_director_or_admin(session, game_id)
        found = appeals_of(session, game_id)
        return jsonify({"appeals": [appeal_json(a, r) for a, r in found.values()]})


@endpoint(
    bp,
    "POST",
    "/api/games/<game_id>/appeals/<appeal_id>/ruling",
    summary="Rule on an appeal (director or admin), once",
    auth=("director", "admin"),
    tag="cards",
    request_schema=schemas.RULING_REQUEST,
    response=schemas.APPEAL_RESPONSE,
    status=201,
    errors=(400, 401, 403, 404, 409, 413),
    description="`upheld`: the card stands; `overturned`: it was wrong. The ruling is recorded "
    "with the card (`appeal.ruling` in the ledger); the finished game is not replayed. A second "
    "ruling is 409 `already_ruled`.",
)
def rule(game_id: str, appeal_id: str, body: dict[str, Any]) -> tuple[Response, int]:
    number = _number(appeal_id, "条申诉")
    with db().write() as session:
        row = lock_game(session, game_id)
        actor = identify_director_or_admin(session, game_id)
        result = rule_on_appeal(
            session,
            row,
            number,
            ruling=Ruling(body["ruling"]),
            note=body.get("note", ""),
            actor=actor,
        )
    return jsonify(result), 201
