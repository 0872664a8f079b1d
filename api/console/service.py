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

from collections import defaultdict
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
from api.auth import DIRECTOR, PLAYER, hash_token
from api.card_store import ledger_for, revocations_of
from api.closing import activity_counts
from api.console.forms import MAX_NAME
from api.console.labels import (
    cause_label,
    colour_label,
    day_title,
    label,
    labels,
    phase_label,
    skill_label,
)
from api.database import db
from api.errors import ApiError, NotFound
from api.gameplay import Game, action_from_json
from api.locking import characters_of, locked_game, read_game
from api.rulings import give_card as referee_give_card
from api.schema import SchemaError
from api.store import audit, lock_game
from api.tokens import replace_token
from game_rules.enums import Category
from game_rules.events import Announced, Substituted
from game_rules.params import load_params
from game_rules.penalties import CardColour
from models.cards import Card, Suggestion
from models.game import Game as GameRow
from models.game import GameEvent, Token

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
# Cards given (the review queue's rulings and the players page's direct cards)


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


def give_card(
    game_id: str,
    *,
    character: str,
    colour: str,
    category: str,
    reason: str,
    faction_lost: bool,
    actor: str,
) -> DecisionResult:
    """A card given directly (串号/作弊 → red ...), recorded as a decided manual suggestion."""
    if colour not in ("blue", "yellow", "red"):
        raise ConsoleError("直接判罚只能选择蓝牌、黄牌或红牌")
    if not reason.strip():
        raise ConsoleError("请写明判罚理由")
    if not cardrules.known_category(category):
        raise ConsoleError(f"未知的违规类别：{category}")
    try:
        with locked_game(game_id) as (_session, locked):
            if character not in locked.game.characters:
                raise ConsoleError(f"没有名为「{character}」的角色")
            result = referee_give_card(
                locked,
                character=character,
                category=category,
                colour=colour,
                reason=reason.strip(),
                day=None,
                faction_lost=faction_lost,
                actor=actor,
            )
    except ApiError as exc:
        raise ConsoleError(api_message(exc)) from exc
    return DecisionResult.of(colour, result)


# ---------------------------------------------------------------------------------------------
# Players


def votes_by_day(game: Game) -> dict[int, dict[str, dict[str, Any]]]:
    """Each day's final ballots (voter -> {target, proxy, changes, post_id}) from the director's
    log: the one that stands (or stood at 关门)."""
    out: dict[int, dict[str, dict[str, Any]]] = defaultdict(dict)
    for e in game.log:
        if type(e).__name__ != "VoteCast":
            continue
        day = int(getattr(e, "day", 0))
        voter = str(getattr(e, "voter", ""))
        before = out[day].get(voter)
        out[day][voter] = {
            "target": getattr(e, "target", None),
            "proxy": bool(getattr(e, "proxy", False)),
            "changes": (before["changes"] + 1) if before else 0,
            "post_id": getattr(e, "post_id", None),
        }
    return dict(out)


def players(session: Session, row: GameRow, game: Game) -> dict[str, Any]:
    """Every character: state, cause, role, ledger, posts per day against the thresholds, votes."""
    state = game.state
    rules = cardrules.rules(row.ruleset)
    activity = rules.activity
    counts, water = activity_counts(session, row.id)
    ledgers = cards_by_character(session, row)
    revoked = revoked_ids(session, row)
    votes = votes_by_day(game)
    last_day = max(state.day, 1)
    days = list(range(1, last_day + 1))
    deal = {d["character"]: d for d in deal_rows(row, game)}
    accelerated = set(row.accelerated_days)
    gone = {e.character: e for e in state.eliminations}
    deferred = set(state.flags.get("deferred_cards") or ())
    substitutions = substitution_rows(game)
    replaced = {s["character"]: s["old"] for s in substitutions["substitutions"]}
    out = []
    for character in game.characters:
        elim = gone.get(character)
        per_day = []
        for d in days:
            n = counts.get(d, {}).get(character, 0)
            w = water.get(d, {}).get(character, 0)
            exempt = d in accelerated
            below = (
                activity.single_day_min is not None
                and n < activity.single_day_min
                and not exempt
                and (elim is None or elim.day >= d)
            )
            vote = votes.get(d, {}).get(character)
            per_day.append(
                {
                    "day": d,
                    "posts": n,
                    "water": w,
                    "below": below,
                    "accelerated": exempt,
                    "vote": vote,
                    "alive_then": elim is None or elim.day >= d,
                }
            )
        three_low = activity.three_days_min_each is not None and any(
            all(
                counts.get(d, {}).get(character, 0) < activity.three_days_min_each
                and d not in accelerated
                for d in (k, k + 1, k + 2)
            )
            for k in range(1, last_day - 1)
        )
        out.append(
            {
                "character": character,
                "player": deal[character]["player"],
                "replaced": replaced.get(character),
                "role_name": deal[character]["role_name"],
                "faction_name": deal[character]["faction_name"],
                "alive": state.is_alive(character),
                "pending_red": character in deferred,
                "cause": cause_label(elim.cause) if elim else "",
                "out_when": f"第{elim.day}天{phase_label(elim.phase)}" if elim else "",
                "sheriff": state.sheriff == character,
                "ledger": ledger_summary(
                    row.ruleset, character, ledgers.get(character, []), revoked
                ),
                "days": per_day,
                "three_low": three_low,
            }
        )
    return {
        "players": out,
        "days": days,
        "single_min": activity.single_day_min,
        "three_min": activity.three_days_min_each,
        "single_quote": activity.single_day_quote,
        "three_quote": activity.three_days_quote,
        "no_vote_quote": activity.no_vote_quote,
        "escalation_quote": rules.escalation_quote,
        "categories": manual_categories(row.ruleset),
        "may_declare_lost": cardrules.may_declare_faction_lost(row.ruleset),
        "last_words": last_words_rows(game),
        "tokens": player_token_rows(session, row, game),
        **substitutions,
    }


