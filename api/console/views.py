"""The console's pages: login, new game, review queue, posts, players, day and night, timeline.

Every page is server-rendered with Jinja's autoescaping on; every form posts back here with a
CSRF token (see :mod:`api.console.security`) and answers with a redirect (post/redirect/get), so
reloading a page never repeats a ruling. The two exceptions render their answer directly because
it holds tokens shown once: a new game, and a reissued player token (whose form carries the live
token ids it replaces, so a resubmission is refused rather than replacing the token just shown).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response as BaseResponse

from api.console import (
    announcements,
    day,
    night,
    player_tokens,
    players_page,
    posts_page,
    service,
    timeline_page,
    trust,
    verdicts,
)
from api.console import queue as queue_page
from api.console.chart import activity_chart
from api.console.forms import (
    FormInputError,
    new_game_body,
    optional_target,
    optional_text,
    skill_choice,
)
from api.console.labels import colour_label
from api.console.service import ConsoleError
from api.console.sessions import current_director, director_required, log_in, log_out
from game_rules import verification

console_bp = Blueprint(
    "console",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/console/static",
)

#: the target selects' first option, 「请选择」: nothing is preselected
PICK = "__pick__"


def _director_game() -> str:
    director = current_director()
    assert director is not None  # guaranteed by @director_required
    return director.game_id


def _actor() -> str:
    director = current_director()
    return director.actor if director else "director"


def _page(template: str, **context: Any) -> str:
    """Render a game page with the header facts."""
    game_id = _director_game()
    with service.reading(game_id) as (session, row, game):
        header = service.summary(session, row, game)
        extra = context.pop("_build")(session, row, game) if "_build" in context else {}
    return render_template(template, game=header, **extra, **context)


def _back(endpoint: str, **values: Any) -> BaseResponse:
    return redirect(url_for(endpoint, **values))


def _done(message: str, lines: Sequence[str], endpoint: str = "console.day_night") -> BaseResponse:
    """Flash what was done and each 公示 it produced, then back to ``endpoint``."""
    flash(message, "ok")
    for line in lines:
        flash(f"公示：{line}", "info")
    return _back(endpoint)


def _refused(exc: FormInputError | ConsoleError, endpoint: str, **values: Any) -> BaseResponse:
    """Flash why the form was refused (nothing changed), then back to ``endpoint``."""
    flash(str(exc) if isinstance(exc, FormInputError) else exc.message, "error")
    return _back(endpoint, **values)


# ---------------------------------------------------------------------------------------------
# Login / logout / new game


@console_bp.get("/")
def index() -> BaseResponse | str:
    """The queue when logged in, the login page otherwise."""
    if current_director() is not None:
        return _back("console.review_queue")
    return render_template("console/login.html", game=None)


@console_bp.route("/login", methods=["GET", "POST"])
def login() -> BaseResponse | str | tuple[str, int]:
    """Log in with a director token (sent in the form body, never in a URL)."""
    if request.method == "GET":
        return render_template("console/login.html", game=None)
    try:
        log_in(request.form.get("token", ""), request.form.get("name", ""))
    except ConsoleError as exc:
        flash(exc.message, "error")
        return render_template("console/login.html", game=None), 401
    flash("已登录：只能查看和操作本场游戏", "ok")
    return _back("console.review_queue")


@console_bp.post("/logout")
def logout() -> BaseResponse:
    """Forget the session's game."""
    log_out()
    flash("已退出", "ok")
    return _back("console.login")


