"""Run a Flask app on 127.0.0.1 in a background thread (for screenshots and browser tests).

>>> from flask import Flask
>>> app = Flask("demo")
>>> app.add_url_rule("/", "index", lambda: "ok")
>>> with LiveServer(app) as server:
...     import urllib.request
...     urllib.request.urlopen(server.url + "/").read()
b'ok'
"""

from __future__ import annotations

import threading
from types import TracebackType

from flask import Flask
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server


class _QuietHandler(WSGIRequestHandler):
    """No access log on stderr (test and screenshot output stays readable)."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        return None


class LiveServer:
    """``with LiveServer(app) as s: ... s.url ...`` — a threaded werkzeug server on a free port."""

    def __init__(self, app: Flask, host: str = "127.0.0.1") -> None:
        self.app = app
        self.host = host
        self._server: BaseWSGIServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:53211``."""
        assert self._server is not None, "server not started"
        return f"http://{self.host}:{self._server.server_port}"

    def start(self) -> LiveServer:
        """Bind a free port and serve in a daemon thread."""
        self._server = make_server(
            self.host, 0, self.app, threaded=True, request_handler=_QuietHandler
        )
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and wait for the thread."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
