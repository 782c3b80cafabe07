"""The checks of a build's preflight, one function each: docker, ``docker buildx`` at least
:data:`MIN_BUILDX`, a reachable builder and engine (``docker.preflight`` runs them together,
``reports.doctor`` one by one). Every check fails fast with one line that says what is
missing and how to get it."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Mapping

from packaging.version import InvalidVersion, Version

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.docker.connection import Connection, error_line

MIN_BUILDX = Version("0.24")


INSTALL_HINT = ("install docker-buildx >= 0.24 (`sudo bash scripts/engine.sh install` fetches "
                "the docker-buildx .deb from Debian forky and installs it on bookworm, with "
                "the engine: Docker from scripts/engine.lock; or a release binary in "
                "~/.docker/cli-plugins/docker-buildx)")


DOCKER_HINT = "install Docker's CLI (docker-ce-cli, or Debian's docker-cli)"


BUILDER_HINT = ("start an engine (scripts/engine.sh start) and point DOCKER_HOST or "
                "BUILDX_BUILDER at it")


class PreflightError(RocmBakeError):
    """Something a build needs is missing: ``detail`` says what, ``fix`` how to get it."""

    def __init__(self, detail: str, fix: str = "") -> None:
        super().__init__(f"{detail}: {fix}" if fix else detail)
        self.detail = detail
        self.fix = fix


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
