"""rocm_bake.net.http on a real loopback server: gzip bodies, declared charsets, GitHub's Link
pagination, and a refused connection named in a few words."""

from __future__ import annotations

import gzip
import socket
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import pytest

from rocm_bake.net import http as httpget
from tests import loopback

BODY = "naïve café — ünïcode".encode("latin-1", "replace")


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/gzip":
            assert "gzip" in self.headers.get("Accept-Encoding", "")
            raw = gzip.compress(b'{"releases": {}}')
            self._send(raw, {"Content-Encoding": "gzip", "Content-Type": "application/json"})
        elif self.path == "/latin1":
            self._send(BODY, {"Content-Type": "text/html; charset=iso-8859-1"})
        elif self.path == "/paged":
            self._send(b"[]", {"Link": '<http://x/paged?page=3>; rel="last", '
                                       '<http://x/paged?page=2>; rel="next"'})

    def _send(self, raw: bytes, headers: dict[str, str]) -> None:
        self.send_response(200)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with loopback.http_server(Handler) as url:
        yield url


def test_a_gzip_body_is_decoded(server: str) -> None:
    assert httpget.get(f"{server}/gzip", {}, 5.0).text == '{"releases": {}}'


def test_the_declared_charset_decodes_the_body(server: str) -> None:
    assert httpget.get(f"{server}/latin1", {}, 5.0).text == BODY.decode("latin-1")


def test_the_next_page_is_read_from_the_link_header(server: str) -> None:
    assert httpget.get(f"{server}/paged", {}, 5.0).next_url == "http://x/paged?page=2"


def test_a_refused_connection_is_named() -> None:
    with socket.socket() as sock:      # a port that is bound but never listens: refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        with pytest.raises(httpget.ConnectionFailedError, match=r"^Connection refused$"):
            httpget.get(f"http://127.0.0.1:{port}/", {}, 5.0)
