"""docker and ``docker buildx``, in one place: how a docker command reaches an engine (node
connection settings, TLS included), the one ``docker buildx bake`` command line, the preflight
checks, running a build (started in its own process group, or bounded by a watchdog), and
reading an image back from the engine (``docker image inspect``, ``docker image save``).

Every check fails fast with one line that says what is missing and how to get it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from packaging.version import InvalidVersion, Version

from rocm_bake import redact
from rocm_bake.errors import RocmBakeError
from rocm_bake.fleet import Node

MIN_BUILDX = Version("0.24")
INSTALL_HINT = ("install docker-buildx >= 0.24 (`sudo bash scripts/engine.sh install` fetches "
                "the docker-buildx .deb from Debian forky and installs it on bookworm, with "
                "docker.io and containerd from trixie; or a release binary in "
                "~/.docker/cli-plugins/docker-buildx)")
DOCKER_HINT = "install Docker's CLI (docker-ce-cli, or Debian's docker-cli)"
BUILDER_HINT = ("start an engine (scripts/engine.sh start) and point DOCKER_HOST or "
                "BUILDX_BUILDER at it")
_SECRET_NAME = re.compile(r"(TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|_KEY$|^AWS_)", re.I)
MASK = "****"
ADDRESS_SCHEMES = ("unix://", "tcp://", "ssh://")
# fleet.toml's TLS keys and the docker CLI flags that carry them (buildx, a CLI plugin, takes
# the same global flags, so any file names work, not only DOCKER_CERT_PATH's ca/cert/key.pem)
TLS_FLAGS = (("tls_ca", "--tlscacert"), ("tls_cert", "--tlscert"), ("tls_key", "--tlskey"))
STOP_GRACE = 15.0
INSPECT_TIMEOUT = 120.0
SAVE_TIMEOUT = 1800.0


class PreflightError(RocmBakeError):
    """Something a build needs is missing: ``detail`` says what, ``fix`` how to get it."""

    def __init__(self, detail: str, fix: str = "") -> None:
        super().__init__(f"{detail}: {fix}" if fix else detail)
        self.detail = detail
        self.fix = fix


class WatchdogError(RocmBakeError):
    """A build ran past its time limit and was stopped."""


class ImageError(RocmBakeError):
    """docker could not read an image from the engine: the message names the command, the
    image and why."""


# --------------------------------------------------------------------------- connection

CALLER_TLS_ENV = ("DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH", "DOCKER_TLS")


@dataclass(frozen=True)
class Connection:
    """How a docker command reaches one engine. ``endpoint`` is a ``unix://``, ``tcp://`` or
    ``ssh://`` address (passed as DOCKER_HOST), a docker context name, or "" for whatever the
    caller's environment selects; ``tls`` holds fleet.toml's tls_ca/tls_cert/tls_key."""

    endpoint: str = ""
    tls: Mapping[str, str] = field(default_factory=dict)
    docker: str = "docker"

    @classmethod
    def of(cls, node: Node, docker: str = "docker") -> Connection:
        return cls(node.endpoint, dict(node.tls), docker)

    @property
    def address(self) -> str | None:
        """The DOCKER_HOST for the engine, or None when the endpoint names a docker context."""
        return self.endpoint if self.endpoint.startswith(ADDRESS_SCHEMES) else None

    def tls_flags(self) -> list[str]:
        if not self.tls:
            return []
        return ["--tlsverify", *(arg for key, flag in TLS_FLAGS if key in self.tls
                                 for arg in (flag, self.tls[key]))]

    def argv(self) -> list[str]:
        """The docker command prefix that talks to the engine."""
        if self.endpoint and self.address is None:
            return [self.docker, "--context", self.endpoint]
        return [self.docker, *self.tls_flags()]

    def env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment for a docker command on the engine (DOCKER_HOST for an address)."""
        out = dict(os.environ if base is None else base)
        if not self.endpoint:
            return out
        out.pop("DOCKER_CONTEXT", None)
        for name in CALLER_TLS_ENV:     # the engine's own TLS settings only, never the caller's
            out.pop(name, None)
        if self.address:
            out["DOCKER_HOST"] = self.address
        else:
            out.pop("DOCKER_HOST", None)
        return out

    def context_spec(self) -> str:
        """The ``--docker`` value of ``docker context create`` for an address."""
        spec = f"host={self.endpoint}"
        for key, name in (("tls_ca", "ca"), ("tls_cert", "cert"), ("tls_key", "key")):
            if key in self.tls:
                spec += f",{name}={self.tls[key]}"
        return spec


