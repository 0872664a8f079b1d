"""Console pages for forum intake (论坛导入, 手动录入), the roster JSON the follower and the
userscript read, and the userscript itself (``/userscript/bansha.user.js``).

Forms need the logged-in director and the session's CSRF token, like every console form; the
roster needs the director token in the Authorization header, like the JSON API. The userscript
is public: it holds the service's address and the game id, never a token.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_wtf.csrf import generate_csrf
from werkzeug.wrappers import Response as BaseResponse

from api.auth import DIRECTOR, identify, require
from api.console import csrf_refusal, service
from api.console.security import add_page_headers
from api.console.sessions import current_director, director_required
from api.database import db
from api.intake import (
    THREAD_CHOICES,
    IntakeError,
    game_facts,
    import_page,
    manual_post_id,
    map_account,
    submit_posts,
)
from forum.errors import ForumPageError
from forum.page import MAX_PAGE_BYTES, read_page
from forum.text import emoticon_names
from forum.times import DEFAULT_ZONE, zone

bp = Blueprint("intake", __name__, template_folder="templates")
_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
USERSCRIPT = Path(__file__).with_name("userscript") / "bansha.user.js"


@bp.before_request
def _check_csrf() -> tuple[str, int] | None:
    if request.method != "POST" or request.path.startswith("/forum/api/"):
        return None
    return csrf_refusal()


@bp.errorhandler(413)
def _too_large(_exc: Exception) -> tuple[str, int]:
    limit = (current_app.config.get("MAX_CONTENT_LENGTH") or 0) // 1024 // 1024
    message = f"上传的文件超过 {limit} MB：这不像是一页帖子（请只保存帖子的一页），未导入任何帖子"
    return render_template("console/error.html", game=None, message=message), 413


@bp.after_request
def _headers(response: Response) -> Response:
    return add_page_headers(response)


@bp.context_processor
def _context() -> dict[str, Any]:
    return {"director": current_director(), "csrf_token": generate_csrf}


def _game_id() -> str:
    director = current_director()
    assert director is not None  # @director_required
    return director.game_id


def _actor() -> str:
    director = current_director()
    return director.actor if director else "director"


def _render(template: str, status: int = 200, **context: Any) -> tuple[str, int]:
    game_id = _game_id()
    with service.reading(game_id) as (session, row, game):
        header = service.summary(session, row, game)
        characters = [p["character"] for p in row.players]
        day = game.state.day
    html = render_template(
        template, game=header, characters=characters, today=day, threads=THREAD_CHOICES,
        **context,
    )  # fmt: skip
    return html, status


@bp.route("/forum/import", methods=["GET", "POST"])
@director_required
def import_form() -> tuple[str, int]:
    """Upload a saved thread page; show what was added, what was there, whom to map."""
    form = {"thread": request.form.get("thread", "discussion"), "day": request.form.get("day", ""),
            "zone": request.form.get("zone", DEFAULT_ZONE)}  # fmt: skip
    if request.method == "GET":
        return _render("intake/import.html", form=form, report=None)
    upload = request.files.get("page")
    if upload is None or not upload.filename:
        flash("请选择要导入的网页文件", "error")
        return _render("intake/import.html", 400, form=form, report=None)
    data = upload.stream.read(MAX_PAGE_BYTES + 1)
    try:
        day = int(form["day"]) if form["day"].strip() else None
        page = read_page(data, form["zone"] or DEFAULT_ZONE)
        report = import_page(_game_id(), page, form["thread"], day=day, caller=None, actor=_actor())
    except ValueError as exc:
        message = exc.message if isinstance(exc, ForumPageError) else "天数必须是整数"
        flash(f"{message}（未导入任何帖子）", "error")
        return _render("intake/import.html", 400, form=form, report=None)
    except IntakeError as exc:
        flash(f"{exc.message}（未导入任何帖子）", "error")
        return _render("intake/import.html", 400, form=form, report=None)
    return _render("intake/import.html", form=form, report=report)


@bp.post("/forum/map")
@director_required
def map_form() -> BaseResponse:
    """Map a forum account to a character (it becomes one of the character's aliases)."""
    account = request.form.get("account", "")
    character = request.form.get("character", "")
    try:
        map_account(_game_id(), account, character, actor=_actor())
    except IntakeError as exc:
        flash(exc.message, "error")
    else:
        done = f"账号「{account.strip()}」已对应角色「{character}」"
        flash(f"{done}：重新导入该页即可补上其帖子", "ok")
    return redirect(url_for("intake.import_form"))


@bp.route("/forum/paste", methods=["GET", "POST"])
@director_required
def paste_form() -> tuple[str, int] | BaseResponse:
    """Enter one post by hand (a forwarded QQ message, a deleted post seen in time)."""
    form = {k: request.form.get(k, "") for k in ("author", "thread", "posted_at", "body",
                                                  "day", "reply_to", "zone")}  # fmt: skip
    if request.method == "GET":
        return _render("intake/paste.html", form=form)
    try:
        body = _pasted_post(form)
        results = submit_posts(_game_id(), [body], caller=None, actor=_actor())
    except (IntakeError, ForumPageError) as exc:
        flash(exc.message, "error")
        return _render("intake/paste.html", 400, form=form)
    result = results[0]
    if result["duplicate"]:
        flash("这条帖子之前已经录入过，没有重复录入", "info")
    else:
        count = len([f for f in result["findings"] if f["category"] != "water"])
        flash(f"已录入{form['author']}的帖子：{count} 项发现", "ok")
    return redirect(url_for("intake.paste_form"))


def _pasted_post(form: dict[str, str]) -> dict[str, Any]:
    text = form["body"].strip()
    if not text:
        raise IntakeError("帖子内容不能为空")
    if form["thread"] not in THREAD_CHOICES:
        raise IntakeError("请选择帖子类型")
    try:
        local = datetime.fromisoformat(form["posted_at"])
    except ValueError:
        raise IntakeError("请填写发帖时间（年-月-日 时:分）") from None
    moment = local if local.tzinfo else local.replace(tzinfo=zone(form["zone"] or DEFAULT_ZONE))
    facts = game_facts(_game_id())
    try:
        day = int(form["day"]) if form["day"].strip() else facts.day
    except ValueError:
        raise IntakeError("天数必须是整数") from None
    body: dict[str, Any] = {
        "forum_post_id": manual_post_id(form["author"], form["thread"], moment, text),
        "author": form["author"],
        "thread": form["thread"],
        "day": day,
        "body": text,
        "posted_at": moment.isoformat(),
    }
    if form["reply_to"].strip():
        body["reply_to"] = form["reply_to"].strip()
    return body


@bp.get("/forum/api/<game_id>/roster")
def roster(game_id: str) -> Response:
    """For the follower and the userscript (director token): today, and account -> character."""
    with db().read() as session:
        require(identify(session), game_id, DIRECTOR)
    facts = game_facts(game_id)
    accounts: dict[str, str] = {}
    for key, characters in facts.roster.names.items():
        if len(characters) == 1:
            accounts[key] = next(iter(characters))
    return jsonify(
        {
            "game_id": facts.id,
            "day": facts.day,
            "phase": facts.phase,
            "ended": facts.ended,
            "accounts": accounts,
        }
    )


@bp.get("/userscript/bansha.user.js")
def userscript() -> Response:
    """The userscript with this service's address and the game filled in (no token, ever)."""
    director = current_director()
    game_id = request.args.get("game") or (director.game_id if director else "")
    if not _GAME_ID.fullmatch(game_id):
        game_id = ""  # only a plausible id is written into the script
    script = USERSCRIPT.read_text(encoding="utf-8")
    service_url = request.host_url.rstrip("/")
    filled = (
        script.replace("__BANSHA_SERVICE__", json.dumps(service_url)[1:-1])
        .replace("__BANSHA_GAME__", json.dumps(game_id)[1:-1])
        .replace("__BANSHA_CONNECT__", request.host.split(":")[0])
        .replace("__BANSHA_EMOTICONS__", json.dumps(emoticon_names(), ensure_ascii=False))
    )
    response = Response(filled, mimetype="text/javascript")
    response.headers["Cache-Control"] = "no-store"
    return response