@console_bp.route("/new", methods=["GET", "POST"])
def new_game() -> BaseResponse | str | tuple[str, int]:
    """Create a game: ruleset, pasted players, optional seed; shows tokens, deal and commitment."""
    choices = service.ruleset_choices()
    form = {
        "ruleset": request.form.get("ruleset", "m72"),
        "players": request.form.get("players", ""),
        "seed": request.form.get("seed", ""),
    }
    # With an admin token configured, creating a game needs it: the form asks for it (never
    # echoes it back) and the service's own check compares it.
    needs_admin = bool(current_app.config.get("ADMIN_TOKEN"))

    def page() -> str:
        return render_template(
            "console/new_game.html", game=None, choices=choices, form=form, needs_admin=needs_admin
        )

    if request.method == "GET":
        return page()
    admin_token = request.form.get("admin_token", "").strip() if needs_admin else None
    try:
        if needs_admin and not admin_token:
            raise FormInputError("本服务设置了管理员令牌：新建游戏须填写管理员令牌")
        body = new_game_body(form["ruleset"], form["players"], form["seed"])
        created = service.create_game(body, admin_token=admin_token)
    except (FormInputError, ConsoleError) as exc:
        flash(str(exc) if isinstance(exc, FormInputError) else exc.message, "error")
        return page(), 400
    log_in(created.director_token, request.form.get("name", ""))
    # Rendered directly (not redirected): the tokens are shown this once and never stored.
    return render_template("console/created.html", game=None, created=created)


@console_bp.get("/deal")
@director_required
def deal() -> str:
    """The deal (director only) and the commitment to publish."""
    return _page(
        "console/deal.html",
        _build=lambda session, row, game: {
            "deal": service.deal_rows(row, game),
            "seed": row.seed,
        },
    )


# ---------------------------------------------------------------------------------------------
# Review queue


@console_bp.get("/queue")
@director_required
def review_queue() -> str:
    """Suggested cards with their evidence, to confirm, change or dismiss; filtered, paged."""
    status = request.args.get("status", "pending")
    if status not in queue_page.STATUSES:
        status = "pending"

    def build(session: Any, row: Any, game: Any) -> dict[str, Any]:
        filters, notices = posts_page.post_filters(request.args, game.characters)
        page = posts_page.page_number(request.args.get("page"))
        return {**queue_page.queue(session, row, game, status, filters, page), "notices": notices}

    return _page("console/queue.html", status=status, statuses=queue_page.STATUSES, _build=build)


@console_bp.post("/queue/<sid>")
@director_required
def decide(sid: str) -> BaseResponse | str:
    """One click: the colour pressed is the ruling (green = dismiss); a red card, direct or by
    escalation, asks for a second step first (the confirmation page)."""
    colour = request.form.get("colour", "")
    note = request.form.get("note", "").strip()
    faction_lost = request.form.get("faction_lost") == "1"
    back = request.form.get("back", "")
    try:
        suggestion_id = service.ensure_int(sid, "建议编号")
        result = queue_page.decide_suggestion(
            _director_game(),
            suggestion_id,
            colour=colour,
            note=note,
            faction_lost=faction_lost,
            actor=_actor(),
            confirmed=request.form.get("confirmed") == "1",
        )
    except queue_page.NeedsConfirmation as exc:
        return _page(
            "console/queue_confirm.html",
            warning=exc.message,
            sid=exc.sid,
            character=exc.character,
            colour=exc.colour,
            colour_name=colour_label(exc.colour),
            note=note,
            faction_lost=faction_lost,
            faction=exc.faction,
            back=_queue_return(back),
        )
    except ConsoleError as exc:
        flash(exc.message, "error")
        return redirect(_queue_return(back))
    if result.colour == "green":
        flash(f"#{suggestion_id} 已驳回（绿牌，不予判罚）", "ok")
    else:
        flash(
            f"#{suggestion_id} 已判{colour_label(result.colour)}：" + "；".join(result.cards), "ok"
        )
    for line in result.announcements:
        flash(f"公示：{line}", "red")
    if result.ended:
        flash("游戏已经结束", "red")
    return redirect(_queue_return(back))


def _queue_return(back: str) -> str:
    """Where a ruling returns: the queue page it was made on (its query string), never elsewhere.

    Only a query string is taken from the form, so no form can send the director off-site."""
    query = back.split("?", 1)[1] if back.startswith("/queue?") else ""
    if query and all(c not in query for c in "\r\n#"):
        return url_for("console.review_queue") + "?" + query
    return url_for("console.review_queue")


# ---------------------------------------------------------------------------------------------
# Players