def substitution_rows(game: Game) -> dict[str, Any]:
    """Who may still get a 替补 (每名角色仅限更换一次替补; nobody once the game has ended) and
    the substitutions made so far."""
    state = game.state
    return {
        "substitutable": [
            {"character": c, "player": state.players.get(c, c), "alive": state.is_alive(c)}
            for c in game.characters
            if c not in state.substituted and not state.ended
        ],
        "substitutions": [
            {"character": e.character, "old": e.old_player, "new": e.new_player}
            for e in game.log
            if isinstance(e, Substituted)
        ],
    }


def open_last_words(game: Game) -> list[str]:
    """Characters holding a last-words right (遗言权利) they have neither used nor given up."""
    state = game.state
    if state.ended:
        return []
    return [c for c in state.last_words_granted if c not in state.last_words_given]


def last_words_rows(game: Game) -> dict[str, Any]:
    """Last-words rights: open ones (to enter or give up), used or given up ones, the quota."""
    state = game.state
    out_when = {e.character: f"第{e.day}天{phase_label(e.phase)}" for e in state.eliminations}
    return {
        "open": [{"character": c, "out_when": out_when.get(c, "")} for c in open_last_words(game)],
        "closed": [
            {"character": c, "given": state.last_words_given[c] is not None}
            for c in state.last_words_granted
            if c in state.last_words_given
        ],
        "quota": game.params.last_words,
        "granted": len(state.last_words_granted),
    }


def substitute(game_id: str, *, character: str, player: str, actor_label: str) -> tuple[str, str]:
    """替补: ``player`` takes over ``character``; returns (previous player, new player).

    The API's ``substitute`` action, so the game core's rule applies (每名角色仅限更换一次替补).
    """
    player = player.strip()
    if not character:
        raise ConsoleError("请选择要更换替补的角色")
    if len(character) > MAX_NAME:
        raise ConsoleError(f"没有名为「{character}」的角色")
    if not player:
        raise ConsoleError("请填写替补玩家的名字")
    if len(player) > MAX_NAME:
        raise ConsoleError(f"替补玩家名不能超过{MAX_NAME}个字符")
    body = {"type": "substitute", "character": character, "player": player}
    events = director_action(game_id, body, actor_label=actor_label)
    done = next(e for e in events if isinstance(e, Substituted))
    return done.old_player, done.new_player


def leave_last_words(
    game_id: str, *, character: str, text: str | None, actor_label: str
) -> list[str]:
    """遗言 for ``character`` (``text`` None = 放弃遗言); the announcements published at once.

    The API's ``last_words`` action: the game core checks the right (遗言权利) and that it was not
    used or given up already. It also decides when words are published (a night death's during
    the next day at once, others at the next day's start).
    """
    if not character:
        raise ConsoleError("请选择留遗言的角色")
    if len(character) > MAX_NAME:
        raise ConsoleError(f"没有名为「{character}」的角色")
    if text is not None:
        # Browsers send a textarea's line breaks as CRLF; forum text has plain newlines.
        text = text.replace("\r\n", "\n").strip()
        if not text:
            raise ConsoleError("请粘贴遗言内容；不留遗言请选择“放弃遗言”")
        # the service's limit on one post body: last words are a post too
        limit = int(current_app.config["MAX_POST_CHARS"])
        if len(text) > limit:
            raise ConsoleError(f"遗言不能超过{limit}字")
    body = {"type": "last_words", "actor": character, "text": text}
    events = director_action(game_id, body, actor_label=actor_label)
    return [e.text for e in events if isinstance(e, Announced)]


