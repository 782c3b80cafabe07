"""A fleet node on its own CPUs (issue 34: 1 node on 1 core against 2 nodes on 2 cores is a
fair two-machine measurement): ``ROCM_BAKE_ENGINE_CPUS`` puts dockerd and everything it starts
on those CPUs (taskset), so a build step sees one CPU (``nproc`` reads the affinity); a running
engine on other CPUs, or a malformed list, is one line and exit status 2."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import minimal_env
from tests.fleet.conftest import ENGINE, engine_sh

PINNED_DIR = Path(os.environ.get("ROCM_BAKE_FLEET_PINNED_DIR", "/tmp/rocm-bake-fleet-pinned"))
DOCKERFILE = ("FROM rocm-bake/busybox:test\nARG SALT\n"
              "RUN --network=none echo \"$SALT\" && nproc > /nproc\n"
              "FROM scratch\nCOPY --from=0 /nproc /nproc\n")


def _allowed_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def _engine_sh(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ROCM_BAKE_REGISTRY": "none", **extra}
    return subprocess.run(["bash", str(ENGINE), *args], capture_output=True, text=True,
                          timeout=180, check=False, env=env)


@pytest.fixture(scope="module")
def pinned_node(engine: str) -> Iterator[tuple[str, int]]:
    """A node on the last CPU this process may use (engine: node 1 runs, as in every fleet
    test, so the registry is up)."""
    cpu = _allowed_cpus()[-1]
    host = engine_sh("start", str(PINNED_DIR), registry="none",
                     ROCM_BAKE_ENGINE_CPUS=str(cpu))
    try:
        engine_sh("base-image", str(PINNED_DIR), registry="none")
        yield host, cpu
    finally:
        engine_sh("stop", str(PINNED_DIR), registry="none")


def _cpus_of(pid: int) -> str:
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    return next(line.split()[1] for line in status.splitlines()
                if line.startswith("Cpus_allowed_list:"))


def test_dockerd_and_its_builds_run_on_the_cpus_given(pinned_node: tuple[str, int],
                                                       tmp_path: Path) -> None:
    host, cpu = pinned_node
    pid = int((PINNED_DIR / "docker.pid").read_text().strip())
    assert _cpus_of(pid) == str(cpu)
    (tmp_path / "Dockerfile").write_text(DOCKERFILE, encoding="utf-8")
    proc = subprocess.run(
        ["docker", "buildx", "build", "--progress=plain", "--build-arg",
         f"SALT={os.urandom(6).hex()}", "--output", f"type=local,dest={tmp_path / 'out'}",
         str(tmp_path)],
        env=minimal_env({"DOCKER_HOST": host}), capture_output=True, text=True, timeout=300,
        check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (tmp_path / "out" / "nproc").read_text().strip() == "1"


def test_a_running_engine_on_other_cpus_is_refused(pinned_node: tuple[str, int]) -> None:
    _, cpu = pinned_node
    others = [c for c in _allowed_cpus() if c != cpu]
    wanted = str(others[0]) if others else f"{cpu},{cpu + 1}"
    proc = _engine_sh("start", str(PINNED_DIR), ROCM_BAKE_ENGINE_CPUS=wanted)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"runs on CPUs {cpu}, not ROCM_BAKE_ENGINE_CPUS" in lines[0]


@pytest.mark.parametrize(("cpus", "says"), [("one", "must be a CPU list"),
                                            ("0-", "must be a CPU list"),
                                            ("4096", "CPU 4096 is not one")])
def test_a_bad_cpu_list_is_one_line_before_anything_starts(cpus: str, says: str) -> None:
    never = PINNED_DIR.with_name(f"{PINNED_DIR.name}-never")
    proc = _engine_sh("start", str(never), ROCM_BAKE_ENGINE_CPUS=cpus)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], proc.stderr
    assert not never.exists()
