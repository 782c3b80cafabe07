"""The rehearsal's stand-in world on 127.0.0.1: one HTTP server that answers for PyPI (the
mirror's PEP 503 pages, ``/simple/``), for the locked files (``/files/<sha256>/<name>``, from
the content-addressed cache), for GitHub (``/git/<repo>.git``: bare repositories over git's
"dumb" HTTP protocol) and for the other downloads (``/downloads/...``).  The builds reach it
with ``RUN`` on the host's network (the rehearsal's overlay bake file)."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from rocm_bake_checks.rehearse import mirror

_FILE = re.compile(r"^/files/([0-9a-f]{64})/[^/]+$")


@dataclass(frozen=True)
class World:
    root: Path
    url: str      # http://127.0.0.1:PORT


def _handler(root: Path, cache: Path, log: list[str]) -> type[SimpleHTTPRequestHandler]:
    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(root), **kwargs)

        def translate_path(self, path: str) -> str:
            match = _FILE.match(re.split(r"[?#]", path, maxsplit=1)[0])
            if match:
                return str(mirror.cached(cache, match.group(1)))
            return super().translate_path(path)

        def send_head(self) -> Any:
            answer = super().send_head()
            if answer is None:
                log.append(f"{HTTPStatus.NOT_FOUND.value} {self.path}")
            return answer

        def log_message(self, format: str, *args: Any) -> None:
            return None

    return Handler


@contextmanager
def serving(root: Path, cache: Path, port: int = 0) -> Iterator[tuple[World, list[str]]]:
    """The world served from ``root`` until the block ends; the list collects the paths it
    could not answer (a build that asked for something the world lacks)."""
    missed: list[str] = []
    server = ThreadingHTTPServer(("127.0.0.1", port), _handler(root, cache, missed))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="rehearsal-world", daemon=True)
    thread.start()
    try:
        yield World(root, f"http://127.0.0.1:{server.server_address[1]}"), missed
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
