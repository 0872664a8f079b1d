"""What every request must pass before the service does any work for it.

:func:`screen_request` runs before each view (``before_request``) and refuses, in this order:

1. a request line over ``MAX_URL_LENGTH`` (414);
2. a request without a token to an endpoint that needs one (401), before its body or query is
   read, so that validation tells a stranger nothing;
3. on an endpoint that takes JSON, a declared ``Content-Length`` over ``MAX_CONTENT_LENGTH`` (413,
   before a byte of the body is read; a body without a length is cut off at the limit while it is
   read) and a body that is not ``application/json`` (415: no CORS "simple request" of a foreign
   web page, whose type can only be a form or plain text, reaches a view);
4. a write over its client's rate limit (429, see :mod:`api.ratelimit`), charged here, before the
   view parses, screens, deals or locks anything. Posts are the exception: they cost one unit each,
   so :mod:`api.posts` charges them once it has counted them, still before screening.

The client is the caller's token when it sends one (a token the service knows: an unknown one is
refused with 401 here, so that made-up tokens cannot open fresh budgets), else its address. Behind
a proxy the address is the one the proxy saw (``TRUSTED_PROXIES``, see :func:`install`).
"""

from __future__ import annotations

import secrets

from flask import Flask, current_app, request
from werkzeug.middleware.proxy_fix import ProxyFix

from api.auth import bearer_token, identify_cached
from api.database import db
from api.errors import (
    TooLarge,
    Unauthorized,
    UnsupportedMediaType,
    UriTooLong,
    too_large_message,
)
from api.openapi import declared
from api.ratelimit import Budget, charge

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: the budget of each write endpoint (Flask endpoint name); every other write is Budget.WRITES
BUDGETS = {
    "games.create": Budget.GAMES,
    "console.new_game": Budget.GAMES,
    "posts.ingest": Budget.POSTS,
}
#: the configuration key holding each budget's ``(N, SECONDS)``
LIMIT_KEYS = {
    Budget.POSTS: "RATE_LIMIT_POSTS",
    Budget.GAMES: "RATE_LIMIT_GAMES",
    Budget.WRITES: "RATE_LIMIT_WRITES",
}


def install(app: Flask) -> None:
    """Screen every request of ``app``; believe ``TRUSTED_PROXIES`` proxies' X-Forwarded-For."""
    proxies = int(app.config.get("TRUSTED_PROXIES") or 0)
    if proxies:
        # Only the last `proxies` hops are believed: a client's own X-Forwarded-For comes first
        # and is ignored, so it cannot pick its rate-limit budget.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies)  # type: ignore[method-assign]
    app.before_request(screen_request)


def client_address() -> str:
    """The client's address as the rate limits key it."""
    return f"addr:{request.remote_addr or 'unknown'}"


def screen_request() -> None:
    """Refuse the current request if it breaks a limit (414, 413, 415, 429); see the module."""
    config = current_app.config
    raw = request.environ.get("RAW_URI") or request.environ.get("REQUEST_URI") or request.full_path
    if len(raw) > config["MAX_URL_LENGTH"]:
        raise UriTooLong(f"请求网址长{len(raw)}个字符，超过上限{config['MAX_URL_LENGTH']}个字符")
    if request.routing_exception is not None:
        return  # Flask answers 404/405 itself
    spec = declared(request.url_rule.rule if request.url_rule else "", request.method)
    if spec is not None and "public" not in spec.auth and bearer_token() is None:
        # Before the body or the query is looked at: a stranger learns nothing from a 400.
        raise Unauthorized("此接口需要在 Authorization 请求头中提供令牌")
    if request.method in SAFE_METHODS:
        return  # reads are not limited
    if spec is not None and spec.request is not None:
        limit = config.get("MAX_CONTENT_LENGTH")
        if limit and request.content_length is not None and request.content_length > limit:
            raise TooLarge(too_large_message(limit))
        # No body (no length, not chunked) has no type to check: the view says it is empty (400).
        has_body = bool(request.content_length or request.headers.get("Transfer-Encoding"))
        if has_body and request.mimetype != "application/json":
            given = request.mimetype or "（无）"
            raise UnsupportedMediaType(f"请求正文须为 application/json，实际为 {given}")
    budget = BUDGETS.get(request.endpoint or "", Budget.WRITES)
    if budget is Budget.POSTS:
        return  # charged per post by the view, once it has counted them
    charge(db(), budget, _client(budget), 1, config[LIMIT_KEYS[budget]])


def _client(budget: Budget) -> str:
    """Whom ``budget`` is charged to: a known token, else the address (see the module)."""
    # The admin token is no game token (it is never looked up): its holder is one client.
    admin = current_app.config.get("ADMIN_TOKEN")
    given = bearer_token()
    if admin and given and secrets.compare_digest(given.encode(), str(admin).encode()):
        return "admin"
    if budget is Budget.GAMES:
        return client_address()  # anyone else creating games is an address
    caller = identify_cached(db())
    return caller.token_hash if caller.token_hash is not None else client_address()