@console_bp.get("/players")
@director_required
def players() -> str:
    """Every character: state, ledger, posts per day against the 潜水 thresholds, votes; the
    cards that may be revoked, and the appeals after the game."""
    return _page(
        "console/players.html",
        _build=lambda session, row, game: {
            **players_page.players(session, row, game),
            "revocable": trust.revocable_cards(session, row),
            "appeals": trust.appeals(session, row),
            "factions": verdicts.faction_choices(game),
            "tokens": player_tokens.player_token_rows(session, row, game),
        },
    )


@console_bp.get("/cards/<cid>/revoke")
@director_required
def confirm_revocation(cid: str) -> BaseResponse | str:
    """撤销判罚, step one: what revoking the card would do; the form that confirms it."""
    try:
        card_id = service.ensure_int(cid, "牌编号")
        preview = trust.preview_revocation(_director_game(), card_id)
    except ConsoleError as exc:
        return _refused(exc, "console.players", _anchor="revoke")
    return _page("console/revoke_card.html", preview=preview)


@console_bp.post("/cards/<cid>/revoke")
@director_required
def revoke_card(cid: str) -> BaseResponse:
    """撤销判罚, step two: the confirmed revocation."""
    try:
        lines = trust.revoke(
            _director_game(),
            service.ensure_int(cid, "牌编号"),
            reason=request.form.get("reason", ""),
            actor=_actor(),
        )
    except ConsoleError as exc:
        return _refused(exc, "console.players", _anchor="revoke")
    for line in lines:
        flash(line, "red" if line.startswith("公示") else "ok")
    return _back("console.players", _anchor="revoke")


@console_bp.post("/appeals/<aid>/ruling")
@director_required
def rule_appeal(aid: str) -> BaseResponse:
    """The director's ruling on a player's appeal (after the game)."""
    try:
        name = trust.rule(
            _director_game(),
            service.ensure_int(aid, "申诉编号"),
            ruling=request.form.get("ruling", ""),
            note=request.form.get("note", ""),
        )
    except ConsoleError as exc:
        return _refused(exc, "console.players", _anchor="appeals")
    flash(f"已裁决申诉：{name}", "ok")
    return _back("console.players", _anchor="appeals")


@console_bp.get("/audit")
@director_required
def audit() -> str:
    """审计记录: every act on the game, newest first, with the token that proved who did it."""
    action = request.args.get("action") or None
    try:
        return _page(
            "console/audit.html",
            _build=lambda session, row, game: {
                "entries": trust.audit_rows(session, row.id, action),
            },
            choices=trust.audit_choices(),
            chosen=action or "",
        )
    except ConsoleError as exc:
        flash(exc.message, "error")
        return _page("console/audit.html", entries=[], choices=trust.audit_choices(), chosen="")


@console_bp.post("/card")
@director_required
def give_card() -> BaseResponse | str:
    """A card given directly by the director (e.g. 串号/作弊 → 红牌); a red card (direct or by
    escalation) or a 判负 with it answers with its confirmation page first."""
    try:
        result = verdicts.give_card(
            _director_game(),
            character=request.form.get("character", ""),
            colour=request.form.get("colour", ""),
            category=request.form.get("category", ""),
            reason=request.form.get("reason", ""),
            faction_lost=request.form.get("faction_lost") == "1",
            actor=_actor(),
            confirmed=request.form.get("confirmed") == "1",
        )
    except verdicts.NeedsConfirmation as exc:
        return _page("console/verdict_confirm.html", confirm=exc)
    except ConsoleError as exc:
        return _refused(exc, "console.players")
    flash("已判罚：" + "；".join(result.cards), "ok")
    for line in result.announcements:
        flash(f"公示：{line}", "red")
    if result.ended:
        flash("游戏已经结束", "red")
    return _back("console.players")


@console_bp.post("/forfeit")
@director_required
def declare_lost() -> BaseResponse | str:
    """判负: a faction judged lost, after its confirmation page (what will happen)."""
    try:
        lines = verdicts.declare_lost(
            _director_game(),
            faction=request.form.get("faction", ""),
            reason=request.form.get("reason", ""),
            actor_label=_actor(),
            confirmed=request.form.get("confirmed") == "1",
        )
    except verdicts.NeedsConfirmation as exc:
        return _page("console/verdict_confirm.html", confirm=exc)
    except ConsoleError as exc:
        flash(exc.message, "error")
        return _back("console.players", _anchor="forfeit")
    for line in lines:
        flash(line, "red")
    return _back("console.players", _anchor="forfeit")