# ---------------------------------------------------------------------------------------------
# Player tokens


def player_token_rows(session: Session, row: GameRow, game: Game) -> list[dict[str, Any]]:
    """Each character's player token: live (issued when) or revoked (when), never the token.

    ``live`` is the ids of the live token rows, sent back by the reissue form so that a
    resubmitted form (reload, double click) or a second director's reissue is noticed.
    """
    tokens: dict[str, list[Token]] = defaultdict(list)
    for t in session.scalars(
        select(Token).where(Token.game_id == row.id, Token.kind == PLAYER).order_by(Token.id)
    ):
        tokens[t.character or ""].append(t)
    out = []
    for character in game.characters:
        held = tokens.get(character, [])
        live = [t for t in held if t.revoked_at is None]
        last = held[-1] if held else None
        out.append(
            {
                "character": character,
                "player": game.state.players.get(character, character),
                "live": ",".join(str(t.id) for t in live),
                "state": "live" if live else ("revoked" if last else "none"),
                "issued": local_time(live[-1].created_at) if live else "",
                "revoked": local_time(last.revoked_at) if last and last.revoked_at else "",
                "count": len(held),
            }
        )
    return out


@dataclass(frozen=True)
class TokenChange:
    """A revoked or reissued player token; ``token`` (reissue only) is shown once, never kept."""

    character: str
    revoked: int
    token: str | None = None


#: the longest token-change reason kept in the audit (the API's own limit)
MAX_TOKEN_REASON = 2000


def _change_player_token(
    game_id: str,
    character: str,
    *,
    reissue: bool,
    expected_live: str | None,
    actor_label: str,
    reason: str = "",
) -> TokenChange:
    """The API's revoke / reissue (:mod:`api.tokens`): same functions, same lock, same audit
    (``reason``, optional, goes to the audit trail as the API's does)."""
    if not character:
        raise ConsoleError("请选择角色")
    reason = reason.strip()
    if len(reason) > MAX_TOKEN_REASON:
        raise ConsoleError(f"原因不能超过{MAX_TOKEN_REASON}个字符，令牌没有改动")
    unknown = ConsoleError(f"没有名为「{character}」的角色，令牌没有改动")
    if len(character) > MAX_NAME:
        raise unknown
    with db().write() as session:
        row = lock_game(session, game_id)
        if character not in characters_of(row):
            raise unknown
        ids, token = replace_token(
            session,
            game_id,
            PLAYER,
            character,
            reissue=reissue,
            actor=actor_label,
            detail={"reason": reason, "via": "console"},
        )
        if expected_live is not None and ",".join(map(str, ids)) != expected_live:
            # Rolled back with the transaction (nothing revoked, issued or audited): the page the
            # director acted on is out of date.
            raise ConsoleError(
                f"「{character}」的令牌刚刚已经变动（重复提交，或有人同时操作），这次没有重发；"
                "请确认下方的令牌状态后再操作"
            )
    return TokenChange(character=character, revoked=len(ids), token=token)


def revoke_player_token(game_id: str, *, character: str, actor_label: str, reason: str = "") -> int:
    """吊销令牌: ``character``'s live player token stops working at once; how many were live."""
    change = _change_player_token(
        game_id,
        character,
        reissue=False,
        expected_live=None,
        actor_label=actor_label,
        reason=reason,
    )
    return change.revoked


