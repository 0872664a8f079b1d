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
from api.console.forms import MAX_NAME, decision_for
from api.console.highlight import highlight, spans_from_findings
from api.console.labels import (
    cause_label,
    colour_label,
    day_title,
    label,
    labels,
    phase_label,
    skill_label,
    thread_label,
    via_label,
)
from api.database import db
from api.errors import ApiError, NotFound
from api.gameplay import Game, action_from_json
from api.ingest import THREADS
from api.locking import characters_of, locked_game, read_game
from api.rulings import decide, find_suggestion
from api.rulings import give_card as referee_give_card
from api.schema import SchemaError
from api.store import audit, lock_game
from api.tokens import replace_token
from game_rules.events import Announced, Substituted
from game_rules.params import load_params
from game_rules.penalties import CardColour
from models.cards import Card, Decision, Suggestion
from models.game import Game as GameRow
from models.game import GameEvent, Token
from models.posts import Post

#: the new-game form's rulesets: the seeds' three and their variant files (game_rules/rulesets)
RULESETS = ("m72", "m08", "m08_12", "wa004", "wa004_consent")
#: forum times are shown in the forum's zone (the seeds' 关门 times are Beijing time)
DEFAULT_TIMEZONE = "Asia/Shanghai"
DECIDABLE = ("blue", "yellow", "red", "green")
#: categories offered for a card given directly, most common direct reds first
MANUAL_CATEGORY_ORDER = (
    "multi_account", "cheating", "insult", "oath", "emotional", "vest", "director", "evidence",
    "real_life", "meta", "font", "zombie", "missed_action", "avatar", "off_site", "delete_post",
    "floor_reply", "other",
)  # fmt: skip


class ConsoleError(Exception):
    """A request the console refuses; ``message`` is shown to the director (Chinese)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def local_time(moment: datetime, fmt: str = "%m-%d %H:%M") -> str:
    """``moment`` in the console's zone (``CONSOLE_TIMEZONE``, default Beijing time).

    >>> from datetime import timezone
    >>> local_time(datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc), "%H:%M")
    '20:00'
    """
    name = DEFAULT_TIMEZONE
    if has_app_context():
        name = str(current_app.config.get("CONSOLE_TIMEZONE", DEFAULT_TIMEZONE))
    try:
        zone: tzinfo = ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        zone = UTC
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(zone).strftime(fmt)


def api_message(exc: ApiError) -> str:
    """The service's error as one line for a flash message."""
    rule = exc.extra.get("rule")
    return f"{exc.message}（规则：{rule}）" if rule else exc.message


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
# Review queue


def _finding_view(f: Mapping[str, Any]) -> dict[str, Any]:
    via = str(f.get("via") or "exact")
    match = str(f.get("match", ""))
    term = str(f.get("term") or "")
    article = f.get("article") or {}
    if via == "exact" or not term or term == match:
        how = f"“{match}” → {via_label(via)}"
    else:
        how = f"“{match}” → {via_label(via)} {term}"
    return {
        "category": f.get("category", ""),
        "category_name": cardrules.category_name(str(f.get("category", ""))),
        "via": via,
        "via_name": via_label(via),
        "how": how,
        "match": match,
        "term": term,
        "start": f.get("start"),
        "end": f.get("end"),
        "confidence": float(f.get("confidence", 0.0)),
        "article_code": article.get("code", "") if isinstance(article, Mapping) else "",
        "article_text": article.get("text", "") if isinstance(article, Mapping) else "",
    }