def error_line(text: str, default: str = "no answer") -> str:
    """docker's error output as one clean line: its message without the CLI's chatter
    ("Run 'docker --help' ...", "ERROR:", "Failed to initialize:")."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()
             and not ln.strip().startswith(("Run 'docker", "See 'docker"))]
    if not lines:
        return default
    line = next((ln for ln in lines if ln.startswith(("Error:", "ERROR:"))), lines[-1])
    for prefix in ("Error:", "ERROR:", "docker:", "Failed to initialize:"):
        line = line.removeprefix(prefix).strip()
    return line or default


# --------------------------------------------------------------------------- bake command


@dataclass(frozen=True)
class BakeInvocation:
    """One ``docker buildx bake`` run: its argv and the environment variables it adds."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)

    def display(self) -> str:
        """The command as a shell line, secrets masked, ready to copy."""
        assignments = [f"{k}={shlex.quote(masked_value(k, v))}"
                       for k, v in sorted(self.env.items())]
        return " ".join([*assignments, *(shlex.quote(redact.text(a)) for a in self.argv)])


def masked_value(name: str, value: str) -> str:
    """A value to show for an environment variable: secrets never print."""
    return MASK if _SECRET_NAME.search(name) and value else redact.text(value)


@dataclass(frozen=True)
class BakeCommand:
    """Everything a ``docker buildx bake`` command line says; :meth:`argv` renders it. A
    variant (other progress, more grants, --no-cache) is ``dataclasses.replace`` of it."""

    files: Sequence[str]
    targets: Sequence[str]
    overrides: Sequence[str] = ()
    push: bool = False
    print_only: bool = False
    progress: str | None = None
    allow: Sequence[str] = ()
    metadata_file: str | None = None
    no_cache: bool = False
    connection: Connection = field(default_factory=Connection)

    def argv(self) -> list[str]:
        return bake_argv(self.files, self.targets, self.overrides, push=self.push,
                         print_only=self.print_only, progress=self.progress, allow=self.allow,
                         metadata_file=self.metadata_file, no_cache=self.no_cache,
                         docker=self.connection.argv())


def bake_argv(files: Sequence[str], targets: Sequence[str], overrides: Sequence[str] = (), *,
              push: bool = False, print_only: bool = False, progress: str | None = None,
              allow: Sequence[str] = (), metadata_file: str | None = None,
              no_cache: bool = False, docker: str | Sequence[str] = "docker") -> list[str]:
    """The argv for ``docker buildx bake`` with every option explicit; ``docker`` is the
    command, or a prefix that reaches one engine (:meth:`Connection.argv`)."""
    argv = [docker] if isinstance(docker, str) else list(docker)
    argv += ["buildx", "bake"]
    for path in files:
        argv += ["--file", path]
    if progress:
        argv += ["--progress", progress]
    if no_cache:
        argv.append("--no-cache")
    if metadata_file:
        argv += ["--metadata-file", metadata_file]
    for entitlement in dict.fromkeys(allow):
        argv += ["--allow", entitlement]
    for override in overrides:
        argv += ["--set", override]
    if push:
        argv.append("--push")
    if print_only:
        argv.append("--print")
    argv += list(targets)
    return argv


# --------------------------------------------------------------------------- preflight


def parse_version(output: str) -> Version:
    """The version in ``docker buildx version`` output (``github.com/docker/buildx 0.29.1 …``)."""
    match = re.search(r"\bv?(\d+\.\d+(?:\.\d+)?)", output)
    if not match:
        raise PreflightError(f"cannot read the buildx version from {output.strip()[:80]!r}")
    try:
        return Version(match.group(1))
    except InvalidVersion:  # pragma: no cover - the regex only admits valid versions
        raise PreflightError(f"cannot read the buildx version from {output!r}") from None


