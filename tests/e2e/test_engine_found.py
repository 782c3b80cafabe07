"""Every task that needs an engine finds the project's engine as `inv build` does: with the
engine of scripts/engine.sh running and no DOCKER_HOST in the environment, `inv perf`,
`inv verify-repro` and `inv audit-arch` on an image reach it (they build on it, or read an
image from it) instead of docker's default /var/run/docker.sock."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, VENV_BIN, Result

pytestmark = pytest.mark.engine

UNREPRO = ROOT / "tests" / "e2e" / "stages" / "unrepro"
RUNS = ROOT / "perf" / "runs"
# The smallest bake file inv perf measures: the variables it sets on every build, one step.
TINY_BAKE = """\
variable "PIN" { default = "none" }
variable "CACHE_REPO" { default = "" }
variable "CACHE_EXPORT" { default = "false" }
variable "SCCACHE_SECRET_FILE" { default = "" }
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


def _inv(engine: str, *args: str, cwd: Path = ROOT, timeout: float = 600) -> Result:
    """`inv ARGS` as a user runs it right after `./inv build` started the engine: the
    engine's run dir (and registry port) as the project knows them, no DOCKER_HOST."""
    env = {"PATH": f"{VENV_BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}",
           "HOME": os.environ.get("HOME", str(Path.home())),
           "ROCM_BAKE_ENGINE_DIR": engine.removeprefix("unix://").removesuffix("/docker.sock")}
    for name in ("ROCM_BAKE_REGISTRY_PORT",):
        if name in os.environ:
            env[name] = os.environ[name]
    proc = subprocess.run([str(VENV_BIN / "inv"), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def _found(engine: str, result: Result) -> None:
    """The task said it uses the project's engine, and never tried docker's default socket."""
    assert f"rocm-bake: using the project's engine at {engine}" in result.stderr, result.stderr
    assert "/var/run/docker.sock" not in result.stdout + result.stderr


@pytest.fixture
def new_perf_runs() -> Iterator[None]:
    """inv perf keeps its logs under perf/runs/<run id>: the ones this test made go."""
    before = set(RUNS.iterdir()) if RUNS.is_dir() else set()
    yield
    for path in (set(RUNS.iterdir()) if RUNS.is_dir() else set()) - before:
        shutil.rmtree(path, ignore_errors=True)


@pytest.mark.usefixtures("new_perf_runs")
def test_perf_builds_on_the_engine_without_docker_host(engine: str, tmp_path: Path) -> None:
    stack = tmp_path / "stack"
    stack.mkdir()
    (stack / "docker-bake.hcl").write_text(TINY_BAKE)
    (stack / "Dockerfile").write_text(TINY_DOCKERFILE)
    history = tmp_path / "history.jsonl"
    result = _inv(engine, "perf", "--bake-dir", str(stack), "--target", "tiny", "--pin", "PIN",
                  "--conditions", "cold", "--history", str(history),
                  "--webdav", "http://127.0.0.1:9/")
    assert result.returncode == 0, result.stdout + result.stderr
    _found(engine, result)
    assert "[1/1] cold: " in result.stdout, result.stdout
    [record] = [json.loads(line) for line in history.read_text().splitlines()]
    assert record["condition"] == "cold" and record["target"] == "tiny", record


def test_verify_repro_builds_on_the_engine_without_docker_host(engine: str,
                                                              tmp_path: Path) -> None:
    """Both builds ran on the engine (the stamp target differs by design: exit 1)."""
    result = _inv(engine, "verify-repro", "--file", "docker-bake.hcl", "--target", "stamp",
                  "--keep", str(tmp_path), cwd=UNREPRO)
    assert result.returncode == 1, result.stdout + result.stderr
    _found(engine, result)
    assert [ln.split(":", 1)[0] for ln in result.stdout.splitlines()
            if ln.startswith("build ") and ": sha256:" in ln] == ["build 1", "build 2"]
    assert (tmp_path / "build-1.tar").is_file() and (tmp_path / "build-2.tar").is_file()


def test_audit_arch_reads_an_image_of_the_engine_without_docker_host(engine: str) -> None:
    result = _inv(engine, "audit-arch", "rocm-bake/busybox:test", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    _found(engine, result)
    report = json.loads(result.stdout)
    assert report["sources"] == ["rocm-bake/busybox:test"], report
