"""Every task that needs an engine finds the project's engine as `inv build` does: with the
engine of scripts/engine.sh running and no DOCKER_HOST in the environment, `inv perf`,
`inv verify-repro` and `inv audit-arch` on an image reach it (they build on it, or read an
image from it) instead of docker's default /var/run/docker.sock, and `inv doctor` names it.

The engine is this module's own (its run dir and registry port; stopped and cleaned after):
`inv perf` prunes the build cache of the engine it measures on, which must never be the one
other tests build on at the same time. No default engine either (tests/e2e/isolated.py): the
tasks must reach the project's, whatever the machine has on /var/run/docker.sock.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import AS_ROOT, ROOT, VENV_BIN, Result, missing
from tests.e2e.isolated import assert_no_default_engine, held_port, mask_default_engine

pytestmark = pytest.mark.engine

ENGINE_SH = ROOT / "scripts" / "engine.sh"
UNREPRO = ROOT / "tests" / "e2e" / "stages" / "unrepro"
RUNS = ROOT / "perf" / "runs"
# The smallest bake file inv perf measures: the variables it sets on every build, one step.
TINY_BAKE = """\
variable "PIN" { default = "none" }
variable "CACHE_REPO" { default = "" }
variable "CACHE_EXPORT" { default = "false" }
variable "CACHE_SECRET_FILE" { default = "" }
variable "CACHE_TYPE" { default = "ccache" }
variable "DIST" { default = "dist" }

