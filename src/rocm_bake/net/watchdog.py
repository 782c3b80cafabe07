"""A watchdog on the real clock for one request: at its window's end the window is marked
expired and the request's connections shut, so a read blocked on a server that stalls (or
trickles its headers a byte at a time, which restarts a per-read socket timeout each time)
returns at once and the reader reports the deadline."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

from rocm_bake.net.body import Window


class Sockets:
    """The sockets a client opened (a redirect opens another), to shut at a deadline."""

    def __init__(self) -> None:
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        self.shut = False

    def add(self, sock: socket.socket) -> None:
        with self._lock:
            self._open = [s for s in self._open if s.fileno() != -1]
            self._open.append(sock)
            if self.shut:
                _shutdown(sock)

    def shut_all(self) -> None:
        with self._lock:
            self.shut = True
            for sock in self._open:
                _shutdown(sock)

    def reopen(self) -> None:
        """A new request: the sockets shut before stay shut, new ones are left open."""
        with self._lock:
            self.shut = False


def _shutdown(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


@contextlib.contextmanager
def watch(window: Window, sockets: Sockets) -> Iterator[None]:
    """At the window's end (real time), the window expired and ``sockets`` shut."""

    def fire() -> None:
        window.expire()
        sockets.shut_all()

    sockets.reopen()
    timer = threading.Timer(max(0.0, window.left()), fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