def _run(argv: list[str], env: Mapping[str, str] | None, timeout: float
         ) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              env=dict(env) if env is not None else None, check=False)
    except subprocess.TimeoutExpired:
        raise PreflightError(f"`{' '.join(argv)}` did not answer within {timeout:.0f} s") from None
    except OSError as exc:
        raise PreflightError(f"cannot run {argv[0]}: {exc.strerror or exc}", DOCKER_HINT) \
            from None


def check_docker(docker: str = "docker") -> str:
    """The docker client's path."""
    path = shutil.which(docker)
    if path is None:
        raise PreflightError(f"the docker client ({docker}) is not on PATH", DOCKER_HINT)
    return path


def check_buildx(docker: str = "docker", env: Mapping[str, str] | None = None) -> Version:
    """buildx's version (>= MIN_BUILDX)."""
    result = _run([docker, "buildx", "version"], env, timeout=30)
    if result.returncode != 0:
        raise PreflightError("docker buildx is not installed", INSTALL_HINT)
    version = parse_version(result.stdout)
    if version < MIN_BUILDX:
        raise PreflightError(f"buildx {version} is older than {MIN_BUILDX}", INSTALL_HINT)
    return version


def check_builder(docker: str = "docker", env: Mapping[str, str] | None = None,
                  builder: str | None = None) -> str:
    """The name of the running builder buildx would use."""
    argv = [docker, "buildx", "inspect", *([builder] if builder else [])]
    result = _run(argv, env, timeout=60)
    status = re.search(r"^Status:\s*(\S+)", result.stdout, re.M)
    if result.returncode != 0 or status is None or status.group(1) != "running":
        error = re.search(r"^Error:\s*(.+)$", result.stdout, re.M)
        detail = error_line(error.group(0) if error else result.stderr, "builder not running")
        raise PreflightError(f"no reachable BuildKit builder ({detail})", BUILDER_HINT)
    name = re.search(r"^Name:\s*(\S+)", result.stdout, re.M)
    return name.group(1) if name else "default"


def check_engine(connection: Connection, env: Mapping[str, str] | None = None,
                 timeout: float = 20.0) -> str:
    """The server version of the engine ``connection`` reaches (``docker info``)."""
    result = _run([*connection.argv(), "info", "--format", "{{.ServerVersion}}"],
                  connection.env(env), timeout)
    if result.returncode != 0 or not result.stdout.strip():
        raise PreflightError(error_line(result.stderr + result.stdout))
    return result.stdout.strip()


def preflight(docker: str = "docker", env: Mapping[str, str] | None = None) -> Version:
    """Check the docker client, buildx >= 0.24 and a reachable builder, in that order."""
    check_docker(docker)
    version = check_buildx(docker, env)
    check_builder(docker, env)
    return version


# --------------------------------------------------------------------------- running


def start(argv: Sequence[str], env: Mapping[str, str], stdout: IO[str] | IO[bytes] | int | None,
          stderr: IO[str] | IO[bytes] | int | None = subprocess.STDOUT, cwd: Path | None = None,
          own_group: bool = False) -> subprocess.Popen[bytes]:
    """Start a build, stdin closed. With ``own_group`` it runs in its own process group (so
    :func:`stop` ends all of it); without, it stays in the caller's (Ctrl-C reaches it)."""
    return subprocess.Popen(list(argv), env=dict(env), stdout=stdout, stderr=stderr, cwd=cwd,
                            stdin=subprocess.DEVNULL, start_new_session=own_group)


def stop(proc: subprocess.Popen[bytes], grace: float = STOP_GRACE) -> None:
    """SIGTERM a build's process group; SIGKILL it when it is still there after ``grace``."""
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def run_with_watchdog(argv: Sequence[str], env: Mapping[str, str], timeout: float,
                      stdout: IO[str] | int | None = None, stderr: IO[str] | int | None = None,
                      cwd: Path | None = None) -> int:
    """Run a build; past ``timeout`` seconds stop its whole process group and raise
    :class:`WatchdogError` (a hanging cache backend must not hold a builder forever)."""
    with start(argv, env, stdout, stderr, cwd, own_group=True) as proc:
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            stop(proc)
            raise WatchdogError(f"the build exceeded its {timeout:.0f} s watchdog and was "
                                "stopped (a hanging cache backend?)") from None


