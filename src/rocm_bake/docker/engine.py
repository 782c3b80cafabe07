"""The project's own loopback build engine (``scripts/engine.sh``): where it lives, whether it
runs, what it still needs installed, and starting or installing it.

The engine is dockerd (containerd image store) on ``unix://<run dir>/docker.sock`` plus an OCI
registry on ``127.0.0.1:<port>``; the run dir is ``$ROCM_BAKE_ENGINE_DIR`` (default
``/tmp/rocm-bake-engine``), the port ``$ROCM_BAKE_REGISTRY_PORT`` (default 5000). Which dockerd:
``$ROCM_BAKE_ENGINE_RELEASE``, ``current`` (the default: Docker from ``scripts/engine.lock``,
unpacked by ``engine.sh install`` beside the system's packages) or ``floor`` (the oldest engine
the project supports, Debian trixie's docker.io). Nothing here ever uses
``/var/run/docker.sock`` or a user's own engine.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.docker import buildx

DEFAULT_RUN_DIR = "/tmp/rocm-bake-engine"
RUN_DIR_VARIABLE = "ROCM_BAKE_ENGINE_DIR"
PORT_VARIABLE = "ROCM_BAKE_REGISTRY_PORT"
RELEASE_VARIABLE = "ROCM_BAKE_ENGINE_RELEASE"
WHICH_TIMEOUT = 60.0
START_TIMEOUT = 300.0
INSTALL_TIMEOUT = 1800.0
# The tools engine.sh install puts on PATH besides the engine itself (engine.sh which).
_DAEMONS = {"docker-registry": "docker-registry from bookworm", "curl": "curl from bookworm"}


class EngineError(RocmBakeError):
    """scripts/engine.sh could not install or start the engine."""


@dataclass(frozen=True)
class Missing:
    """One thing a build needs that is not there, and the command that fixes it."""

    item: str
    detail: str
    fix: str

    def __str__(self) -> str:
        return f"{self.item}: {self.detail} (fix: {self.fix})"


def script() -> Path:
    """scripts/engine.sh of this checkout (the project is installed editable from it)."""
    return Path(__file__).resolve().parents[3] / "scripts" / "engine.sh"


def run_dir(env: Mapping[str, str]) -> Path:
    return Path(env.get(RUN_DIR_VARIABLE) or DEFAULT_RUN_DIR)


def docker_host(env: Mapping[str, str]) -> str:
    """The DOCKER_HOST of the project's engine."""
    return f"unix://{run_dir(env)}/docker.sock"


def _script_word() -> str:
    """engine.sh as the user would type it: relative to the working directory when inside it."""
    path = script()
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def command(action: str, env: Mapping[str, str], sudo: bool) -> str:
    """The exact shell command for ``engine.sh <action>`` with this environment's settings."""
    words = ["sudo"] if sudo else []
    for variable in (RELEASE_VARIABLE, PORT_VARIABLE):
        if env.get(variable) and action == "start":
            words.append(f"{variable}={shlex.quote(env[variable])}")
    words += ["bash", shlex.quote(_script_word()), action]
    if action == "start" and env.get(RUN_DIR_VARIABLE):
        words.append(shlex.quote(str(run_dir(env))))
    return " ".join(words)


def setup_command(env: Mapping[str, str], install: bool, sudo: bool) -> str:
    """One line that installs (when needed) and starts the engine."""
    steps = [command("install", env, sudo)] if install else []
    return " && ".join([*steps, command("start", env, sudo)])


def is_running(env: Mapping[str, str], docker: str = "docker") -> bool:
    """Whether the project's engine answers as a BuildKit builder on its socket."""
    if shutil.which(docker, path=env.get("PATH")) is None:
        return False
    if not Path(docker_host(env).removeprefix("unix://")).is_socket():
        return False
    try:
        buildx.check_builder(docker, env={**env, "DOCKER_HOST": docker_host(env)})
    except buildx.PreflightError:
        return False
    return True


