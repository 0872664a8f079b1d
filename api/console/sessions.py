"""Who is using the console: one game's director, remembered in the signed session cookie.

The session holds the game id, the SHA-256 of the director token (never the token) and an
optional signature name for the audit trail. Each request re-checks the hash against the
database, so a console session can never reach another game than the token's own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from flask import flash, g, redirect, request, session, url_for

from api.actors import ActorKind, Principal, authenticated
from api.auth import hash_token
from api.console.service import game_for_director_token, token_still_valid

F = TypeVar("F", bound=Callable[..., Any])

GAME_KEY = "console_game"
TOKEN_KEY = "console_token_sha256"
NAME_KEY = "console_name"


@dataclass(frozen=True)
class Director:
    """The logged-in director: their game, and the name written in the audit trail."""

    game_id: str
    name: str

    @property
    def actor(self) -> str:
        """How decisions and actions are attributed (the API's ``director`` label plus a name)."""
        return f"director:{self.name}"[:64] if self.name else "director"


def log_in(token: str, name: str) -> str:
    """Check ``token`` and remember its game in the session; the game id."""
    game_id = game_for_director_token(token)
    session.clear()
    session[GAME_KEY] = game_id
    session[TOKEN_KEY] = hash_token(token.strip())
    session[NAME_KEY] = name.strip()[:32]
    session.permanent = False
    return game_id


def log_out() -> None:
    """Forget the game."""
    session.clear()


def current_director() -> Director | None:
    """The logged-in director, or None (a stale session is cleared)."""
    cached = g.get("console_director")
    if cached is not None:
        return cast(Director, cached)
    game_id = session.get(GAME_KEY)
    digest = session.get(TOKEN_KEY)
    if not isinstance(game_id, str) or not isinstance(digest, str):
        return None
    if not token_still_valid(game_id, digest):
        session.clear()
        return None
    director = Director(game_id, str(session.get(NAME_KEY) or ""))
    g.console_director = director
    authenticated(Principal(ActorKind.DIRECTOR, token_hash=digest))
    return director


def director_required(view: F) -> F:
    """Redirect to the login page unless a director is logged in."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if current_director() is None:
            if request.method == "GET":
                flash("请先用导演令牌登录", "info")
            return redirect(url_for("console.login"))
        return view(*args, **kwargs)

    return cast(F, wrapper)