def queue(session: Session, row: GameRow, game: Game, status: str) -> list[dict[str, Any]]:
    """The review queue: each suggestion with its post highlighted, findings and history."""
    query = (
        select(Suggestion, Post, Decision)
        .outerjoin(Post, Post.id == Suggestion.post_id)
        .outerjoin(Decision, Decision.suggestion_id == Suggestion.id)
        .where(Suggestion.game_id == row.id)
        .order_by(Suggestion.id)
    )
    if status in ("pending", "decided"):
        query = query.where(Suggestion.status == status)
    rows = session.execute(query).all()
    ledgers = cards_by_character(session, row)
    revoked = revoked_ids(session, row)
    may_lose = cardrules.may_declare_faction_lost(row.ruleset)
    items: list[dict[str, Any]] = []
    for s, post, decision in rows:
        reasons = [r for r in s.reasons if isinstance(r, Mapping)]
        findings = [_finding_view(r["finding"]) for r in reasons if "finding" in r]
        if post is not None and not findings:
            # Findings below the violation line are still worth showing as context.
            findings = [
                _finding_view(f) for f in post.findings if f.get("category") not in ("water",)
            ]
        summary_reason = next(
            (r for r in reasons if "allowed" in r or "history" in r), reasons[-1] if reasons else {}
        )
        article = summary_reason.get("article") if isinstance(summary_reason, Mapping) else None
        article = article if isinstance(article, Mapping) else None
        history = summary_reason.get("history") if isinstance(summary_reason, Mapping) else None
        other_texts = [
            str(r.get("text", ""))
            for r in reasons
            if "finding" not in r and r is not summary_reason
        ]
        body = post.body if post is not None else ""
        spans = spans_from_findings(post.findings if post is not None else [], len(body))
        allowed = list(summary_reason.get("allowed") or DECIDABLE)
        now = ledger_summary(row.ruleset, s.character, ledgers.get(s.character, []), revoked)
        items.append(
            {
                "id": s.id,
                "character": s.character,
                "alive": game.state.is_alive(s.character),
                "kind": s.kind,
                "kind_name": label("suggestion_kinds", s.kind),
                "category": s.category,
                "category_name": cardrules.category_name(s.category),
                "colour": s.colour,
                "colour_name": colour_label(s.colour),
                "day": s.day,
                "status": s.status,
                "post": None
                if post is None
                else {
                    "forum_post_id": post.forum_post_id,
                    "thread_name": thread_label(post.thread),
                    "day": post.day,
                    "posted_at": local_time(post.posted_at),
                    "html": highlight(body, spans),
                    "length": len(body),
                },
                "findings": findings,
                "confidence": max((f["confidence"] for f in findings), default=None),
                "article": None
                if article is None
                else {
                    "code": article.get("code", ""),
                    "cite": article.get("cite") or article.get("text", ""),
                    "text": article.get("text", ""),
                },
                "reason_text": _without_cite(
                    str(summary_reason.get("text", ""))
                    if isinstance(summary_reason, Mapping)
                    else "",
                    str(article.get("cite", "")) if article else "",
                ),
                "other_reasons": [t for t in other_texts if t],
                "history_then": history.get("summary") if isinstance(history, Mapping) else None,
                "ledger": now,
                "allowed": [c for c in DECIDABLE if c in allowed or c == "green"],
                "may_declare_lost": may_lose,
                "decision": None
                if decision is None
                else {
                    "action": decision.action,
                    "colour": decision.colour,
                    "colour_name": colour_label(decision.colour),
                    "note": decision.note,
                    "faction_lost": decision.faction_lost,
                    "decided_by": decision.decided_by,
                    "decided_at": local_time(decision.decided_at),
                },
            }
        )
    return items


def _without_cite(text: str, cite: str) -> str:
    """The suggestion's reasoning without the article citation already quoted above it.

    >>> _without_cite("第2条：侮辱；此前没有同类违规", "第2条：侮辱")
    '此前没有同类违规'
    """
    if cite and text.startswith(cite):
        return text[len(cite) :].lstrip("；;，, ")
    return text


@dataclass(frozen=True)
class DecisionResult:
    """What a decision did, for the flash message."""

    colour: str
    cards: list[str] = field(default_factory=list)
    announcements: list[str] = field(default_factory=list)
    ended: bool = False


