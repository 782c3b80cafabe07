"""A gate on loopback that the test bake's RUN steps wait at (tests/fleet/bake, GATE=URL).

Each RUN step polls ``GET URL/CELL`` until it answers 200. The server records who arrived, so
the test knows, from an event and not from a sleep, that a cell's RUN step is under way; the
test then does what it must (kill a node) and opens the gate for every cell.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import TypeVar

T = TypeVar("T")


class Gate:
    def __init__(self, opens_when: Callable[[list[str]], bool] | None = None) -> None:
        """``opens_when(arrived)``: the gate opens itself at the arrival that makes it true."""
        self.arrived: list[str] = []            # cell names, in order of first arrival
        self.is_open = False
        self._opens_when = opens_when
        self._changed = threading.Condition()
        gate = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with gate._changed:
                    cell = self.path.strip("/")
                    if cell not in gate.arrived:
                        gate.arrived.append(cell)
                    if gate._opens_when is not None and gate._opens_when(gate.arrived):
                        gate.is_open = True
                    gate._changed.notify_all()
                    status = 200 if gate.is_open else 503
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def wait_for(self, found: Callable[[list[str]], T | None], timeout: float) -> T | None:
        """Wait until ``found(arrived)`` returns something, re-checked at each arrival;
        ``timeout`` is a guard against a hang only (None when it expires)."""
        result: T | None = None

        def check() -> bool:
            nonlocal result
            result = found(list(self.arrived))
            return result is not None

        with self._changed:
            self._changed.wait_for(check, timeout)
        return result

    def open(self) -> None:
        with self._changed:
            self.is_open = True
            self._changed.notify_all()

    def __enter__(self) -> Gate:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.open()
        self._server.shutdown()
        self._server.server_close()