target "tiny" {
  dockerfile = "Dockerfile"
  args       = { PIN = PIN }
  output     = ["type=local,dest=${DIST}"]
}
"""
TINY_DOCKERFILE = """\
FROM rocm-bake/busybox:test
ARG PIN
RUN --network=none echo "$PIN" > /pin
"""


@dataclass(frozen=True)
class Engine:
    """The project's engine, running; ``env`` is a user's environment right after `./inv
    build` started it: the project's settings for it, and no DOCKER_HOST."""

    run_dir: Path
    env: dict[str, str]

    @property
    def docker_host(self) -> str:
        return f"unix://{self.run_dir}/docker.sock"

    def inv(self, *args: str, cwd: Path = ROOT, timeout: float = 600) -> Result:
        proc = subprocess.run([str(VENV_BIN / "inv"), *args], cwd=cwd, env=self.env,
                              capture_output=True, text=True, timeout=timeout, check=False)
        return Result(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture(scope="module")
def own_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    if os.geteuid() != 0:
        missing("root (starting dockerd needs it)", AS_ROOT)
    for tool in ("docker", "dockerd", "docker-registry"):
        if shutil.which(tool) is None:
            missing(tool, "bash scripts/engine.sh install")
    home = tmp_path_factory.mktemp("engine-found")
    (home / "docker").mkdir()
    with held_port() as port:
        run_dir = Path(tempfile.mkdtemp(prefix="rbef-", dir="/tmp"))   # short: a socket path
        masked = mask_default_engine(home / "no-default-engine")
        env = {"PATH": f"{masked}:{VENV_BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}",
               "HOME": str(home), "DOCKER_CONFIG": str(home / "docker"),
               "ROCM_BAKE_ENGINE_DIR": str(run_dir), "ROCM_BAKE_REGISTRY_PORT": str(port),
               # engine.sh clean must not touch the machine's shared caches.
               "ROCM_BAKE_ROOTFS_DIR": str(home / "rootfs"),
               "ROCM_BAKE_OLD_BUILDX_DIR": str(home / "old-buildx")}
        assert_no_default_engine(env)
        try:
            for action in ("start", "base-image"):
                proc = subprocess.run(["bash", str(ENGINE_SH), action, str(run_dir)], env=env,
                                      capture_output=True, text=True, timeout=300, check=False)
                if proc.returncode != 0:
                    pytest.fail(f"engine.sh {action} failed: {proc.stderr.strip()[-800:]}")
            yield Engine(run_dir, env)
        finally:
            subprocess.run(["bash", str(ENGINE_SH), "clean", str(run_dir)], env=env,
                           capture_output=True, timeout=180, check=False)
            shutil.rmtree(run_dir, ignore_errors=True)


def _found(engine: Engine, result: Result) -> None:
    """The task said it uses the project's engine, and never tried docker's default socket."""
    assert f"rocm-bake: using the project's engine at {engine.docker_host}" in result.stderr, \
        result.stderr
    assert "/var/run/docker.sock" not in result.stdout + result.stderr


@pytest.fixture
def new_perf_runs() -> Iterator[None]:
    """inv perf keeps its logs under perf/runs/<run id>: the ones this test made go."""
    before = set(RUNS.iterdir()) if RUNS.is_dir() else set()
    yield
    for path in (set(RUNS.iterdir()) if RUNS.is_dir() else set()) - before:
        shutil.rmtree(path, ignore_errors=True)


@pytest.mark.usefixtures("new_perf_runs")
def test_perf_builds_on_the_engine_without_docker_host(own_engine: Engine, tmp_path: Path) -> None:
    stack = tmp_path / "stack"
    stack.mkdir()
    (stack / "docker-bake.hcl").write_text(TINY_BAKE)
    (stack / "Dockerfile").write_text(TINY_DOCKERFILE)
    history = tmp_path / "history.jsonl"
    result = own_engine.inv("perf", "--bake-dir", str(stack), "--target", "tiny",
                            "--pin", "PIN", "--conditions", "cold", "--history", str(history),
                            # no store answers at :9: this test is about the engine, not a cache
                            "--webdav", "http://127.0.0.1:9/", "--set", "CACHE_TYPE=none")
    assert result.returncode == 0, result.stdout + result.stderr
    _found(own_engine, result)
    assert "[1/1] cold: " in result.stdout, result.stdout
    [record] = [json.loads(line) for line in history.read_text().splitlines()]
    assert record["condition"] == "cold" and record["target"] == "tiny", record


def test_verify_repro_builds_on_the_engine_without_docker_host(own_engine: Engine,
                                                              tmp_path: Path) -> None:
    """Both builds ran on the engine (the stamp target differs by design: exit 1)."""
    result = own_engine.inv("verify-repro", "--file", "docker-bake.hcl", "--target", "stamp",
                            "--keep", str(tmp_path), cwd=UNREPRO)
    assert result.returncode == 1, result.stdout + result.stderr
    _found(own_engine, result)
    assert [ln.split(":", 1)[0] for ln in result.stdout.splitlines()
            if ln.startswith("build ") and ": sha256:" in ln] == ["build 1", "build 2"]
    assert (tmp_path / "build-1.tar").is_file() and (tmp_path / "build-2.tar").is_file()


def test_audit_arch_reads_an_image_of_the_engine_without_docker_host(own_engine: Engine) -> None:
    result = own_engine.inv("audit-arch", "rocm-bake/busybox:test", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    _found(own_engine, result)
    report = json.loads(result.stdout)
    assert report["sources"] == ["rocm-bake/busybox:test"], report


def test_doctor_finds_the_engine_without_docker_host(own_engine: Engine, tmp_path: Path) -> None:
    """doctor looks where the tasks look (and starts nothing): the builder row names the
    project's engine."""
    fleet = tmp_path / "fleet.toml"
    port = own_engine.env["ROCM_BAKE_REGISTRY_PORT"]
    fleet.write_text(f'[registry]\nurl = "http://127.0.0.1:{port}"\n'
                     f'[[nodes]]\nname = "local"\nendpoint = "{own_engine.docker_host}"\n')
    result = own_engine.inv("doctor", "--fleet", str(fleet))
    row = next((ln for ln in result.stdout.splitlines() if ln.startswith("builder ")), "")
    assert row.split()[1:2] == ["ok"], result.stdout
    assert "the project's engine at" in row, row
    assert "/var/run/docker.sock" not in result.stdout + result.stderr
