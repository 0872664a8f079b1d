"""The forum's registry over HTTP: player search and records, bans (禁赛), a game's seats and
its 场外助理 registrations.

Who sees what: the admin (BANSHA_ADMIN_TOKEN) every record in full; a game's director the full
record of every player who held a character of that game; a player token its own player's full
record; everyone else what the forum publishes (``REGISTRY_PUBLIC``, by default red cards and
bans only). Bans are the admin's alone.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, current_app, jsonify
from sqlalchemy import select
from sqlalchemy.orm import Session

from api import cardrules
from api import player_record as rec
from api.actors import admin_principal, authenticated
from api.auth import ADMIN, DIRECTOR, PLAYER, PUBLIC, bearer_token, identify, require
from api.database import db
from api.errors import BadRequest, Conflict, Forbidden, NotFound, Unauthorized
from api.openapi import endpoint, read_query
from api.registry_rules import DEFAULT_PUBLISHED, Published
from api.registry_schemas import (
    ASSISTANT,
    BAN,
    NEW_ASSISTANT,
    NEW_BAN,
    NEW_NAME,
    PLAYER_HEAD,
    QUERY_NAME,
    RECORD,
    SEARCH,
    SEATS,
)
from api.seats import find_player, player_for, registry_name, seat_players
from api.store import audit, get_game
from models.cards import Card
from models.game import Game as GameRow
from models.game import Token
from models.registry import Assistant, Ban, BanOverride, ForumPlayer, PlayerName, Seat
from models.types import utcnow

bp = Blueprint("registry", __name__)


@dataclass(frozen=True)
class Viewer:
    """Who is asking: ``admin``, a game's ``director``, a ``player`` (of ``player_id``), or the
    ``public``."""

    kind: str
    game_id: str | None = None
    player_id: int | None = None


def _is_admin() -> bool:
    expected = current_app.config.get("ADMIN_TOKEN")
    given = bearer_token()
    if not expected or given is None:
        return False
    if not secrets.compare_digest(given.encode(), str(expected).encode()):
        return False
    authenticated(admin_principal(given))
    return True


def viewer(session: Session) -> Viewer:
    """The caller (401 for an unknown or revoked token)."""
    if _is_admin():
        return Viewer(ADMIN)
    caller = identify(session)
    if caller.kind == PLAYER and caller.game_id and caller.character:
        issued = session.scalar(
            select(Token.created_at).where(Token.token_hash == caller.token_hash)
        )
        seat = rec.seat_of_token(session, caller.game_id, caller.character, issued)
        return Viewer(PLAYER, caller.game_id, None if seat is None else seat.player_id)
    return Viewer(caller.kind, caller.game_id)


def published() -> frozenset[Published]:
    """What the forum publishes of a record."""
    value = current_app.config.get("REGISTRY_PUBLIC", DEFAULT_PUBLISHED)
    return frozenset(value)


def sees_in_full(session: Session, who: Viewer, player_id: int) -> bool:
    """Whether ``who`` sees the player's whole record."""
    if who.kind == ADMIN:
        return True
    if who.kind == DIRECTOR and who.game_id is not None:
        return rec.seated_in(session, player_id, who.game_id)
    return who.kind == PLAYER and who.player_id == player_id


def _require_admin() -> None:
    """401/403 unless the caller holds the admin token (checked after the token is identified)."""
    with db().read() as session:
        who = viewer(session)
    if who.kind == ADMIN:
        return
    if not current_app.config.get("ADMIN_TOKEN"):
        raise Forbidden("服务未配置管理员令牌（BANSHA_ADMIN_TOKEN），无人可以禁赛")
    if who.kind == PUBLIC:
        raise Unauthorized("此接口需要管理员令牌")
    raise Forbidden("此接口需要管理员令牌")


def _player(session: Session, player_id: int) -> ForumPlayer:
    player = session.get(ForumPlayer, player_id)
    if player is None:
        raise NotFound(f"没有这名玩家：{player_id}")
    return player


# -- players -------------------------------------------------------------------------------------


@endpoint(
    bp,
    "GET",
    "/api/registry/players",
    summary="Search the forum's players by name or alias",
    auth=("public", "player", "director", "admin"),
    tag="registry",
    response=SEARCH,
    errors=(400, 401),
    query={"name": QUERY_NAME},
    description="Each match comes as the record the caller may see (see "
    "`GET /api/registry/players/{player_id}`). The public finds only players with something "
    "published; at most 50 matches.",
)
def search_players() -> Response:
    with db().read() as session:
        who = viewer(session)
        needle = read_query("name", QUERY_NAME, "")
        ids = session.scalars(
            select(PlayerName.player_id)
            .where(PlayerName.name.contains(needle, autoescape=True))
            .distinct()
            .order_by(PlayerName.player_id)
        )
        found = []
        for player_id in ids:
            full = sees_in_full(session, who, player_id)
            if not full and not rec.has_published(session, player_id, published()):
                continue
            player = _player(session, player_id)
            found.append(rec.record(session, player, full=full, published=published()))
            if len(found) >= 50:
                break
        return jsonify({"players": found})


