"""Pages on 127.0.0.1: one GET handler over a lookup from a path to (body, content type), every
answer uncached (an open page re-reads what a run in flight appends). The reports server
(``reports/serve.py``) and the perf report (``perf/report.py``) serve through it. A page that
cannot be made from its input (a bad record: ``RocmBakeError``) is a 500 whose body is that
one-line error, never a dropped connection."""

from __future__ import annotations

from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from rocm_bake.core.errors import RocmBakeError

Page = tuple[bytes, str]
"""(body, content type)."""


def server(get: Callable[[str], Page | None], port: int) -> ThreadingHTTPServer:
    """A server on 127.0.0.1:``port`` (0: any free port) that answers a GET with ``get(path)``
    (the query string dropped; None is a 404); call ``serve_forever``."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            try:
                found = get(self.path.split("?")[0])
            except RocmBakeError as exc:
                self._answer(500, f"error: {exc}\n".encode(), "text/plain; charset=utf-8")
                return
            if found is None:
                self.send_error(404)
                return
            self._answer(200, *found)

        def _answer(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return

    return ThreadingHTTPServer(("127.0.0.1", port), Handler)
