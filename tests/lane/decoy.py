"""A decoy Docker engine socket: it answers ``/_ping`` as dockerd does, refuses everything
else with a message, and records every request. ``scripts/lane.sh`` puts it at
/var/run/docker.sock, in the lane's own mount namespace (an empty tmpfs over /var/run), where a
CI container sees its runner's engine: a test that reaches it is using an engine the suite
does not own."""

from __future__ import annotations

import json
import os
import socketserver
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

DEFAULT_SOCKET = Path("/var/run/docker.sock")
REFUSAL = ("this is scripts/lane.sh's decoy at /var/run/docker.sock: the tests must use the "
           "engine they start, never the machine's")


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    requests: list[str]
    lock: threading.Lock


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def _answer(self) -> None:
        agent = self.headers.get("User-Agent", "")
        with self.server.lock:
            self.server.requests.append(f"{self.command} {self.path}"
                                        + (f" ({agent})" if agent else ""))
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        if self.path.split("?")[0].rstrip("/").endswith("/_ping"):
            self._send(200, b"OK", "text/plain; charset=utf-8")
        else:
            self._send(503, json.dumps({"message": REFUSAL}).encode(), "application/json")

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        for name, value in (("Api-Version", "1.47"), ("Ostype", "linux"),
                            ("Docker-Experimental", "false"), ("Content-Type", kind),
                            ("Content-Length", str(len(body)))):
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def __getattr__(self, name: str) -> Callable[[], None]:
        if name.startswith("do_"):         # every HTTP method: do_GET, do_POST, ...
            return self._answer
        raise AttributeError(name)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve(path: Path) -> Iterator[list[str]]:
    """The decoy listening on ``path`` for the block; yields the list of requests it got
    (``METHOD PATH (User-Agent)``), filled in as they come."""
    server = _Server(str(path), _Handler)
    server.requests, server.lock = [], threading.Lock()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.requests
    finally:
        server.shutdown()
        server.server_close()
        path.unlink(missing_ok=True)


# The mount namespace scripts/lane.sh ran in, before its unshare.
MOUNTS_VARIABLE = "ROCM_BAKE_LANE_MOUNTS"


def private_mounts(env: Mapping[str, str] = os.environ) -> bool:
    """Whether this process has a mount namespace of its own (``unshare --mount`` made it):
    not the machine's, as scripts/lane.sh read it before the unshare (``MOUNTS_VARIABLE``),
    else not its parent's. A namespace that cannot be read is not known to be another."""
    try:
        outer = env.get(MOUNTS_VARIABLE) or os.readlink(f"/proc/{os.getppid()}/ns/mnt")
        return os.readlink("/proc/self/ns/mnt") != outer
    except OSError:    # a parent that is not ours to read (init, when the launcher exited)
        return False


@contextmanager
def at_default_socket() -> Iterator[list[str]]:
    """An empty tmpfs over /var/run and the decoy at /var/run/docker.sock, in this process's
    own mount namespace only (refused in the machine's)."""
    if not private_mounts():
        raise RuntimeError("refusing to mount over /var/run outside a private mount namespace "
                           "(run under unshare --mount)")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=755", "rocm-bake-lane-run",
                              str(DEFAULT_SOCKET.parent)], capture_output=True, text=True,
                             check=False)
    if mounted.returncode != 0:
        raise RuntimeError(f"cannot mount a tmpfs over {DEFAULT_SOCKET.parent} (root?): "
                           f"{mounted.stderr.strip()}")
    with serve(DEFAULT_SOCKET) as requests:
        yield requests
