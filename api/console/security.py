"""The console's defences: session secret, CSRF on every form, strict headers on every page.

* The session is Flask's signed cookie (HttpOnly, SameSite=Lax). It holds the game id and the
  SHA-256 of the director token, never the token itself, and every request re-checks that hash
  against the database, so deleting or rotating a token logs the console out.
* Every POST to the console carries Flask-WTF's CSRF token (checked in the blueprint's
  ``before_request``), so the JSON API, which authenticates with bearer headers and never reads
  cookies, is left alone.
* Pages are sent with a Content-Security-Policy that allows only this origin's own script and
  stylesheet: no inline script, no inline style, nothing from the network.
"""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path

from flask import Flask, Response

log = logging.getLogger(__name__)

SECRET_ENV = "BANSHA_SECRET_KEY"
SECRET_FILE = Path("var") / "console-secret"
#: set to 1 when the service is served over HTTPS: the session cookie is then never sent in clear
SECURE_COOKIE_ENV = "BANSHA_SECURE_COOKIE"

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
    )
)

PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


def secret_key(path: Path = SECRET_FILE) -> str:
    """The key that signs console sessions: ``BANSHA_SECRET_KEY``, else a key kept in ``path``.

    The file is created once (mode 0600) so that every worker on this host signs alike; several
    hosts must share ``BANSHA_SECRET_KEY``. If the file cannot be written, a per-process key is
    used and a warning logged (sessions then do not survive a restart).
    """
    from_env = os.environ.get(SECRET_ENV, "").strip()
    if from_env:
        return from_env
    try:
        return path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        pass
    except OSError as exc:
        log.warning("cannot read %s (%s); using a per-process console key", path, exc)
        return secrets.token_hex(32)
    key = secrets.token_hex(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        # Another worker created it first: use theirs.
        return path.read_text(encoding="ascii").strip()
    except OSError as exc:
        log.warning("cannot write %s (%s); using a per-process console key", path, exc)
        return key
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(key)
    return key


def configure_app(app: Flask) -> None:
    """Session settings the console needs (kept when the app already sets them)."""
    if not app.config.get("SECRET_KEY"):
        # Test apps get a throw-away key rather than writing var/console-secret.
        app.config["SECRET_KEY"] = secrets.token_hex(32) if app.testing else secret_key()
    if os.environ.get(SECURE_COOKIE_ENV, "").strip().lower() in ("1", "true", "yes"):
        app.config["SESSION_COOKIE_SECURE"] = True
    # Flask's defaults are present as keys, so "unset" means None / the stock value.
    if not app.config.get("SESSION_COOKIE_SAMESITE"):
        app.config["SESSION_COOKIE_SAMESITE"] = "Lax"
    if app.config.get("SESSION_COOKIE_NAME") in (None, "session"):
        app.config["SESSION_COOKIE_NAME"] = "bansha_console"
    app.config["SESSION_COOKIE_HTTPONLY"] = True
    # Flask-WTF CSRF tokens expire with the session rather than after an hour mid-game.
    app.config.setdefault("WTF_CSRF_TIME_LIMIT", None)


def add_page_headers(response: Response) -> Response:
    """Add the CSP and friends; pages (not static files) are also never cached."""
    for name, value in PAGE_HEADERS.items():
        response.headers.setdefault(name, value)
    if response.mimetype == "text/html":
        response.headers["Cache-Control"] = "no-store"
    return response
