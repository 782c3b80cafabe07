"""Servers on 127.0.0.1 for the length of a ``with`` block (tests talk to nothing else),
and a WebDAV store of a test's own (scripts/webdav.sh on free ports: its access log is the
test's alone)."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import ThreadingHTTPServer
from pathlib import Path
from socketserver import BaseRequestHandler

import pytest

from tests.conftest import ROOT


@contextmanager
def http_server(handler: Callable[..., BaseRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on an ephemeral loopback port in a thread; yields the base URL (no
    trailing slash)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def start_webdav(run_dir: Path, extra: Mapping[str, str] | None = None
                 ) -> tuple[int, dict[str, str]]:
    """scripts/webdav.sh start on a port nothing listened on a moment ago (and the next one,
    its read-only server). nginx cannot take a bound socket; when someone else binds a port
    between the pick and nginx's bind, nginx refuses to start (EADDRINUSE) and a new pair is
    picked: a start that succeeded is nginx holding both ports. Returns the port and the
    environment that stops it (:func:`stop_webdav`)."""
    for _ in range(10):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        env = {**os.environ, "ROCM_BAKE_WEBDAV_PORT": str(port), **(extra or {})}
        started = subprocess.run(["bash", str(ROOT / "scripts" / "webdav.sh"), "start",
                                  str(run_dir)], env=env, capture_output=True, text=True,
                                 timeout=60, check=False)
        if started.returncode == 0:
            return port, env
        assert "Address already in use" in started.stderr, started.stderr
    pytest.fail("10 port pairs were all taken before nginx could bind them")


def stop_webdav(run_dir: Path, env: Mapping[str, str]) -> None:
    subprocess.run(["bash", str(ROOT / "scripts" / "webdav.sh"), "stop", str(run_dir)],
                   env=dict(env), capture_output=True, timeout=60, check=False)


def _nothing() -> None:
    pass


@contextmanager
def silent_server(accepted: Callable[[], None] = _nothing) -> Iterator[int]:
    """A TCP server on an ephemeral loopback port that accepts every connection and never says
    a word (``accepted`` is called once per connection taken in); yields the port.

    Its accept thread is ended before the listening socket is closed: ``shutdown`` wakes the
    blocked ``accept`` (closing the socket would not), and the thread is joined. A thread left
    blocked in ``accept`` on a closed socket outlives it: when a signal restarts that call
    (a SIGCHLD while another thread starts a process), the kernel looks its descriptor number
    up again, and that number by then names another listener of this process (a later test's
    git daemon), whose next connection the stale thread takes and drops: the client reads
    "Connection reset by peer"."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                client, _ = server.accept()
            except OSError:        # shut down: the block has ended
                return
            held.append(client)
            accepted()

    port = int(server.getsockname()[1])
    thread = threading.Thread(target=accept, name=f"silent-server-{port}", daemon=True)
    thread.start()
    try:
        yield port
    finally:
        server.shutdown(socket.SHUT_RDWR)
        thread.join()
        server.close()
        for client in held:
            client.close()