# --------------------------------------------------------------------------- images


def image_id(name: str, env: Mapping[str, str] | None = None, docker: str = "docker",
             timeout: float = INSPECT_TIMEOUT) -> str | None:
    """The ID of the image ``name`` in the engine (``docker image inspect``), None when the
    engine does not hold it; :class:`ImageError` when docker cannot run or does not answer
    within ``timeout``."""
    try:
        proc = subprocess.run([docker, "image", "inspect", "--format", "{{.Id}}", name],
                              env=dict(env) if env is not None else None, capture_output=True,
                              text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ImageError(f"docker image inspect {name}: {exc}") from None
    return proc.stdout.strip() if proc.returncode == 0 else None


def image_layers(name: str, env: Mapping[str, str] | None = None, docker: str = "docker",
                 timeout: float = INSPECT_TIMEOUT) -> list[str] | None:
    """The diff IDs of the layers of the image ``name`` in the engine (its content, unlike
    its ID, which an import's timestamp changes), None when the engine does not hold it."""
    try:
        proc = subprocess.run([docker, "image", "inspect", "--format", "{{json .RootFS.Layers}}",
                               name], env=dict(env) if env is not None else None,
                              capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ImageError(f"docker image inspect {name}: {exc}") from None
    if proc.returncode != 0:
        return None
    try:
        layers = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise ImageError(f"docker image inspect {name}: not JSON: {proc.stdout[:80]!r}") from None
    return [str(layer) for layer in layers or []]


def image_save(reference: str, dest: Path, env: Mapping[str, str] | None = None,
               docker: str = "docker", timeout: float = SAVE_TIMEOUT) -> None:
    """Write the engine's image ``reference`` to the tarball ``dest`` (``docker image save``);
    :class:`ImageError` names the image and docker's last line when it cannot."""
    what = f"docker image save {reference}"
    try:
        proc = subprocess.run([docker, "image", "save", "-o", str(dest), reference],
                              env=dict(env) if env is not None else None, capture_output=True,
                              text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ImageError(f"{what}: {exc}") from None
    if proc.returncode != 0:
        raise ImageError(f"{what}: {(proc.stderr.strip().splitlines() or ['failed'])[-1]}")


def image_load(archive: Path, env: Mapping[str, str] | None = None,
               docker: Sequence[str] = ("docker",), timeout: float = SAVE_TIMEOUT) -> None:
    """Load an image archive into the engine (``docker image load``), the way a reproducible
    export reaches it (rocm_bake.exporters); :class:`ImageError` names the archive and
    docker's last line when it cannot."""
    what = f"docker image load -i {archive}"
    try:
        proc = subprocess.run([*docker, "image", "load", "-q", "-i", str(archive)],
                              env=dict(env) if env is not None else None, capture_output=True,
                              text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ImageError(f"{what}: {exc}") from None
    if proc.returncode != 0:
        raise ImageError(f"{what}: {(proc.stderr.strip().splitlines() or ['failed'])[-1]}")


def prune_cache_mounts(env: Mapping[str, str] | None = None, docker: Sequence[str] = ("docker",),
                       timeout: float = INSPECT_TIMEOUT) -> None:
    """Empty the builder's cache mounts (``RUN --mount=type=cache``: a compiler cache's local
    directory), so the next build's compiler cache starts cold; the layer cache stays."""
    argv = [*docker, "buildx", "prune", "--force", "--filter", "type=exec.cachemount"]
    try:
        proc = subprocess.run(argv, env=dict(env) if env is not None else None,
                              capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ImageError(f"docker buildx prune (cache mounts): {exc}") from None
    if proc.returncode != 0:
        raise ImageError("docker buildx prune (cache mounts): "
                         f"{error_line(proc.stderr, 'failed')}")
