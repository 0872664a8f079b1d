"""The console's adapter over the referee service's own Python layer (no HTTP inside the app).

Reads open a read transaction and rebuild the game at its committed version
(:func:`api.locking.read_game`); writes run in the service's locked write transaction
(:func:`api.locking.locked_game`) and call the same functions the JSON endpoints call
(:func:`api.rulings.decide`, :func:`api.closing.close_day`, ``LockedGame.apply``...), so the
console and the API can never disagree about a ruling. Creating a game reuses the
``POST /api/games`` view itself with a validated body, because that is where S1 keeps it.

Every function returns plain dicts / dataclasses for the templates; nothing here renders HTML
except the highlighted post body (escaped segments, see :mod:`api.console.highlight`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flask import current_app, has_app_context
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from api import cardrules, schemas
from api.auth import DIRECTOR, hash_token
from api.card_store import ledger_for, revocations_of
from api.console.labels import (
    colour_label,
    label,
    labels,
    phase_label,
)
from api.database import db
from api.errors import ApiError, NotFound
from api.gameplay import Game, action_from_json
from api.locking import locked_game, read_game
from api.schema import SchemaError
from api.store import audit
from game_rules.enums import Category
from game_rules.params import load_params
from game_rules.penalties import CardColour
from models.cards import Card, Suggestion
from models.game import Game as GameRow
from models.game import Token

#: the new-game form's rulesets: the seeds' three and their variant files (game_rules/rulesets)
RULESETS = ("m72", "m08", "m08_12", "wa004", "wa004_consent")
#: forum times are shown in the forum's zone (the seeds' 关门 times are Beijing time)
DEFAULT_TIMEZONE = "Asia/Shanghai"
DECIDABLE = ("blue", "yellow", "red", "green")
#: categories offered for a card given directly: the most common direct reds first, then the rest
#: in the core's order; 潜水/未投票 are the close's own yellows and a water post is no offence
_MANUAL_FIRST = (Category.MULTI_ACCOUNT, Category.CHEATING)
_NOT_BY_HAND = frozenset({Category.LURKING, Category.NO_VOTE, Category.WATER})
MANUAL_CATEGORY_ORDER: tuple[str, ...] = tuple(
    dict.fromkeys(c.value for c in (*_MANUAL_FIRST, *Category) if c not in _NOT_BY_HAND)
)


class ConsoleError(Exception):
    """A request the console refuses; ``message`` is shown to the director (Chinese)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def game_zone_name() -> str:
    """The game's time zone (``CONSOLE_TIMEZONE``, default Asia/Shanghai: the seeds' 关门 times
    are Beijing time); every time on every console page is shown in it."""
    if has_app_context():
        return str(current_app.config.get("CONSOLE_TIMEZONE", DEFAULT_TIMEZONE))
    return DEFAULT_TIMEZONE


def game_zone() -> tzinfo:
    """:func:`game_zone_name` as a zone (UTC when the name is not a zone)."""
    try:
        return ZoneInfo(game_zone_name())
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def local_time(moment: datetime, fmt: str = "%m-%d %H:%M") -> str:
    """``moment`` in the game's zone (:func:`game_zone`), with the date by default.

    >>> from datetime import timezone
    >>> local_time(datetime(2026, 11, 29, 20, 0, tzinfo=timezone.utc))
    '11-30 04:00'
    """
    zone = game_zone()
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(zone).strftime(fmt)


def api_message(exc: ApiError) -> str:
    """The service's error as one line for a flash message: the seed's words the error carries
    (its ``rule`` key is for programs, never shown on a page)."""
    return exc.message


# ---------------------------------------------------------------------------------------------
# Login


def game_for_director_token(token: str) -> str:
    """The game a director token opens; :class:`ConsoleError` for unknown or player tokens."""
    token = token.strip()
    if not token:
        raise ConsoleError("请输入导演令牌")
    with db().read() as session:
        row = session.execute(
            select(Token.game_id, Token.kind, Token.revoked_at).where(
                Token.token_hash == hash_token(token)
            )
        ).first()
    if row is None:
        raise ConsoleError("令牌无效：没有找到这个导演令牌")
    if row.revoked_at is not None:
        raise ConsoleError("令牌已被吊销：请向服务管理员索取新的导演令牌")
    if row.kind != DIRECTOR:
        raise ConsoleError("这是玩家令牌；控制台只接受本场的导演令牌")
    return str(row.game_id)


def token_still_valid(game_id: str, token_hash: str) -> bool:
    """Whether ``token_hash`` is still a director token of ``game_id``."""
    with db().read() as session:
        found = session.execute(
            select(Token.id).where(
                Token.token_hash == token_hash,
                Token.game_id == game_id,
                Token.kind == DIRECTOR,
                Token.revoked_at.is_(None),
            )
        ).first()
    return found is not None


