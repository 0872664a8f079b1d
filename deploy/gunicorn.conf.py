"""gunicorn settings for production behind nginx (deploy/nginx.conf).

Run from the checkout: ``gunicorn -c deploy/gunicorn.conf.py``.

The service's defence against slow clients is nginx: it reads every request body completely
(``proxy_request_buffering on``) before it opens a connection to gunicorn, so a worker only ever
sees whole requests arriving at loopback speed. These settings assume that and keep what is left
small: a thread is held for the length of one whole request, never for a client's pace.

Environment (besides the service's own, see api/config.py): ``BANSHA_BIND`` (127.0.0.1:8000, the
address nginx's upstream names; never a public interface), ``BANSHA_WORKERS`` (2 per core, 2 to
8), ``BANSHA_THREADS`` (4 per worker).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from api.cli import default_workers, schema_problem
from models.database import default_database_url

wsgi_app = "api:create_app()"
bind = os.environ.get("BANSHA_BIND", "127.0.0.1:8000")
# Preloaded: the lexicons and the model load once in the master, and the workers share the pages.
preload_app = True
workers = int(os.environ.get("BANSHA_WORKERS", default_workers()))
# Threads: a worker serves several requests at once (a post waiting for SQLite's write turn does
# not hold up a view). gthread, not sync: a sync worker is tied to each connection, keep-alive
# included; gthread parks idle keep-alive connections in its poller.
worker_class = "gthread"
threads = int(os.environ.get("BANSHA_THREADS", 4))
# A worker silent this long is restarted. The largest honest request (a batch of 500 posts at the
# per-post limit) screens in well under it; nginx sends bodies whole, so no client pace counts.
timeout = 30
graceful_timeout = 30
# nginx keeps its upstream connections alive (``keepalive`` in its upstream block).
keepalive = 30
# Header limits: what nginx passes on is well inside them (its request line stops at 8 KiB).
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190
# The X-Forwarded-* headers of nginx on this host are believed (the service itself believes the
# address nginx saw only with BANSHA_TRUSTED_PROXIES=1).
forwarded_allow_ips = "127.0.0.1"
accesslog = "-"
errorlog = "-"


def on_starting(server: Any) -> None:
    """Refuse to start on a database without the current schema (``bansha db upgrade``)."""
    problem = schema_problem(default_database_url())
    if problem:
        print(f"gunicorn: {problem}", file=sys.stderr)
        sys.exit(1)


def when_ready(server: Any) -> None:
    """In the master, before any worker forks: build every screening table and warm the model."""
    from api.screening import warm

    app = server.app.wsgi()  # preloaded: the app the workers will fork with
    warm(use_classifier=bool(app.config.get("USE_CLASSIFIER", True)))


def post_fork(server: Any, worker: Any) -> None:
    """A worker must never reuse the connections the preloaded app pooled in the master."""
    app = worker.app.wsgi()
    database = app.extensions["bansha_db"]
    for engine in {database.write_engine, database.read_engine}:
        engine.dispose(close=False)