def reissue_player_token(
    game_id: str, *, character: str, expected_live: str, actor_label: str, reason: str = ""
) -> TokenChange:
    """重发令牌: revoke ``character``'s live player token and issue a new one (shown once).

    ``expected_live`` is the live token ids the director saw (``player_token_rows``); if they
    changed meanwhile nothing is done, so a reloaded result page does not silently replace the
    token just shown.
    """
    return _change_player_token(
        game_id,
        character,
        reissue=True,
        expected_live=expected_live,
        actor_label=actor_label,
        reason=reason,
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


# ---------------------------------------------------------------------------------------------
# Timeline


def _describe_event(payload: Mapping[str, Any], game: Game) -> tuple[str, str] | None:
    """(css kind, Chinese line) for one logged event, or None for bookkeeping events."""
    kind = payload.get("type")
    if kind == "phase_started":
        return "phase", f"{phase_label(str(payload['phase']))}开始"
    if kind == "announced":
        if payload.get("kind") == "commitment":
            return "public", str(payload["text"])
        return ("red" if payload.get("kind") == "card" else "public"), f"公示：{payload['text']}"
    if kind == "action_taken":
        detail = payload.get("detail")
        from api.console.night import chosen_text  # night.py builds on this module

        target = chosen_text(payload.get("target"), detail if isinstance(detail, Mapping) else {})
        return "night", f"{payload['actor']} 发动<{skill_label(str(payload['skill']))}> → {target}"
    if kind == "eliminated":
        return "out", f"{payload['character']} 出局（{cause_label(str(payload['cause']))}）"
    if kind == "sheriff_changed" and payload.get("character"):
        return "info", f"警长：{payload['character']}"
    if kind == "told":
        to = "、".join(payload.get("to") or ())
        return "private", f"私下告知 {to}：{payload['text']}"
    if kind == "votes_tallied":
        counts = "，".join(
            f"{k} {_fraction_text(v)}票" for k, v in (payload.get("counts") or {}).items()
        )
        return "info", f"计票（含隐藏票）：{counts or '无有效票'}"
    if kind == "faction_lost":
        faction = str(payload.get("faction"))
        return "out", f"{game.params.factions.get(faction, faction)}判负"
    if kind == "substituted":
        return (
            "info",
            f"替补：{payload['new_player']} 接替 {payload['old_player']}（{payload['character']}）",
        )
    if kind == "last_words_given" and payload.get("text"):
        return "info", f"{payload['character']} 留下遗言"
    if kind == "random_picked":  # published with the verification record when the game ends
        result = "、".join(payload.get("result") or ())
        where = f"{payload.get('label')}，第{payload.get('position')}条"
        return "info", f"随机抽取（{where}）：{result}"
    return None


def timeline(session: Session, row: GameRow, game: Game) -> dict[str, Any]:
    """The game day by day (director's log merged with cards) and the activity chart's data."""
    events = session.execute(
        select(GameEvent.payload, GameEvent.created_at)
        .where(GameEvent.game_id == row.id)
        .order_by(GameEvent.seq)
    ).all()
    entries: list[tuple[int, Any, int, dict[str, str]]] = []
    day = 0
    for order, (payload, at) in enumerate(events):
        if payload.get("type") == "phase_started":
            day = int(payload["day"])
        described = _describe_event(payload, game)
        if described is None:
            continue
        css, text = described
        entries.append((day, at, order, {"kind": css, "text": text, "at": local_time(at)}))
    cards = session.scalars(select(Card).where(Card.game_id == row.id).order_by(Card.id)).all()
    revoked = revocations_of(session, row.id)
    for c in cards:
        text = f"{c.character} {colour_label(c.colour)}：{c.reason}"
        if c.id in revoked:
            text += f"（已撤销：{revoked[c.id].reason}）"
        entries.append(
            (c.day, c.created_at, 10**9 + c.id, {"kind": f"card card-{c.colour}", "text": text,
                                                 "at": local_time(c.created_at)})
        )  # fmt: skip
    entries.sort(key=lambda e: (e[0], e[1], e[2]))
    days: dict[int, list[dict[str, str]]] = {}
    for d, _at, _order, entry in entries:
        days.setdefault(d, []).append(entry)
    counts, _water = activity_counts(session, row.id)
    posts = {c: {d: counts.get(d, {}).get(c, 0) for d in counts} for c in game.characters}
    card_days: dict[str, dict[int, list[str]]] = {c: {} for c in game.characters}
    for c in cards:
        if c.source != "escalation" and c.id not in revoked:
            card_days.setdefault(c.character, {}).setdefault(c.day, []).append(c.colour)
    chart_days = sorted({*counts, *range(1, max(game.state.day, 1) + 1)} - {0})
    out_day = {e.character: e.day for e in game.state.eliminations}
    return {
        "days": [{"day": d, "title": day_title(d), "entries": days[d]} for d in sorted(days)],
        "chart": {
            "characters": list(game.characters),
            "days": chart_days,
            "posts": posts,
            "cards": card_days,
            "threshold": cardrules.rules(row.ruleset).activity.single_day_min,
            "out": out_day,
        },
    }


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
    "give_card",
    "players",
    "reading",
    "summary",
    "timeline",
    "token_still_valid",
]