@console_bp.post("/substitute")
@director_required
def substitute() -> BaseResponse:
    """替补: a new player takes over a character (每名角色仅限更换一次替补)."""
    character = request.form.get("character", "")
    try:
        old, new = players_page.substitute(
            _director_game(),
            character=character,
            player=request.form.get("player", ""),
            actor_label=_actor(),
        )
    except ConsoleError as exc:
        return _refused(exc, "console.players", _anchor="substitute")
    flash(f"已更换替补：{new} 接替 {old}（{character}）", "ok")
    flash(
        f"替补不会更换玩家令牌：请在「玩家令牌」中为{character}重发令牌，私下发给{new}，"
        "旧令牌随即失效",
        "info",
    )
    return _back("console.players", _anchor="tokens")


@console_bp.post("/tokens/revoke")
@director_required
def revoke_token() -> BaseResponse:
    """吊销令牌: the character's player token stops working at once; no new one is issued."""
    character = request.form.get("character", "")
    try:
        revoked = player_tokens.revoke_player_token(
            _director_game(),
            character=character,
            actor_label=_actor(),
            reason=request.form.get("reason", ""),
        )
    except ConsoleError as exc:
        return _refused(exc, "console.players", _anchor="tokens")
    if revoked:
        flash(f"已吊销{character}的玩家令牌：旧令牌立即失效。需要新令牌时请点「重发令牌」", "ok")
    else:
        flash(f"{character}没有有效的玩家令牌，无需吊销", "info")
    return _back("console.players", _anchor="tokens")


@console_bp.post("/tokens/reissue")
@director_required
def reissue_token() -> BaseResponse | str:
    """重发令牌: revoke the character's player token and show the new one, this once."""
    try:
        change = player_tokens.reissue_player_token(
            _director_game(),
            character=request.form.get("character", ""),
            expected_live=request.form.get("live", ""),
            actor_label=_actor(),
            reason=request.form.get("reason", ""),
        )
    except ConsoleError as exc:
        return _refused(exc, "console.players", _anchor="tokens")
    # Rendered directly (not redirected), like a new game's tokens: the new token is in this
    # response only (no-store), never in a URL, the flash cookie, the session or a log line.
    return _page("console/token_issued.html", change=change)


@console_bp.post("/last-words")
@director_required
def last_words() -> BaseResponse:
    """遗言 entered by the director, or 放弃遗言."""
    character = request.form.get("character", "")
    abandon = request.form.get("choice") == "abandon"
    try:
        lines = players_page.leave_last_words(
            _director_game(),
            character=character,
            text=None if abandon else request.form.get("text", ""),
            actor_label=_actor(),
        )
    except ConsoleError as exc:
        return _refused(exc, "console.players", _anchor="last-words")
    if abandon:
        flash(f"{character}放弃遗言", "ok")
    elif lines:
        flash(f"已记录{character}的遗言", "ok")
    else:
        flash(f"已记录{character}的遗言，将在下一个游戏日开始时公示", "ok")
    for line in lines:
        flash(f"公示：{line}", "info")
    return _back("console.players")


# ---------------------------------------------------------------------------------------------
# Posts


@console_bp.get("/posts")
@director_required
def posts() -> str:
    """Every post of the game in thread order, by day, paged; filters: character, day, flagged."""

    def build(session: Any, row: Any, game: Any) -> dict[str, Any]:
        filters, notices = posts_page.post_filters(request.args, game.characters)
        page = posts_page.page_number(request.args.get("page"))
        return {**posts_page.posts_page(session, row, game, filters, page), "notices": notices}

    return _page("console/posts.html", _build=build)


# ---------------------------------------------------------------------------------------------
# Day and night


@console_bp.get("/day")
@director_required
def day_night() -> str:
    """Tally, 关门, night actions and private notices, the close's confirmation step (``confirm``
    = day / night), the 公示 items to paste."""
    confirm = request.args.get("confirm")
    accelerated = request.args.get("accelerated") == "1"
    return _page(
        "console/day.html",
        _build=lambda session, row, game: day.day_and_night(
            session,
            row,
            game,
            confirm=confirm if confirm in ("day", "night") else None,
            accelerated=accelerated,
        ),
        confirm_review=request.args.get("review") == "1",
        confirm_accelerated=accelerated,
    )