@endpoint(
    bp,
    "GET",
    "/api/registry/players/<player_id>",
    summary="A player's record: games, roles and results, cards with rulings, bans",
    auth=("public", "player", "director", "admin"),
    tag="registry",
    response=RECORD,
    errors=(401, 404),
    description="In full for the admin, for the director of any game the player held a "
    "character in, and for the player's own token; for anyone else only what the forum "
    "publishes (REGISTRY_PUBLIC; by default standing red cards and bans). Cards are the "
    "player's own: a card given before a 替补 stays with the player who earned it.",
)
def player(player_id: str) -> Response:
    with db().read() as session:
        who = viewer(session)
        # a player id is a number; anything else names no player (checked after the token)
        number = int(player_id) if player_id.isascii() and player_id.isdigit() else 0
        found = _player(session, number) if 0 < number < 2**31 else None
        if found is None:
            raise NotFound(f"没有这名玩家：{player_id}")
        full = sees_in_full(session, who, found.id)
        return jsonify(rec.record(session, found, full=full, published=published()))


@endpoint(
    bp,
    "POST",
    "/api/registry/players/<player_id>/names",
    summary="Add an alias: another forum name of the same player",
    auth=("admin",),
    tag="registry",
    request_schema=NEW_NAME,
    response=PLAYER_HEAD,
    status=201,
    errors=(400, 401, 403, 404, 409),
    description="From then on a game that names the player by the alias seats the same player. "
    "A name that already belongs to another player is a 409 `name_taken` (two records are not "
    "merged); one that is already this player's changes nothing.",
)
def add_name(player_id: str, body: dict[str, Any]) -> tuple[Response, int]:
    _require_admin()
    with db().write() as session:
        number = int(player_id) if player_id.isascii() and player_id.isdigit() else 0
        if not 0 < number < 2**31:
            raise NotFound(f"没有这名玩家：{player_id}")
        target = _player(session, number)
        name = registry_name(body["name"])
        if not name:
            raise BadRequest("名字不能为空", path="$.name")
        owner = find_player(session, name)
        if owner is not None and owner.id != target.id:
            raise Conflict(
                f"「{name}」已是另一名玩家（#{owner.id} {owner.name}）的名字，不能作为别名",
                rule="name_taken",
            )
        if owner is None:
            session.add(PlayerName(name=name, player_id=target.id, created_at=utcnow()))
            session.flush()
        out = {"id": target.id, "name": target.name, "names": rec.names_of(session, target.id)}
    return jsonify(out), 201


# -- bans ----------------------------------------------------------------------------------------


@endpoint(
    bp,
    "POST",
    "/api/registry/bans",
    summary="Ban (禁赛) a player after a game, citing the red card",
    auth=("admin",),
    tag="registry",
    request_schema=NEW_BAN,
    response=BAN,
    status=201,
    errors=(400, 401, 403, 404, 409),
    description="「版杀结束后，受到红牌处罚的玩家可能会被禁赛」(M72). Give `until` (a period) or "
    "`games` (the forum's next N games), not both. The card must be a standing red card the "
    "player earned, in a game that has ended. Audited in that game's trail.",
)
def create_ban(body: dict[str, Any]) -> tuple[Response, int]:
    _require_admin()
    if ("until" in body) == ("games" in body):
        raise BadRequest("禁赛须写明期限：until（禁赛至某时）或 games（禁赛场数），二者取一")
    until = body.get("until")
    if until is not None and until <= utcnow():
        raise BadRequest("禁赛截止时间须在将来", path="$.until")
    by = body.get("banned_by", ADMIN)
    with db().write() as session:
        target = _player(session, body["player_id"])
        card = session.get(Card, body["card_id"])
        if card is None:
            raise NotFound(f"没有这张牌：{body['card_id']}")
        game = get_game(session, card.game_id)
        if card.colour != cardrules.RED:
            raise Conflict("禁赛须援引红牌：这张牌不是红牌", rule="ban_needs_red_card")
        if card.id not in {c.id for c, _g in rec.earned_cards(session, target.id)}:
            raise Conflict(
                f"这张红牌不是{target.name}吃的（替补前后的牌各归其人）", rule="ban_card_not_player"
            )
        if not rec.standing(session, card):
            raise Conflict(
                "这张红牌已撤销或申诉后被推翻，不能据此禁赛", rule="ban_card_not_standing"
            )
        if not game.finished:
            raise Conflict(
                "版杀结束后，受到红牌处罚的玩家可能会被禁赛：这场游戏尚未结束",
                rule="ban_after_game",
            )
        ban = Ban(
            player_id=target.id,
            card_id=card.id,
            reason=body["reason"],
            until=until,
            games=body.get("games"),
            banned_by=by,
            created_at=utcnow(),
        )
        session.add(ban)
        session.flush()
        audit(
            session,
            game.id,
            by,
            "ban",
            {
                "ban": ban.id,
                "player_id": target.id,
                "player": target.name,
                "card_id": card.id,
                "term": rec.ban_term(ban),
                "reason": ban.reason,
            },
        )
        out = rec.ban_json(session, ban)
    return jsonify(out), 201


