"""`engine.sh install` on a machine without the current engine gives Docker >= 28.5: the .debs of
scripts/engine.lock (checked by sha256) unpacked into an empty ENGINE_ROOT, started with the
machine's own runc, and `docker version` read from it; `start` refuses an engine that is not
its release's version, a running one of the other release included, in one line.

The test's engine root, run dir and registry port are its own (the shared engine at
/tmp/rocm-bake-engine is never touched); the pinned .debs come from the machine's cache of them
(/var/cache/rocm-bake/debs, content-addressed; the set-up's own install fetched them).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.version import Version

from tests.conftest import AS_ROOT, ROOT, missing
from tests.e2e.isolated import held_port

ENGINE_SH = ROOT / "scripts" / "engine.sh"
LOCK = ROOT / "scripts" / "engine.lock"
pytestmark = pytest.mark.engine


@dataclass(frozen=True)
class Fresh:
    root: Path          # ENGINE_ROOT, empty before the install
    run_dir: Path
    env: dict[str, str]
    before: subprocess.CompletedProcess[str]       # `which` before the install
    install: subprocess.CompletedProcess[str]
    start: subprocess.CompletedProcess[str]

    def sh(self, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return _sh(self.env, *args, **extra)

    def docker(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=300,
                              env={**self.env, "DOCKER_HOST": f"unix://{self.run_dir}/docker.sock"},
                              input=stdin, check=False)


def _sh(env: dict[str, str], *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(ENGINE_SH), *args], env={**env, **extra},
                          capture_output=True, text=True, timeout=900, check=False)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fresh]:
    """An empty engine root, installed into by `engine.sh install`, then started."""
    if os.geteuid() != 0:
        missing("root (the install unpacks into ENGINE_ROOT, dockerd needs it)", AS_ROOT)
    for tool in ("docker", "dpkg-deb", "runc", "docker-registry"):
        if shutil.which(tool) is None:
            missing(tool, "bash scripts/engine.sh install")
    root = tmp_path_factory.mktemp("engine-root")
    assert not any(root.iterdir())
    run_dir = Path(tempfile.mkdtemp(prefix="rbec-", dir="/tmp"))   # short: a socket path
    with held_port() as port:
        env = {**os.environ, "ROCM_BAKE_ENGINE_ROOT": str(root),
               "ROCM_BAKE_REGISTRY_PORT": str(port), "ROCM_BAKE_ENGINE_RELEASE": "current"}
        for name in ("DOCKER_HOST", "ROCM_BAKE_ENGINE_DIR"):
            env.pop(name, None)
        try:
            before = _sh(env, "which")
            install = _sh(env, "install")
            # The data root both releases shared before each had its own: start removes it.
            (run_dir / "root" / "containerd").mkdir(parents=True)
            start = _sh(env, "start", str(run_dir))
            yield Fresh(root, run_dir, env, before, install, start)
        finally:
            _sh(env, "stop", str(run_dir))
            shutil.rmtree(run_dir, ignore_errors=True)


def _lock_version() -> str:
    path = next(line.split()[3] for line in LOCK.read_text().splitlines()
                if line.startswith("unpack ") and "/docker.io_" in line)
    return path.rsplit("/docker.io_", 1)[1].split("%2b")[0].split("+")[0]


def test_install_gives_docker_28_5_or_newer_from_the_lock(fresh: Fresh) -> None:
    version = _lock_version()
    assert fresh.before.returncode == 1
    assert f"Docker {version} (the current engine) is not installed in {fresh.root}/" \
        in fresh.before.stderr
    assert fresh.install.returncode == 0, fresh.install.stderr
    assert f"install: Docker {version} (the current engine: docker.io=" in fresh.install.stderr
    prefix = fresh.root / f"docker-{version}"
    assert (prefix / "usr/sbin/dockerd").is_file() and (prefix / "usr/bin/containerd").is_file()
    assert fresh.sh("which").stdout.strip() == f"current {version} {prefix}/usr/sbin/dockerd"
    again = fresh.sh("install")                     # idempotent: nothing unpacked again
    assert "already in" in again.stderr, again.stderr

    assert fresh.start.returncode == 0, fresh.start.stderr
    assert f"start: Docker {version} (the current engine, {prefix}/usr/sbin/dockerd)" \
        in fresh.start.stderr
    server = fresh.docker("version", "--format", "{{.Server.Version}}")
    assert server.returncode == 0, server.stderr
    assert Version(server.stdout.strip().split("+")[0]) >= Version("28.5"), server.stdout
    # Its containerd is the lock's (2.x), its runc the machine's.
    parts = fresh.docker("version", "--format",
                         "{{range .Server.Components}}{{.Name}}={{.Version}}\n{{end}}")
    components = dict(line.split("=", 1) for line in parts.stdout.split())
    assert components["containerd"].startswith("2."), components
    machine_runc = subprocess.run(["runc", "--version"], capture_output=True, text=True,
                                  timeout=60, check=True).stdout.split()[2]
    assert components["runc"] == machine_runc, components
    # Its data root is the current release's own (the floor's, in the same run dir, another):
    # a store one engine filled would give the other's images its layer blobs.
    root = fresh.docker("info", "--format", "{{.DockerRootDir}}")
    assert root.stdout.strip() == str(fresh.run_dir / "root-current"), root.stdout + root.stderr
    assert not (fresh.run_dir / "root").exists()
    assert (f"start: removing {fresh.run_dir}/root, the data root both releases shared before "
            "each had its own") in fresh.start.stderr


def test_a_build_runs_its_steps_with_the_machines_runc(fresh: Fresh) -> None:
    assert fresh.start.returncode == 0, fresh.start.stderr
    base = fresh.sh("base-image", str(fresh.run_dir))
    assert base.returncode == 0, base.stderr
    build = fresh.docker("buildx", "build", "--progress=plain", "--output", "type=cacheonly",
                         "-", stdin="FROM rocm-bake/busybox:test\n"
                                    "RUN --network=none echo ran-on-$(uname -s)\n")
    assert build.returncode == 0, build.stderr
    assert "ran-on-Linux" in build.stderr


def test_start_refuses_an_engine_that_is_not_its_releases(fresh: Fresh,
                                                          tmp_path: Path) -> None:
    assert fresh.start.returncode == 0, fresh.start.stderr
    # The floor asked for where the current engine runs: one line, exit 2.
    floor = fresh.sh("start", str(fresh.run_dir), ROCM_BAKE_ENGINE_RELEASE="floor")
    assert floor.returncode == 2
    assert floor.stderr.strip().splitlines() == [
        f"engine.sh: error: the dockerd running in {fresh.run_dir} is Docker "
        f"{_lock_version()}, not 26.1.5 (the floor engine): 'engine.sh stop {fresh.run_dir}' "
        "first, or ROCM_BAKE_ENGINE_RELEASE=current"]
    # A lock that names another Docker than the one unpacked: not installed, start refuses
    # before it launches anything.
    other = tmp_path / "engine.lock"
    other.write_text(LOCK.read_text().replace(f"docker.io_{_lock_version()}",
                                              "docker.io_99.0.0"))
    stopped = tmp_path / "run"
    refused = fresh.sh("start", str(stopped), ROCM_BAKE_ENGINE_LOCK=str(other))
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        f"engine.sh: error: Docker 99.0.0 (the current engine) is not installed in "
        f"{fresh.root}/docker-99.0.0; run 'engine.sh install' (or "
        "ROCM_BAKE_ENGINE_RELEASE=floor)"]
    assert not (stopped / "docker.pid").exists()