# ---------------------------------------------------------------------------------------------
# New game


@dataclass(frozen=True)
class CreatedGame:
    """A new game as the director sees it once: tokens, the deal and the commitment."""

    id: str
    ruleset: str
    commitment: str
    director_token: str
    player_tokens: Mapping[str, str]
    deal: list[dict[str, str]]
    seed: str
    announcements: list[str]


def ruleset_choices() -> list[dict[str, Any]]:
    """The rulesets the new-game form offers, with their player counts."""
    return [
        {"id": r, "label": label("rulesets", r), "players": load_params(r).player_count}
        for r in RULESETS
    ]


def create_game(body: dict[str, Any], admin_token: str | None = None) -> CreatedGame:
    """Create a game through the service's own ``POST /api/games`` view; errors are messages.

    ``admin_token`` is what the director typed when the service has an admin token."""
    from api import games

    try:
        valid = schemas.CREATE_GAME.validate(body)
    except SchemaError as exc:
        raise ConsoleError(f"输入有误：{exc.message}（{exc.path}）") from exc
    view = getattr(games.create, "__wrapped__", None)
    if view is None:  # pragma: no cover - the service's view lost its undecorated form
        raise ConsoleError("服务缺少建局函数")
    try:
        returned = view(body=valid, admin_token=admin_token)
    except ApiError as exc:
        raise ConsoleError(api_message(exc)) from exc
    response = returned[0] if isinstance(returned, tuple) else returned
    data: dict[str, Any] = response.get_json()
    with read_game(data["id"]) as (_session, row, game):
        deal = deal_rows(row, game)
        seed = row.seed
    return CreatedGame(
        id=data["id"],
        ruleset=data["ruleset"],
        commitment=data["commitment"],
        director_token=data["director_token"],
        player_tokens=data["player_tokens"],
        deal=deal,
        seed=seed,
        announcements=list(data.get("announcements", [])),
    )


def director_role_name(game: Game, role: str) -> str:
    """A role's Chinese name as the director needs it (大乌鸦/小乌鸦 told apart)."""
    if role in labels().get("director_roles", {}):
        return label("director_roles", role)
    spec = game.params.roles.get(role)
    return spec.name if spec else role


def deal_rows(row: GameRow, game: Game) -> list[dict[str, str]]:
    """The deal: every character with player, role and faction (director only)."""
    state = game.state
    params = game.params
    out = []
    for character in game.characters:
        role = state.roles.get(character, "")
        faction = state.factions.get(character, "")
        out.append(
            {
                "character": character,
                "player": state.players.get(character, character),
                "role": role,
                "role_name": director_role_name(game, role),
                "faction": faction,
                "faction_name": params.factions.get(faction, faction),
            }
        )
    return out


# ---------------------------------------------------------------------------------------------
# Reading one game


@dataclass(frozen=True)
class GameSummary:
    """The header every console page shows."""

    id: str
    ruleset: str
    ruleset_label: str
    day: int
    phase: str
    phase_label: str
    living: int
    total: int
    sheriff: str | None
    commitment: str
    ended: bool
    winner: str | None
    pending: int


@contextmanager
def reading(game_id: str) -> Iterator[tuple[Session, GameRow, Game]]:
    """A read transaction with the rebuilt game; an unknown game becomes :class:`ConsoleError`."""
    try:
        with read_game(game_id) as found:
            yield found
    except NotFound as exc:
        raise ConsoleError("这局游戏不存在") from exc


def summary(session: Session, row: GameRow, game: Game) -> GameSummary:
    """Header facts for ``game``."""
    state = game.state
    count = int(
        session.scalar(
            select(func.count())
            .select_from(Suggestion)
            .where(Suggestion.game_id == row.id, Suggestion.status == "pending")
        )
        or 0
    )
    winner = state.winner
    return GameSummary(
        id=row.id,
        ruleset=row.ruleset,
        ruleset_label=label("rulesets", row.ruleset),
        day=state.day,
        phase=state.phase,
        phase_label=phase_label(state.phase),
        living=len(state.living()),
        total=len(game.characters),
        sheriff=state.sheriff,
        commitment=row.commitment,
        ended=state.ended,
        winner=game.params.factions.get(winner, winner) if winner else None,
        pending=count,
    )


def _card_chip(c: Card, revoked: Collection[int] = ()) -> dict[str, Any]:
    return {
        "revoked": c.id in revoked,
        "id": c.id,
        "colour": c.colour,
        "colour_name": colour_label(c.colour),
        "source": c.source,
        "source_name": label("card_sources", c.source),
        "category": c.category,
        "category_name": cardrules.category_name(c.category) if c.category else "",
        "reason": c.reason,
        "day": c.day,
        "escalated_from": list(c.escalated_from),
        "issued_by": c.issued_by,
    }