def decide_suggestion(
    game_id: str, sid: int, *, colour: str, note: str, faction_lost: bool, actor: str
) -> DecisionResult:
    """The director's ruling on suggestion ``sid`` of ``game_id`` (another game's is not found)."""
    if colour not in DECIDABLE:
        raise ConsoleError(f"未知的牌色：{colour}")
    if len(note) > 2000:
        raise ConsoleError("备注不能超过2000字")
    try:
        with locked_game(game_id) as (session, locked):
            suggestion = find_suggestion(session, sid)
            if suggestion.game_id != game_id:
                raise ConsoleError("没有这条待审建议")
            session.refresh(suggestion)
            action, changed = decision_for(suggestion.colour, colour)
            result = decide(
                locked,
                suggestion,
                action=action,
                colour=changed,
                note=note,
                faction_lost=faction_lost,
                actor=actor,
            )
    except NotFound as exc:
        raise ConsoleError("没有这条待审建议") from exc
    except ApiError as exc:
        raise ConsoleError(api_message(exc)) from exc
    ejected = result.get("ejected") or {}
    return DecisionResult(
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
    ejected = result.get("ejected") or {}
    return DecisionResult(
        colour=colour,
        cards=[f"{c['character']}：{colour_label(c['colour'])}" for c in result["cards"]],
        announcements=list(ejected.get("announcements", [])),
        ended=bool(result["outcome"].get("ended")),
    )


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
        entries.append((day, at, order, {"kind": css, "text": text, "at": local_time(at, "%H:%M")}))
    cards = session.scalars(select(Card).where(Card.game_id == row.id).order_by(Card.id)).all()
    revoked = revocations_of(session, row.id)
    for c in cards:
        text = f"{c.character} {colour_label(c.colour)}：{c.reason}"
        if c.id in revoked:
            text += f"（已撤销：{revoked[c.id].reason}）"
        entries.append(
            (c.day, c.created_at, 10**9 + c.id, {"kind": f"card card-{c.colour}", "text": text,
                                                 "at": c.created_at.strftime("%H:%M")})
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


# ---------------------------------------------------------------------------------------------
# Posts


#: posts per page of the posts list (app config ``CONSOLE_POSTS_PER_PAGE``)
DEFAULT_POSTS_PER_PAGE = 50


def posts_per_page() -> int:
    """Posts per page of the posts list."""
    value = DEFAULT_POSTS_PER_PAGE
    if has_app_context():
        value = int(current_app.config.get("CONSOLE_POSTS_PER_PAGE", DEFAULT_POSTS_PER_PAGE))
    return max(1, value)


@dataclass(frozen=True)
class PostFilters:
    """The posts list's filters (None / False: not filtered)."""

    character: str | None = None
    day: int | None = None
    thread: str | None = None
    flagged: bool = False

    def query_args(self) -> dict[str, str]:
        """The filters as query-string arguments, for paging links.

        >>> PostFilters(character="甲", flagged=True).query_args()
        {'character': '甲', 'flagged': '1'}
        """
        args: dict[str, str] = {}
        if self.character is not None:
            args["character"] = self.character
        if self.day is not None:
            args["day"] = str(self.day)
        if self.thread is not None:
            args["thread"] = self.thread
        if self.flagged:
            args["flagged"] = "1"
        return args


def post_filters(
    args: Mapping[str, str], characters: Sequence[str]
) -> tuple[PostFilters, list[str]]:
    """The filters from a query string; a value that names nothing is dropped with a notice.

    >>> post_filters({"character": "乙", "day": "2", "flagged": "1"}, ["甲", "乙"])
    (PostFilters(character='乙', day=2, thread=None, flagged=True), [])
    >>> for notice in post_filters({"character": "丙", "day": "x", "thread": "chat"}, ["甲"])[1]:
    ...     print(notice)
    没有名为「丙」的角色，已显示所有角色的帖子
    天数“x”无效，已显示所有天
    没有“chat”这种帖子，已显示所有帖子
    """
    notices: list[str] = []
    character: str | None = args.get("character") or None
    if character is not None and character not in characters:
        notices.append(f"没有名为「{character}」的角色，已显示所有角色的帖子")
        character = None
    raw_day = args.get("day") or ""
    day: int | None = None
    if raw_day:
        if raw_day.isdigit() and len(raw_day) <= 4:
            day = int(raw_day)
        else:
            notices.append(f"天数“{raw_day}”无效，已显示所有天")
    thread: str | None = args.get("thread") or None
    if thread is not None and thread not in THREADS:
        notices.append(f"没有“{thread}”这种帖子，已显示所有帖子")
        thread = None
    flagged = args.get("flagged") == "1"
    return PostFilters(character, day, thread, flagged), notices


def page_number(raw: str | None) -> int:
    """A page number from the query string (1 when missing or not a number).

    >>> page_number("3"), page_number("0"), page_number("-1"), page_number(None)
    (3, 1, 1, 1)
    """
    if raw is None or not raw.isdigit() or len(raw) > 6:
        return 1
    return max(1, int(raw))


def page_links(page: int, pages: int, around: int = 2) -> list[int | None]:
    """Page numbers to link: the first, the last and ``around`` either side; None is a gap.

    >>> page_links(6, 12)
    [1, None, 4, 5, 6, 7, 8, None, 12]
    >>> page_links(1, 3)
    [1, 2, 3]
    """
    shown = sorted({1, pages, *range(max(1, page - around), min(pages, page + around) + 1)})
    out: list[int | None] = []
    for number in shown:
        if out and out[-1] is not None and number - out[-1] > 1:
            out.append(None)
        out.append(number)
    return out


def _vote_view(
    post: Post, final: Mapping[int, Mapping[str, Mapping[str, Any]]]
) -> dict[str, str] | None:
    """How a vote-thread post counted: 有效 (and whether a later ballot replaced it) or not."""
    if post.thread != "vote":
        return None
    if post.zombie:
        rejected = label("vote_status", "rejected")
        return {"status": "rejected", "status_name": rejected, "detail": "诈尸：出局角色的投票不计"}
    vote = post.vote if isinstance(post.vote, Mapping) else None
    if vote is None:
        return None
    status = str(vote.get("status", ""))
    out = {"status": status, "status_name": label("vote_status", status), "detail": "", "later": ""}
    if status == "counted":
        target = vote.get("target")
        out["detail"] = (f"投给{target}" if target else "弃权") + (
            "（改票）" if vote.get("is_change") else ""
        )
        last = final.get(post.day, {}).get(post.author)
        if last is not None and last["post_id"] != post.forum_post_id:
            now = f"投给{last['target']}" if last["target"] else "弃权"
            how = "导演代投" if last["proxy"] else "改票"
            out["later"] = f"已被之后的{how}取代（{now}）"
    else:
        out["detail"] = str(vote.get("message", ""))
    return out


def _post_suggestion_view(s: Suggestion, decision: Decision | None) -> dict[str, Any]:
    return {
        "id": s.id,
        "kind_name": label("suggestion_kinds", s.kind),
        "category_name": cardrules.category_name(s.category),
        "colour": s.colour,
        "colour_name": colour_label(s.colour),
        "status": s.status,
        "decided_colour": decision.colour if decision else None,
        "decided_name": colour_label(decision.colour) if decision else "",
    }


def posts_page(
    session: Session, row: GameRow, game: Game, filters: PostFilters, page: int
) -> dict[str, Any]:
    """One page of the game's posts in thread order (day, then posting time), grouped by day,
    each with its findings highlighted, how its vote counted and its suggestion's status."""
    flagged = (
        select(Suggestion.id)
        .where(Suggestion.game_id == row.id, Suggestion.post_id == Post.id)
        .exists()
    )
    where = [Post.game_id == row.id]
    if filters.character is not None:
        where.append(Post.author == filters.character)
    if filters.day is not None:
        where.append(Post.day == filters.day)
    if filters.thread is not None:
        where.append(Post.thread == filters.thread)
    if filters.flagged:
        where.append(flagged)
    total = int(session.scalar(select(func.count()).select_from(Post).where(*where)) or 0)
    per_page = posts_per_page()
    pages = max(1, -(-total // per_page))
    page = min(page, pages)
    posts = session.scalars(
        select(Post)
        .where(*where)
        .order_by(Post.day, Post.posted_at, Post.id)
        .offset((page - 1) * per_page)
        .limit(per_page)
    ).all()
    suggestions: dict[int, list[tuple[Suggestion, Decision | None]]] = defaultdict(list)
    if posts:
        for s, decision in session.execute(
            select(Suggestion, Decision)
            .outerjoin(Decision, Decision.suggestion_id == Suggestion.id)
            .where(Suggestion.game_id == row.id, Suggestion.post_id.in_([p.id for p in posts]))
            .order_by(Suggestion.id)
        ):
            suggestions[s.post_id or 0].append((s, decision))
    final = votes_by_day(game)
    groups: list[dict[str, Any]] = []
    for post in posts:
        if not groups or groups[-1]["day"] != post.day:
            groups.append({"day": post.day, "title": day_title(post.day), "posts": []})
        findings = [f for f in post.findings if f.get("category") != "water"]
        linked = [_post_suggestion_view(s, d) for s, d in suggestions.get(post.id, [])]
        groups[-1]["posts"].append(
            {
                "id": post.id,
                "forum_post_id": post.forum_post_id,
                "author": post.author,
                "thread": post.thread,
                "thread_name": thread_label(post.thread),
                "posted_at": local_time(post.posted_at),
                "html": highlight(post.body, spans_from_findings(findings, len(post.body))),
                "water": post.is_water,
                "zombie": post.zombie,
                "findings": [_finding_view(f) for f in findings],
                "vote": _vote_view(post, final),
                "suggestions": linked,
                "colour": linked[0]["colour"] if linked else "",
            }
        )
    post_days = session.scalars(select(Post.day).where(Post.game_id == row.id).distinct()).all()
    return {
        "groups": groups,
        "total": total,
        "page": page,
        "pages": pages,
        "page_links": page_links(page, pages),
        "filters": filters,
        "query": filters.query_args(),
        "characters": list(game.characters),
        "days": [
            {"day": d, "title": day_title(d)}
            for d in sorted({*post_days, *range(1, max(game.state.day, 1) + 1)})
        ],
        "threads": {t: thread_label(t) for t in THREADS},
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
    "decide_suggestion",
    "game_for_director_token",
    "give_card",
    "players",
    "queue",
    "reading",
    "summary",
    "timeline",
    "token_still_valid",
]