@console_bp.post("/day/close")
@director_required
def close_day() -> BaseResponse:
    """关门 once confirmed: tally, vote result, the 潜水/未投票 yellows the director kept."""
    if request.form.get("confirmed") != "1":
        args = {"confirm": "day", "accelerated": request.form.get("accelerated") == "1" and "1"}
        args["review"] = request.form.get("review") == "1" and "1"
        return _back("console.day_night", **{k: v for k, v in args.items() if v}, _anchor="confirm")
    given = set(request.form.getlist("give"))
    reviewed = set(request.form.getlist("reviewed"))
    try:
        result = day.close_current_day(
            _director_game(),
            accelerated=request.form.get("accelerated") == "1",
            review=request.form.get("review") == "1",
            skip=reviewed - given,
            actor_label=_actor(),
        )
    except ConsoleError as exc:
        return _refused(exc, "console.day_night")
    closed = result["closed"]["day"]
    cards, queued = len(result["cards"]), len(result["suggestions"])
    message = f"第{closed}天已关门：固定判罚{cards}张，待审{queued}条"
    if result["skipped"]:
        message += f"；未给：{'、'.join(result['skipped'])}"
    flash(message, "ok")
    for ejected in result["ejected"]:
        for line in ejected.get("announcements", []):
            flash(f"公示：{line}", "red")
    return _back("console.day_night")


@console_bp.post("/day/schedule")
@director_required
def schedule_close() -> BaseResponse:
    """The day's 关门 time (and the weekend extension where the seed gives one)."""
    game_id = _director_game()
    try:
        with service.reading(game_id) as (_session, _row, game):
            current = game
        moment = day.schedule_close(
            game_id,
            current,
            request.form.get("closes_at", ""),
            weekend=request.form.get("weekend") == "1",
            actor_label=_actor(),
        )
    except ConsoleError as exc:
        return _refused(exc, "console.day_night")
    flash(f"关门时间：{service.local_time(moment, '%Y-%m-%d %H:%M')}", "ok")
    return _back("console.day_night")


@console_bp.post("/night/close")
@director_required
def close_night() -> BaseResponse:
    """End the night and resolve it, once confirmed."""
    if request.form.get("confirmed") != "1":
        return _back("console.day_night", confirm="night", _anchor="confirm")
    try:
        lines = day.close_current_night(_director_game(), actor_label=_actor())
    except ConsoleError as exc:
        return _refused(exc, "console.day_night")
    return _done("夜晚已结算", lines)


@console_bp.post("/action")
@director_required
def night_action() -> BaseResponse:
    """A night skill or a required decision entered by the director: a target, and what the
    row asks for besides (a reason, the 同意/不同意 button pressed, a plan's selects)."""
    try:
        lines = night.apply_skill(
            _director_game(),
            actor=request.form.get("actor", ""),
            skill=request.form.get("skill", ""),
            target=_chosen_target(),
            reason=optional_text(request.form.get("reason")),
            choice=skill_choice(request.form.get("choice"), request.form.getlist("plan")),
            actor_label=_actor(),
        )
    except (FormInputError, ConsoleError) as exc:
        return _refused(exc, "console.day_night")
    return _done(f"已记录：{request.form.get('actor', '')}的行动", lines)


def _chosen_target() -> str | None:
    """The target select's value: 「请选择」 left as it is is refused, 放弃 is None."""
    raw = request.form.get("target")
    if raw == PICK:
        raise FormInputError("请选择目标（或选择“不选择目标 / 放弃”）")
    return optional_target(raw)


