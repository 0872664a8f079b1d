"""The console's registry pages: a player search (with this game's seats and the 场外助理 form)
and a player's page (their record across games).

The logged-in director sees in full the record of every player who held a character of their
game, as the API's director token does (:mod:`api.registry`); any other player only as the
public does (what the forum publishes).
"""

from __future__ import annotations

from typing import Any

from flask import current_app, flash, redirect, render_template, request, url_for
from sqlalchemy import select
from werkzeug.wrappers import Response as BaseResponse

from api import player_record as rec
from api import registry
from api.console import service
from api.console.service import ConsoleError
from api.console.sessions import current_director, director_required
from api.console.views import console_bp
from api.database import db
from api.errors import ApiError
from api.registry_rules import DEFAULT_PUBLISHED, Published
from api.store import get_game
from models.registry import ForumPlayer, PlayerName

MAX_QUERY = 64


def _game_id() -> str:
    director = current_director()
    assert director is not None  # guaranteed by @director_required
    return director.game_id


def _published() -> frozenset[Published]:
    return frozenset(current_app.config.get("REGISTRY_PUBLIC", DEFAULT_PUBLISHED))


def _render(template: str, **context: Any) -> str:
    with service.reading(_game_id()) as (session, row, game):
        header = service.summary(session, row, game)
    return render_template(template, game=header, **context)


@console_bp.get("/registry")
@director_required
def registry_search() -> str:
    """玩家档案: this game's seats (games played, red cards, bans, 场外助理), and a search."""
    game_id = _game_id()
    query = request.args.get("name", "").strip()[:MAX_QUERY]
    found: list[dict[str, Any]] = []
    with db().read() as session:
        game = get_game(session, game_id)
        seats = registry.seat_rows(session, game)
        assistants = registry.assistant_rows(session, game_id)
        if query:
            ids = session.scalars(
                select(PlayerName.player_id)
                .where(PlayerName.name.contains(query, autoescape=True))
                .distinct()
                .order_by(PlayerName.player_id)
                .limit(200)
            )
            for player_id in ids:
                full = rec.seated_in(session, player_id, game_id)
                if not full and not rec.has_published(session, player_id, _published()):
                    continue
                player = session.get(ForumPlayer, player_id)
                assert player is not None
                found.append(rec.record(session, player, full=full, published=_published()))
                if len(found) >= 50:
                    break
    return _render(
        "console/registry.html",
        seats=seats,
        assistants=assistants,
        query=query,
        found=found,
    )


@console_bp.get("/registry/players/<int:player_id>")
@director_required
def registry_player(player_id: int) -> str:
    """One player's record across games."""
    with db().read() as session:
        player = session.get(ForumPlayer, player_id)
        if player is None:
            raise ConsoleError(f"没有这名玩家：{player_id}")
        full = rec.seated_in(session, player_id, _game_id())
        record = rec.record(session, player, full=full, published=_published())
    return _render("console/registry_player.html", record=record)


@console_bp.post("/registry/assistants")
@director_required
def registry_assistant() -> BaseResponse:
    """场外助理: register an assistant for the player of a character (the ruleset's limit)."""
    character = request.form.get("character", "").strip()
    name = request.form.get("assistant", "").strip()
    if not character or not name:
        flash("请选择角色并填写场外助理的名字", "error")
        return redirect(url_for("console.registry_search", _anchor="assistant"))
    if len(name) > MAX_QUERY:
        flash(f"场外助理的名字不能超过{MAX_QUERY}个字符", "error")
        return redirect(url_for("console.registry_search", _anchor="assistant"))
    director = current_director()
    assert director is not None
    try:
        with db().write() as session:
            done = registry.add_assistant(
                session, director.game_id, character=character, name=name, actor=director.actor
            )
    except ApiError as exc:
        flash(service.api_message(exc), "error")
        return redirect(url_for("console.registry_search", _anchor="assistant"))
    flash(
        f"已登记场外助理：{done['assistant']}（{done['player']}已参加"
        f"{done['eligibility']['games_played']}场版杀）",
        "ok",
    )
    return redirect(url_for("console.registry_search", _anchor="assistant"))
