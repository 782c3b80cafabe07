"""An HTTP server on 127.0.0.1 for the length of a ``with`` block (tests talk to nothing else)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import ThreadingHTTPServer
from socketserver import BaseRequestHandler


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