def missing_parts(env: Mapping[str, str], fix: str, docker: str = "docker") -> list[Missing]:
    """What ``engine.sh install`` would still install: the docker client, buildx >= 0.24, the
    daemons. Every item is reported, none stops the check."""
    path = env.get("PATH")
    out: list[Missing] = []
    if shutil.which(docker, path=path) is None:
        out.append(Missing("docker client", f"the docker client ({docker}) is not on PATH", fix))
        if not any((Path(d) / "docker-buildx").is_file() for d in plugin_dirs(env)):
            out.append(Missing("buildx", f"docker-buildx >= {buildx.MIN_BUILDX} is not "
                               "installed (Debian forky's, installed on bookworm)", fix))
    else:
        try:
            buildx.check_buildx(docker, env)
        except buildx.PreflightError as exc:
            out.append(Missing("buildx", str(exc), fix))
    why = engine_missing(env)
    if why:
        out.append(Missing("dockerd", why, fix))
    for daemon, package in _DAEMONS.items():
        if shutil.which(daemon, path=path) is None:
            out.append(Missing(daemon, f"not installed ({package})", fix))
    return out


def engine_missing(env: Mapping[str, str]) -> str:
    """Why the engine ``engine.sh start`` would run (``$ROCM_BAKE_ENGINE_RELEASE``) is not
    installed as its version, "" when it is (``engine.sh which``)."""
    path = script()
    if not path.is_file():
        return f"{path} not found: run rocm-bake from its source checkout"
    clean = {k: v for k, v in env.items() if k not in ("DOCKER_HOST", "DOCKER_CONTEXT")}
    try:
        proc = subprocess.run(["bash", str(path), "which"], env=clean, capture_output=True,
                              text=True, timeout=WHICH_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return f"{_script_word()} which did not answer within {WHICH_TIMEOUT:.0f} s"
    except OSError as exc:
        return f"cannot run {_script_word()} which: {exc.strerror or exc}"
    if proc.returncode == 0:
        return ""
    lines = proc.stderr.strip().splitlines() or [f"{_script_word()} which failed"]
    return lines[-1].removeprefix("engine.sh: ").removeprefix("which: ").removeprefix("error: ")


def plugin_dirs(env: Mapping[str, str]) -> list[Path]:
    """Where the docker client looks for CLI plugins such as buildx."""
    config = Path(env.get("DOCKER_CONFIG") or Path(env.get("HOME", "/root")) / ".docker")
    return [config / "cli-plugins", *(Path(p) for p in (
        "/usr/local/lib/docker/cli-plugins", "/usr/local/libexec/docker/cli-plugins",
        "/usr/lib/docker/cli-plugins", "/usr/libexec/docker/cli-plugins"))]


def install(env: Mapping[str, str]) -> None:
    """``engine.sh install`` (root), its progress on stderr."""
    _run_script(["install"], env, INSTALL_TIMEOUT)


def start(env: Mapping[str, str]) -> str:
    """``engine.sh start <run dir>`` (root): returns the engine's DOCKER_HOST."""
    out = _run_script(["start", str(run_dir(env))], env, START_TIMEOUT)
    host = out.strip().removeprefix("export DOCKER_HOST=")
    if not host.startswith("unix://"):
        raise EngineError(f"{_script_word()} start printed {out.strip()[:120]!r}, "
                          "not a DOCKER_HOST")
    return host


def _run_script(args: list[str], env: Mapping[str, str], timeout: float) -> str:
    path = script()
    if not path.is_file():
        raise EngineError(f"{path} not found: run rocm-bake from its source checkout")
    # Never hand the user's engine selection to the script: it manages its own socket only.
    clean = {k: v for k, v in env.items() if k not in ("DOCKER_HOST", "DOCKER_CONTEXT")}
    try:
        proc = subprocess.run(["bash", str(path), *args], env=clean, stdout=subprocess.PIPE,
                              text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise EngineError(f"{_script_word()} {args[0]} did not finish within "
                          f"{timeout:.0f} s") from None
    if proc.returncode != 0:
        raise EngineError(f"{_script_word()} {args[0]} failed (exit status {proc.returncode}; "
                          "its error is on the line above)")
    return proc.stdout


def is_root() -> bool:
    return os.geteuid() == 0
