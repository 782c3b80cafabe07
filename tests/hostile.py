"""Hostile upstreams on 127.0.0.1 (issue 41): a body that trickles in, one that never ends, a
small gzip'd tar holding a huge member, an answer that names another host. Each bounds itself
(a trickle sends a fixed number of bytes, an endless body stops at ``limit``), so a client
without bounds fails its test instead of hanging it; time is a ``ServerClock`` the server
moves with every byte it sends, so a test never races the real clock."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import tarfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler

from tests import loopback

EPOCH = 1_767_225_600.0
MB = 1024 * 1024


class ServerClock:
    """Time that moves only when the server sends: ``step`` seconds per trickled byte."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._now = 1000.0

    def time(self) -> float:
        return EPOCH + self.monotonic()

    def monotonic(self) -> float:
        with self._lock:
            return self._now

    def sleep(self, seconds: float) -> None:
        self.advance(seconds)

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += seconds


Answer = Callable[[BaseHTTPRequestHandler, "Server"], None]


@dataclass
class Server:
    """Routes (path -> answer) and what was asked: each request's path and headers, and the
    bytes each endless answer sent before its client hung up."""

    clock: ServerClock = field(default_factory=ServerClock)
    routes: dict[str, Answer] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    sent: list[int] = field(default_factory=list)
    url: str = ""


def send(handler: BaseHTTPRequestHandler, body: bytes, kind: str = "application/json",
         status: int = 200) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", kind)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def body(data: bytes, kind: str = "application/json") -> Answer:
    return lambda handler, _: send(handler, data, kind)


def trickle(data: bytes, step: float = 0.5, kind: str = "application/octet-stream") -> Answer:
    """``data`` one byte at a time (its full length declared), the clock ``step`` seconds on
    after each: 200 bytes are 100 s."""

    def answer(handler: BaseHTTPRequestHandler, server: Server) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        with contextlib.suppress(OSError):
            for byte in data:
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
                server.clock.advance(step)

    return answer


def endless(limit: int = 64 * MB, kind: str = "application/octet-stream") -> Answer:
    """A body without a length that goes on until the client hangs up (or ``limit``)."""

    def answer(handler: BaseHTTPRequestHandler, server: Server) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", kind)
        handler.end_headers()
        chunk = b"x" * 65536
        sent = 0
        with contextlib.suppress(OSError):
            while sent < limit:
                handler.wfile.write(chunk)
                sent += len(chunk)
        server.sent.append(sent)

    return answer


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: object) -> None:
            pass

        def do_GET(self) -> None:
            server.requests.append((self.path, dict(self.headers.items())))
            answer = server.routes.get(self.path.split("?", 1)[0])
            if answer is None:
                send(self, b'{"errors": [{"message": "not here"}]}', status=404)
                return
            answer(self, server)

    return Handler


@contextlib.contextmanager
def serving(server: Server | None = None) -> Iterator[Server]:
    """``server`` on an ephemeral loopback port (``server.url``) for the ``with`` block."""
    server = server or Server()
    with loopback.http_server(_handler(server)) as url:
        server.url = url
        yield server


def bomb(top: str, member: str = "big.bin", size: int = 2048 * MB) -> bytes:
    """A gzip'd tar whose one member ``top/member`` is ``size`` zero bytes: gzip members
    concatenated (a valid gzip stream), one per MB of zeros, so 2 GiB takes about 2 MB and is
    built without ever holding it."""
    info = tarfile.TarInfo(f"{top}/{member}")
    info.size = size
    header = info.tobuf(tarfile.GNU_FORMAT)
    zeros = gzip.compress(bytes(MB), compresslevel=9, mtime=0)
    whole, rest = divmod(size, MB)
    padding = (-size) % 512
    return b"".join([gzip.compress(header, mtime=0), zeros * whole,
                     gzip.compress(bytes(rest + padding + 1024), mtime=0)])


def sdist(top: str, members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def pypi_json(project: str, version: str, data: bytes, url: str) -> bytes:
    """PyPI's JSON of ``project``: release ``version`` with its sdist ``data`` at ``url``."""
    entry = {"filename": f"{project}-{version}.tar.gz", "url": url,
             "digests": {"sha256": hashlib.sha256(data).hexdigest()}}
    return json.dumps({"info": {"version": version}, "releases": {version: [entry]}}).encode()


def trickled_headers(pause: float = 0.1, count: int = 6000) -> Answer:
    """A status line, then headers a byte every ``pause`` seconds of real time (``count``
    bytes: 10 min, ended sooner by the client hanging up), each byte well within a per-read
    timeout: only a deadline for the whole request ends it. (The one hostile answer paced by
    the real clock: a watchdog is. The server outlasts any deadline a test sets, so the test
    proves the watchdog fired, never which of two clocks ran out first.)"""

    def answer(handler: BaseHTTPRequestHandler, _: Server) -> None:
        gap = threading.Event()
        with contextlib.suppress(OSError):
            handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
            handler.wfile.flush()
            for _byte in range(count):
                handler.wfile.write(b"X")
                handler.wfile.flush()
                gap.wait(pause)

    return answer
