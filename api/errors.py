"""JSON errors for every rejection. A rejected request never changes anything.

Every error body has the shape ``{"error": {"code": ..., "message": ..., ...}}``; ``rule`` names the
game rule for 409s, ``path`` the offending field for 400s.
"""

# Repeated on purpose: each error is declared the same way (a docstring, its HTTP status and its
# stable code), one class per refusal the API documents.

from __future__ import annotations

from typing import Any

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException


class ApiError(Exception):
    """Base of the service's HTTP errors; ``status`` is the HTTP status code."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra

    def body(self) -> dict[str, Any]:
        """The JSON error body."""
        return {"error": {"code": self.code, "message": self.message, **self.extra}}


class BadRequest(ApiError):
    """Malformed JSON or a body that does not fit the endpoint's schema."""

    status = 400
    code = "bad_request"


class Unauthorized(ApiError):
    """No token, or a token the service does not know."""

    status = 401
    code = "unauthorized"


class TokenRevoked(Unauthorized):
    """A token the director (or the operator) revoked: refused everywhere, for good."""

    code = "token_revoked"


class Forbidden(ApiError):
    """A valid token that may not do this (wrong game, or a player token on a director endpoint)."""

    status = 403
    code = "forbidden"


class NotFound(ApiError):
    """An unknown game, suggestion or character."""

    status = 404
    code = "not_found"


class Conflict(ApiError):
    """The request is well-formed but the rules (or the current state) forbid it."""

    status = 409
    code = "conflict"


class Unprocessable(ApiError):
    """A well-formed request that contradicts an earlier one (an idempotency key reused with
    another body)."""

    status = 422
    code = "unprocessable"


class RateLimited(ApiError):
    """Too many posting requests for this token in the current window."""

    status = 429
    code = "rate_limited"


class TooLarge(ApiError):
    """A body or a batch over the documented limit."""

    status = 413
    code = "too_large"


class UriTooLong(ApiError):
    """A request line (path and query) over the documented limit."""

    status = 414
    code = "uri_too_long"


class UnsupportedMediaType(ApiError):
    """A body that is not ``application/json`` where JSON is expected."""

    status = 415
    code = "unsupported_media_type"


def too_large_message(limit: int | None) -> str:
    """What a body over ``MAX_CONTENT_LENGTH`` is told."""
    return (
        f"请求正文超过上限（{limit}字节），未作任何处理" if limit else "请求正文过大，未作任何处理"
    )


#: Chinese messages for the errors Flask and Werkzeug raise themselves (routing, body reading)
_HTTP_MESSAGES = {
    400: "请求格式错误，未作任何处理",
    404: "没有这个网址：{path}",
    405: "此网址不接受 {method} 请求（可用：{allowed}）",
    408: "请求超时，未作任何处理",
    414: "请求网址过长，未作任何处理",
    415: "请求正文须为 application/json",
    431: "请求头过大，未作任何处理",
}


def _json_error(status: int, code: str, message: str, **extra: Any) -> tuple[Response, int]:
    return jsonify({"error": {"code": code, "message": message, **extra}}), status


def register_error_handlers(app: Flask) -> None:
    """Make every error, including Flask's own 404/405/413, a JSON body."""

    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError) -> tuple[Response, int]:
        response = jsonify(exc.body())
        if isinstance(exc, TokenRevoked):
            # RFC 6750 §3.1 names this case: the token was revoked (error="invalid_token").
            response.headers["WWW-Authenticate"] = 'Bearer realm="bansha", error="invalid_token"'
        elif isinstance(exc, Unauthorized):
            response.headers["WWW-Authenticate"] = 'Bearer realm="bansha"'
        if isinstance(exc, RateLimited) and "retry_after" in exc.extra:
            response.headers["Retry-After"] = str(exc.extra["retry_after"])
        return response, exc.status

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> tuple[Response, int]:
        status = exc.code or 500
        codes = {
            404: "not_found",
            405: "method_not_allowed",
            413: "too_large",
            414: "uri_too_long",
            415: "unsupported_media_type",
        }
        allowed = sorted(getattr(exc, "valid_methods", None) or ())
        if status == 413:
            message = too_large_message(app.config.get("MAX_CONTENT_LENGTH"))
        else:
            message = _HTTP_MESSAGES.get(status, f"请求无法处理（HTTP {status}）").format(
                path=request.path, method=request.method, allowed=", ".join(allowed)
            )
        response, status = _json_error(
            status, codes.get(status, exc.name.lower().replace(" ", "_")), message
        )
        if allowed:
            # RFC 9110 §15.5.6: a 405 must say which methods the resource supports.
            response.headers["Allow"] = ", ".join(allowed)
        return response, status

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> tuple[Response, int]:
        app.logger.exception("unhandled error")
        return _json_error(500, "internal_error", "internal error; nothing was changed")
