"""A password-protected git mirror on 127.0.0.1: ``git http-backend`` (smart HTTP, as CGI)
behind a small ``http.server`` that demands Basic authorization, and a plain static server
of the same repositories (git's dumb HTTP protocol)."""

from __future__ import annotations

import base64
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.drift.gitworld import GIT_ENV


class _Backend(BaseHTTPRequestHandler):
    root: Path
    credentials: str          # "user:password"
    seen: list[str]           # the Authorization header of every request (None: "")
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._cgi(b"")

    def do_POST(self) -> None:
        self._cgi(self.rfile.read(int(self.headers.get("Content-Length", "0"))))

    def _cgi(self, body: bytes) -> None:
        given = self.headers.get("Authorization", "")
        self.seen.append(given)
        wanted = "Basic " + base64.b64encode(self.credentials.encode()).decode()
        if given != wanted:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="mirror"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        path, _, query = self.path.partition("?")
        env = {**GIT_ENV, "GIT_PROJECT_ROOT": str(self.root), "GIT_HTTP_EXPORT_ALL": "1",
               "REQUEST_METHOD": self.command, "PATH_INFO": path, "QUERY_STRING": query,
               "CONTENT_TYPE": self.headers.get("Content-Type", ""),
               "CONTENT_LENGTH": str(len(body)), "REMOTE_USER": "ci",
               "REMOTE_ADDR": "127.0.0.1",
               "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
               "GIT_PROTOCOL": self.headers.get("Git-Protocol", "")}
        out = subprocess.run(["git", "http-backend"], input=body, env=env,
                             capture_output=True, check=False).stdout
        head, _, payload = out.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for line in head.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@contextmanager
def _serving(handler: Any) -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextmanager
def smart(root: Path, credentials: str, seen: list[str]) -> Iterator[str]:
    """Yields ``HOST:PORT`` of git's smart HTTP for every repository under ``root``, for
    requests that carry ``credentials`` ("user:password") as Basic authorization."""
    handler = type("Backend", (_Backend,), {"root": root, "credentials": credentials,
                                            "seen": seen})
    with _serving(handler) as where:
        yield where


class _Static(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def dumb(root: Path) -> Iterator[str]:
    """Yields ``HOST:PORT`` of a static file server of ``root`` (git's dumb HTTP)."""
    with _serving(partial(_Static, directory=str(root))) as where:
        yield where