def admit_players(
    session: Session,
    game_id: str,
    players: list[dict[str, Any]],
    overrides: list[dict[str, Any]],
    *,
    admin: bool,
) -> None:
    """Seat a new game's players, refusing a banned one unless the admin overrides the ban on
    the record (``overrides``: ``{"ban": id, "reason": ...}``, audited in the new game).

    Runs in the game's creating transaction: a refusal rolls the whole game back.
    """
    if overrides and not admin:
        raise Forbidden("放行禁赛中的玩家需要管理员令牌（BANSHA_ADMIN_TOKEN）")
    wanted = {int(o["ban"]): str(o["reason"]) for o in overrides}
    used: dict[int, Ban] = {}
    for entry in players:
        name = str(entry.get("player") or entry["character"])
        known = find_player(session, name)
        if known is None:
            continue
        for ban in rec.bans_in_force(session, known.id, excluding=game_id):
            if ban.id not in wanted:
                card = session.get(Card, ban.card_id)
                where = "" if card is None else f"（游戏 {card.game_id} 的红牌：{card.reason}）"
                raise Conflict(
                    f"玩家「{name}」正在禁赛中，不能加入新游戏：禁赛#{ban.id}，"
                    f"{rec.ban_term(ban)}，理由：{ban.reason}{where}。"
                    "管理员可在 ban_overrides 中写明理由后放行",
                    rule="player_banned",
                    path=f"$.players[{players.index(entry)}]",
                )
            used[ban.id] = ban
    unused = sorted(set(wanted) - set(used))
    if unused:
        raise BadRequest(
            f"禁赛#{unused[0]}不是本场某位玩家正在执行的禁赛，无需放行", path="$.ban_overrides"
        )
    seat_players(session, game_id, players)
    session.flush()
    for ban_id, ban in sorted(used.items()):
        session.add(
            BanOverride(
                ban_id=ban_id,
                game_id=game_id,
                reason=wanted[ban_id],
                overridden_by=ADMIN,
                created_at=utcnow(),
            )
        )
        audit(
            session,
            game_id,
            ADMIN,
            "ban_override",
            {"ban": ban_id, "player_id": ban.player_id, "reason": wanted[ban_id]},
        )


# -- a game's seats and 场外助理 -------------------------------------------------------------------


def _director_or_admin(session: Session, game_id: str) -> Viewer:
    who = viewer(session)
    get_game(session, game_id)
    if who.kind != ADMIN:
        caller = identify(session)
        require(caller, game_id, DIRECTOR)
    return who


@endpoint(
    bp,
    "GET",
    "/api/games/<game_id>/seats",
    summary="Who plays which character (替补 included), with each player's record in brief",
    auth=("director", "admin"),
    tag="registry",
    response=SEATS,
    errors=(401, 403, 404),
    description="For dealing roles and registering 场外助理: every seat with the player's games "
    "played before this one, standing red cards, bans in force, and 场外助理 eligibility under "
    "this game's ruleset.",
)
def seats(game_id: str) -> Response:
    with db().read() as session:
        _director_or_admin(session, game_id)
        game = get_game(session, game_id)
        return jsonify(
            {
                "game_id": game_id,
                "ruleset": game.ruleset,
                "seats": seat_rows(session, game),
                "assistants": assistant_rows(session, game_id),
            }
        )


def _assistant_json(session: Session, a: Assistant) -> dict[str, Any]:
    return {
        "id": str(a.id),
        "character": a.character,
        "player": _player(session, a.player_id).name,
        "assistant": _player(session, a.assistant_id).name,
        "games_played": str(a.games_played),
        "registered_by": a.registered_by,
        "created_at": a.created_at.isoformat(),
    }