def cards_by_character(session: Session, row: GameRow) -> dict[str, list[Card]]:
    """Every character's card rows in issue order (revoked ones too: see :func:`revoked_ids`)."""
    out: dict[str, list[Card]] = {p["character"]: [] for p in row.players}
    for card in session.scalars(select(Card).where(Card.game_id == row.id).order_by(Card.id)):
        out.setdefault(card.character, []).append(card)
    return out


def revoked_ids(session: Session, row: GameRow) -> frozenset[int]:
    """Ids of the game's revoked cards (shown struck through; they no longer count)."""
    return frozenset(revocations_of(session, row.id))


def ledger_summary(
    ruleset: str, character: str, cards: Sequence[Card], revoked: Collection[int] = ()
) -> dict[str, Any]:
    """A ledger for display: active counts, the summary sentence, cards and escalations; the
    ledger counts the cards not ``revoked``, and revoked ones are listed, marked."""
    live = [c for c in cards if c.id not in revoked]
    ledger = ledger_for(ruleset, character, live)
    return {
        "summary": ledger.describe(),
        "red": ledger.is_red,
        "active": {c: ledger.count(CardColour.parse(c)) for c in ("blue", "yellow", "red")},
        "cards": [_card_chip(c, revoked) for c in cards],
        "escalations": [_card_chip(c) for c in live if c.source == "escalation"],
        "merged": sorted({i for c in live for i in c.escalated_from}),
    }


# ---------------------------------------------------------------------------------------------
# Cards given (the review queue's rulings; the players page's direct cards: verdicts.py)


@dataclass(frozen=True)
class DecisionResult:
    """What a decision did, for the flash message."""

    colour: str
    cards: list[str] = field(default_factory=list)
    announcements: list[str] = field(default_factory=list)
    ended: bool = False

    @classmethod
    def of(cls, colour: str, result: Mapping[str, Any]) -> DecisionResult:
        """From a ruling's response (``api.rulings.decide``): the cards it gave, the ejection's
        announcements, whether the game ended."""
        ejected = result.get("ejected") or {}
        return cls(
            colour=colour,
            cards=[f"{c['character']}：{colour_label(c['colour'])}" for c in result["cards"]],
            announcements=list(ejected.get("announcements", [])),
            ended=bool(result["outcome"].get("ended")),
        )


# ---------------------------------------------------------------------------------------------
# Shared by the pages (the day and night pages are api/console/day.py and night.py)


def _fraction_text(value: Any) -> str:
    text = str(value)
    if "/" in text:
        num, den = text.split("/")
        return f"{int(num) / int(den):g}"
    return text


def manual_categories(ruleset: str) -> list[dict[str, str]]:
    """Categories a director may card directly, with this ruleset's article."""
    out = []
    for key in MANUAL_CATEGORY_ORDER:
        if not cardrules.known_category(key):
            continue
        article = cardrules.category_article(ruleset, key)
        out.append(
            {
                "key": key,
                "name": cardrules.category_name(key),
                "cite": article["cite"] if article else "",
            }
        )
    return out


def director_action(
    game_id: str, body: dict[str, Any] | Sequence[dict[str, Any]], *, actor_label: str
) -> tuple[Any, ...]:
    """Apply one ``POST /api/games/{id}/actions`` body (or several, in one transaction) the way
    that endpoint does: validated by the same schema, turned into the same game-core action,
    applied under the game's lock and audited; a refusal is a :class:`ConsoleError` and the
    transaction is rolled back (none of several is kept)."""
    bodies = [body] if isinstance(body, Mapping) else list(body)
    events: list[Any] = []
    try:
        actions = [action_from_json(schemas.ACTION.validate(b)) for b in bodies]
        with locked_game(game_id) as (session, locked):
            for b, action in zip(bodies, actions, strict=True):
                events.extend(locked.apply(action))
                audit(session, game_id, actor_label, "action", {"action": b, "via": "console"})
    except SchemaError as exc:
        raise ConsoleError(f"输入有误：{exc.message}") from exc
    except ApiError as exc:
        raise ConsoleError(api_message(exc)) from exc
    return tuple(events)


def ensure_int(raw: str | None, what: str) -> int:
    """A positive id from a form or URL, or :class:`ConsoleError`."""
    if raw is None or not raw.isdigit() or len(raw) > 12:
        raise ConsoleError(f"{what}无效")
    return int(raw)


__all__ = [
    "ConsoleError",
    "CreatedGame",
    "DecisionResult",
    "GameSummary",
    "create_game",
    "game_for_director_token",
    "reading",
    "summary",
    "token_still_valid",
]
