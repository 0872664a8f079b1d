"""The referee service: a Flask app over :mod:`models`, :mod:`game_rules` and :mod:`moderation`.

Run it with ``bansha serve`` (Flask's server, for development and ``make run``) or in production
with ``gunicorn -w 4 'api:create_app()'``. Endpoints are documented in ``docs/api.md`` and served
as OpenAPI at ``/openapi.json``.
"""

from api.app import create_app

__all__ = ["create_app"]