@endpoint(
    bp,
    "POST",
    "/api/games/<game_id>/assistants",
    summary="Register a 场外助理 for the player of a character (eligibility checked)",
    auth=("director", "admin"),
    tag="registry",
    request_schema=NEW_ASSISTANT,
    response=ASSISTANT,
    status=201,
    errors=(400, 401, 403, 404, 409),
    description="The player who holds the character now is checked under the game's ruleset: "
    "M72 「版杀游戏场次累计三场或以下的玩家允许申请场外助理」「禁止已参加四场或以上版杀的玩家"
    "申请场外助理」 (games already played, this one not counted); M08 and 白色相簿 set no such "
    "limit. A refusal (409 `assistant_games_limit`) names the count.",
)
def register_assistant(game_id: str, body: dict[str, Any]) -> tuple[Response, int]:
    with db().write() as session:
        who = _director_or_admin(session, game_id)
        label = body.get("director", DIRECTOR if who.kind != ADMIN else ADMIN)
        out = add_assistant(
            session, game_id, character=body["character"], name=body["assistant"], actor=label
        )
    return jsonify(out), 201


def add_assistant(
    session: Session, game_id: str, *, character: str, name: str, actor: str
) -> dict[str, Any]:
    """Register ``name`` as 场外助理 of the player who holds ``character`` now, after checking the
    ruleset's limit on games played; audited. Raises the API's errors (the console shows them)."""
    game = get_game(session, game_id)
    seat = rec.current_holder(session, game_id, character)
    if seat is None:
        raise NotFound(f"本场没有名为「{character}」的角色")
    player = _player(session, seat.player_id)
    check = rec.eligibility(session, game, player.id)
    if not check["eligible"]:
        raise Conflict(
            f"{player.name}已参加{check['games_played']}场版杀，不能申请场外助理：{check['rule']}",
            rule="assistant_games_limit",
        )
    helper = player_for(session, name)
    if helper.id == player.id:
        raise BadRequest("玩家不能做自己的场外助理", path="$.assistant")
    if rec.seated_in(session, helper.id, game_id):
        raise Conflict(
            f"{helper.name}在本场游戏中扮演角色，不能做场外助理", rule="assistant_is_player"
        )
    taken = session.scalar(
        select(Assistant.id).where(
            Assistant.game_id == game_id,
            Assistant.character == character,
            Assistant.assistant_id == helper.id,
        )
    )
    if taken is not None:
        raise Conflict(f"{helper.name}已是{player.name}的场外助理", rule="assistant_exists")
    row = Assistant(
        game_id=game_id,
        character=character,
        player_id=player.id,
        assistant_id=helper.id,
        games_played=check["games_played"],
        registered_by=actor,
        created_at=utcnow(),
    )
    session.add(row)
    session.flush()
    audit(
        session,
        game_id,
        actor,
        "assistant",
        {
            "character": character,
            "player": player.name,
            "assistant": helper.name,
            "games_played": check["games_played"],
        },
    )
    return {
        "id": row.id,
        "game_id": game_id,
        "character": character,
        "player": player.name,
        "assistant": helper.name,
        "eligibility": check,
    }


def seat_rows(session: Session, game: GameRow) -> list[dict[str, Any]]:
    """Every seat of ``game`` with its player's record in brief (the seats endpoint's rows)."""
    rows = list(session.scalars(select(Seat).where(Seat.game_id == game.id).order_by(Seat.id)))
    current = {seat.character: seat.id for seat in rows}  # later seats replace earlier ones
    out = []
    for seat in rows:
        player = _player(session, seat.player_id)
        red = [
            c
            for c, _g in rec.earned_cards(session, player.id)
            if c.colour == cardrules.RED and rec.standing(session, c)
        ]
        out.append(
            {
                "character": seat.character,
                "player_id": player.id,
                "player": player.name,
                "substitute": seat.substitute,
                "since": seat.since.isoformat(),
                "current": current[seat.character] == seat.id,
                "games_played": rec.games_played(session, player.id, excluding=game.id),
                "red_cards": len(red),
                "bans_in_force": [
                    rec.ban_json(session, b) for b in rec.bans_in_force(session, player.id)
                ],
                "assistant": rec.eligibility(session, game, player.id),
            }
        )
    return out


def assistant_rows(session: Session, game_id: str) -> list[dict[str, Any]]:
    """The game's 场外助理 registrations."""
    rows = session.scalars(
        select(Assistant).where(Assistant.game_id == game_id).order_by(Assistant.id)
    )
    return [_assistant_json(session, a) for a in rows]


__all__ = ["add_assistant", "admit_players", "assistant_rows", "bp", "seat_rows"]
