"""The Flask application factory."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, jsonify

from api import guard
from api.config import load_config
from api.database import Database
from api.errors import register_error_handlers
from api.gameplay import GameCache
from api.openapi import openapi_document


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the referee service.

    ``test_config`` overrides the configuration (see :mod:`api.config`), e.g.
    ``{"DATABASE_URL": "sqlite:///tmp/x.sqlite3"}``. The schema must already exist
    (``bansha db upgrade``); set ``"CREATE_SCHEMA": True`` to run the migrations at start-up.
    """
    app = Flask(__name__, instance_relative_config=False)
    app.config.from_mapping(load_config(test_config))
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    app.json.sort_keys = False  # type: ignore[attr-defined]
    if app.config.get("CREATE_SCHEMA"):
        from models.migrate import upgrade

        upgrade(app.config["DATABASE_URL"])
    app.extensions["bansha_db"] = Database(app.config["DATABASE_URL"])
    app.extensions["bansha_games"] = GameCache(app.config.get("GAME_CACHE_SIZE", 64))
    register_error_handlers(app)
    guard.install(app)

    from api.audit_trail import bp as audit_bp
    from api.cards import bp as cards_bp
    from api.games import bp as games_bp
    from api.intake_views import bp as intake_bp
    from api.play import bp as play_bp
    from api.posts import bp as posts_bp
    from api.registry import bp as registry_bp
    from api.suggestions import bp as suggestions_bp
    from api.tokens import bp as tokens_bp

    for bp in (
        games_bp,
        posts_bp,
        suggestions_bp,
        cards_bp,
        play_bp,
        tokens_bp,
        audit_bp,
        intake_bp,
        registry_bp,
    ):
        app.register_blueprint(bp)

    @app.get("/openapi.json")
    def openapi() -> Response:
        return jsonify(openapi_document(app.config.get("MAX_CONTENT_LENGTH")))

    @app.get("/healthz")
    def healthz() -> Response:
        return jsonify({"status": "ok"})

    _init_console(app)
    if "/" not in {rule.rule for rule in app.url_map.iter_rules()}:
        # Placeholder until the director console registers its own "/".
        @app.get("/")
        def index() -> Response:
            return jsonify(
                {
                    "service": "Bansha Referee (版杀裁判)",
                    "openapi": "/openapi.json",
                    "docs": "docs/api.md",
                }
            )

    return app


def _init_console(app: Flask) -> None:
    """Let the director console (``api.console.init_app``), when installed, claim ``/``."""
    import importlib.util

    if importlib.util.find_spec("api.console") is None:
        return
    import importlib

    console = importlib.import_module("api.console")
    init_app = getattr(console, "init_app", None)
    if callable(init_app):
        init_app(app)
