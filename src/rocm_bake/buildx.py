"""Drive ``docker buildx bake``: the exact argv, the version gate and the preflight checks.

Every check fails fast with one line that says what is missing and how to get it.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from packaging.version import InvalidVersion, Version

from rocm_bake import redact
from rocm_bake.errors import RocmBakeError

MIN_BUILDX = Version("0.24")
INSTALL_HINT = ("install docker-buildx >= 0.24 (`sudo bash scripts/engine.sh install` fetches "
                "the docker-buildx .deb from Debian forky and installs it on bookworm, with "
                "docker.io and containerd from trixie; or a release binary in "
                "~/.docker/cli-plugins/docker-buildx)")
_SECRET_NAME = re.compile(r"(TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|_KEY$|^AWS_)", re.I)
MASK = "****"


class PreflightError(RocmBakeError):
    """Something a build needs is missing; the message says what and how to fix it."""


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


def bake_argv(files: Sequence[str], targets: Sequence[str], overrides: Sequence[str] = (), *,
              push: bool = False, print_only: bool = False, progress: str | None = None,
              allow: Sequence[str] = (), metadata_file: str | None = None,
              docker: str = "docker") -> list[str]:
    """The argv for ``docker buildx bake`` with every option explicit."""
    argv = [docker, "buildx", "bake"]
    for path in files:
        argv += ["--file", path]
    if progress:
        argv += ["--progress", progress]
    if metadata_file:
        argv += ["--metadata-file", metadata_file]
    for entitlement in allow:
        argv += ["--allow", entitlement]
    for override in overrides:
        argv += ["--set", override]
    if push:
        argv.append("--push")
    if print_only:
        argv.append("--print")
    argv += list(targets)
    return argv


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


def check_docker(docker: str = "docker") -> str:
    path = shutil.which(docker)
    if path is None:
        raise PreflightError(f"the docker client ({docker}) is not on PATH: install Docker's CLI "
                             "(docker-ce-cli, or Debian's docker-cli)")
    return path


def check_buildx(docker: str = "docker", env: Mapping[str, str] | None = None) -> Version:
    result = _run([docker, "buildx", "version"], env, timeout=30)
    if result.returncode != 0:
        raise PreflightError(f"docker buildx is not installed: {INSTALL_HINT}")
    version = parse_version(result.stdout)
    if version < MIN_BUILDX:
        raise PreflightError(f"buildx {version} is older than {MIN_BUILDX}: {INSTALL_HINT}")
    return version


def check_builder(docker: str = "docker", env: Mapping[str, str] | None = None,
                  builder: str | None = None) -> str:
    argv = [docker, "buildx", "inspect", *([builder] if builder else [])]
    result = _run(argv, env, timeout=60)
    status = re.search(r"^Status:\s*(\S+)", result.stdout, re.M)
    if result.returncode != 0 or status is None or status.group(1) != "running":
        detail = (result.stderr.strip().splitlines() or ["builder not running"])[-1]
        raise PreflightError(f"no reachable BuildKit builder ({detail.removeprefix('ERROR: ')}): "
                             "start an engine (scripts/engine.sh start) and point DOCKER_HOST "
                             "or BUILDX_BUILDER at it")
    name = re.search(r"^Name:\s*(\S+)", result.stdout, re.M)
    return name.group(1) if name else "default"


def preflight(docker: str = "docker", env: Mapping[str, str] | None = None) -> Version:
    """Check the docker client, buildx >= 0.24 and a reachable builder, in that order."""
    check_docker(docker)
    version = check_buildx(docker, env)
    check_builder(docker, env)
    return version
