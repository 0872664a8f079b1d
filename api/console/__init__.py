"""The director console (导演控制台): server-rendered pages at ``/`` on the referee service.

The service's app factory calls :func:`init_app` (``api.app._init_console``); that registers
:data:`console_bp` and the console's defences. Pages: ``/login``, ``/new``, ``/queue``,
``/posts``, ``/players``, ``/day``, ``/timeline``, ``/deal``, ``/registry`` (玩家档案). See
``docs/console.md``.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, render_template, request
from flask_wtf.csrf import ValidationError, generate_csrf, validate_csrf
from werkzeug.exceptions import HTTPException

from api.console import registry_views  # noqa: F401  (its pages join console_bp)
from api.console.labels import colour_label
from api.console.security import add_page_headers, configure_app
from api.console.service import ConsoleError, game_zone_name
from api.console.sessions import current_director
from api.console.views import console_bp
from api.errors import ApiError

__all__ = ["console_bp", "init_app", "init_console"]

log = logging.getLogger(__name__)

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


@console_bp.before_request
def _check_csrf() -> tuple[str, int] | None:
    """Every console form must carry the session's CSRF token."""
    if request.method not in UNSAFE_METHODS:
        return None
    return csrf_refusal()


def csrf_refusal() -> tuple[str, int] | None:
    """The error page (400) for a form without the session's CSRF token, or None when it has it;
    every blueprint serving the console's forms checks with this."""
    try:
        validate_csrf(request.form.get("csrf_token"))
    except ValidationError:
        message = "表单校验失败（缺少或过期的CSRF令牌），请刷新页面后重试"
        return render_template("console/error.html", game=None, message=message), 400
    return None


@console_bp.after_request
def _headers(response: Response) -> Response:
    return add_page_headers(response)


@console_bp.app_template_global()
def console_csrf_token() -> str:
    """The CSRF token for console forms."""
    return generate_csrf()


@console_bp.app_template_global("colour_label")
def _colour_label(colour: str) -> str:
    """A card colour in the seeds' words, for templates."""
    return colour_label(colour)


@console_bp.app_template_global("game_zone_name")
def _game_zone_name() -> str:
    """The zone every console time is shown in, named in the footer."""
    return game_zone_name()


@console_bp.context_processor
def _context() -> dict[str, Any]:
    return {"director": current_director(), "csrf_token": generate_csrf}


@console_bp.errorhandler(ConsoleError)
def _console_error(exc: ConsoleError) -> tuple[str, int]:
    return render_template("console/error.html", game=None, message=exc.message), 400


@console_bp.errorhandler(ApiError)
def _api_error(exc: ApiError) -> tuple[str, int, dict[str, str]]:
    page = render_template("console/error.html", game=None, message=exc.message)
    # a rate limit's answer says when to come back, as the API's does
    retry = exc.extra.get("retry_after")
    return page, exc.status, {"Retry-After": str(retry)} if retry is not None else {}


@console_bp.errorhandler(HTTPException)
def _http_error(exc: HTTPException) -> tuple[str, int]:
    status = exc.code or 500
    message = {404: "页面不存在", 405: "不支持的请求方式", 413: "提交的内容过大"}.get(
        status, exc.name
    )
    return render_template("console/error.html", game=None, message=message), status


@console_bp.errorhandler(Exception)
def _unexpected(exc: Exception) -> tuple[str, int]:
    log.exception("console error")
    message = "内部错误，没有做任何更改"
    return render_template("console/error.html", game=None, message=message), 500


def wants_page() -> bool:
    """Whether the failed request is a person's (a browser asking for HTML) outside the JSON
    API: a mistyped console address gets the console's Chinese page, a program gets JSON."""
    if request.path.startswith("/api/") or request.path == "/api":
        return False
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return best == "text/html"


def _page_for_people(app: Flask) -> None:
    """Outside the blueprint (an address no console route matches), answer a browser with the
    console's error page and leave every other client the API's JSON handler."""
    handlers = app.error_handler_spec.setdefault(None, {}).setdefault(None, {})
    json_handler = handlers.get(HTTPException)

    def _app_http_error(exc: HTTPException) -> Any:
        if json_handler is not None and not wants_page():
            return json_handler(exc)
        return _http_error(exc)

    app.register_error_handler(HTTPException, _app_http_error)


def init_app(app: Flask) -> None:
    """Register the console on ``app`` (idempotent)."""
    if "console" in app.blueprints:
        return
    configure_app(app)
    app.register_blueprint(console_bp)
    _page_for_people(app)


#: The name the brief used; same function.
init_console = init_app
