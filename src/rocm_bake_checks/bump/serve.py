"""The release's own files on 127.0.0.1 while the conformance snapshot is recorded: vLLM's
files at the new VLLM_COMMIT are answered from what the bump read (the sdist, or git at the
tag), under the addresses lint's snapshot keys name (``--rewrite`` of
``https://raw.githubusercontent.com/vllm-project/vllm/<commit>/``), so the snapshot holds the
release's files even where GitHub cannot be reached."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from rocm_bake_checks.bump.recipe import Files, RecipeError

RAW = "https://raw.githubusercontent.com/vllm-project/vllm/"


def _handler(files: Files, commit: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            prefix = f"/{commit}/"
            try:
                text = files.text(self.path[len(prefix):]) if self.path.startswith(prefix) \
                    else None
            except RecipeError as exc:   # a file over its cap, git failing: the asker's 502
                self.send_error(502, explain=str(exc))
                return
            if text is None:
                self.send_error(404)
                return
            body = text.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@contextlib.contextmanager
def release_files(files: Files, commit: str) -> Iterator[str]:
    """Serve ``files`` as vLLM's raw files at ``commit``; yields the ``--rewrite`` for them."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(files, commit))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"{RAW}{commit}/=http://127.0.0.1:{server.server_address[1]}/{commit}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