@console_bp.post("/action/withdraw")
@director_required
def withdraw_action() -> BaseResponse:
    """Correct (``correct`` = 1, with the new target) or withdraw an entry made tonight."""
    actor = request.form.get("actor", "")
    correct = request.form.get("correct") == "1"
    try:
        night.withdraw_skill(
            _director_game(),
            actor=actor,
            skill=request.form.get("skill", ""),
            target=_chosen_target() if correct else None,
            reason=optional_text(request.form.get("reason")) if correct else None,
            correct=correct,
            actor_label=_actor(),
        )
    except (FormInputError, ConsoleError) as exc:
        return _refused(exc, "console.day_night")
    flash(f"已更正：{actor}的行动" if correct else f"已撤回：{actor}的行动", "ok")
    return _back("console.day_night")


@console_bp.post("/deadline")
@director_required
def deadline() -> BaseResponse:
    """The deadline passed: pending choices and decisions take their defaults."""
    try:
        lines = day.deadline_passed(_director_game(), actor_label=_actor())
    except ConsoleError as exc:
        return _refused(exc, "console.day_night")
    return _done("时限已到：未做出的选择按规则默认处理", lines)


@console_bp.post("/proxy")
@director_required
def proxy() -> BaseResponse:
    """代投 for a voter who asked the director (asked now: the 代投 deadline applies)."""
    voter = request.form.get("voter", "")
    try:
        if not voter:
            raise ConsoleError("请选择代投的角色")
        target = request.form.get("target")
        if target == PICK:
            raise ConsoleError("请选择投票对象（或弃权）")
        day.proxy_vote(
            _director_game(),
            voter=voter,
            target=optional_target(target),
            actor_label=_actor(),
        )
    except ConsoleError as exc:
        return _refused(exc, "console.day_night")
    flash(f"已代投：{voter}", "ok")
    return _back("console.day_night")


@console_bp.post("/announcements/<position>")
@director_required
def mark_announcement(position: str) -> BaseResponse:
    """「已发布」: the director posted this 公示 (``undo`` = 1 takes the mark back)."""
    undo = request.form.get("undo") == "1"
    try:
        first = announcements.mark_posted(
            _director_game(),
            service.ensure_int(position, "公示编号"),
            posted=not undo,
            actor_label=_actor(),
        )
    except ConsoleError as exc:
        return _refused(exc, "console.day_night")
    flash(f"已取消已发布标记：{first}" if undo else f"已标记为已发布：{first}", "ok")
    return _back("console.day_night", _anchor="announcements")


# ---------------------------------------------------------------------------------------------
# Timeline


@console_bp.get("/timeline")
@director_required
def timeline() -> str:
    """The game day by day, with the posts-and-cards chart."""

    def build(session: Any, row: Any, game: Any) -> dict[str, Any]:
        data = timeline_page.timeline(session, row, game)
        chart = data["chart"]
        data["svg"] = activity_chart(
            chart["characters"],
            chart["days"],
            chart["posts"],
            chart["cards"],
            threshold=chart["threshold"],
            out=chart["out"],
        )
        return data

    return _page("console/timeline.html", _build=build)


# ---------------------------------------------------------------------------------------------
# Public: verify a finished game's randomness


@console_bp.route("/verify", methods=["GET", "POST"])
def verify() -> str | tuple[str, int]:
    """公开验证: recompute a finished game's deal and random picks from its published record,
    loaded by game id from this service (``?game=``) or pasted as JSON (any service's)."""
    game_id = request.values.get("game", "").strip()
    text = request.form.get("record", "")
    record: dict[str, Any] | None = None
    error = None
    try:
        if request.method == "POST" and text.strip():
            record = verification.record_from_json(text)
        elif game_id:
            with service.reading(game_id) as (_session, _row, game):
                found = game.public_view().verification
            if found is None:
                raise verification.RecordError("这局游戏尚未结束：秘密和种子要到游戏结束时才公开")
            record = dict(found)
            text = json.dumps(record, ensure_ascii=False, indent=1)
    except (ConsoleError, verification.RecordError) as exc:
        error = exc.message if isinstance(exc, ConsoleError) else str(exc)
    report = verification.verify_record(record) if record is not None and not error else None
    page = render_template(
        "console/verify.html", game=None, game_id=game_id, text=text, report=report, error=error
    )
    return (page, 400) if error else page


def page_not_found() -> tuple[str, int]:
    """The console's own 404 page."""
    return render_template("console/error.html", game=None, message="页面不存在"), 404


__all__ = ["Response", "console_bp"]
