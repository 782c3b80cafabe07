"""Fixtures of the HIP tests: the real HIP toolchain image (scripts/hip-toolchain.sh), test
kernels compiled in it by clang-22 / hipcc with LLVM's own listings as oracles, and a real ROCm
wheel from PyPI (scripts/hip-fixtures.sh, fetched once by the test setup)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, missing

HERE = Path(__file__).resolve().parent
HIP_IMAGE = "rocm-bake/hip:test"
ARCHS = ("gfx950", "gfx1201", "gfx1250")
FIXTURES = Path(os.environ.get("ROCM_BAKE_HIP_FIXTURES_DIR", "/var/cache/rocm-bake/hip-fixtures"))
ROCM_WHEEL = "amd_mori-1.2.4-cp312-cp312-manylinux_2_39_x86_64.whl"


@dataclass(frozen=True)
class Compiled:
    out: Path      # the objects and libraries compile.sh made
    oracle: Path   # clang-offload-bundler --list and llvm-readelf -h of them

    def bundler_archs(self, name: str) -> set[str]:
        """The processors clang-offload-bundler --list names for one output's bundle."""
        ids = (self.oracle / f"{name}.list").read_text().split()
        return {i.partition("--")[2].partition(":")[0] for i in ids if not i.startswith("host-")}


def docker_run(engine: str, mounts: Mapping[Path, str], script: str,
               env: Sequence[str] = (), timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """Run a bash script in the HIP image, offline, with host paths mounted."""
    argv = ["docker", "run", "--rm", "--network=none"]
    for host, inside in mounts.items():
        argv += ["-v", f"{host}:{inside}"]
    for item in env:
        argv += ["-e", item]
    argv += [HIP_IMAGE, "bash", "-euo", "pipefail", "-c", script]
    return subprocess.run(argv, env={**os.environ, "DOCKER_HOST": engine}, capture_output=True,
                          text=True, timeout=timeout, check=False)


@dataclass(frozen=True)
class Rocm:
    """The ROCm the HIP image holds, as scripts/hip-toolchain.sh recorded it in its labels."""
    version: str   # org.rocm-bake.rocm-version, e.g. 7.2.4
    debs: str      # org.rocm-bake.hip-debs: PKG=VERSION of each .deb unpacked in it

    def at_least(self, major: int, minor: int) -> bool:
        """What with-compiler-cache.sh's rocm_at_least says of this version."""
        parts = self.version.split(".")
        return (int(parts[0]), int(parts[1])) >= (major, minor)


# The image's ROCm, once the session has read it: the line the session ends with.
ROCM_SEEN = pytest.StashKey[Rocm]()


@pytest.fixture(scope="session")
def hip_image(engine: str) -> str:
    """rocm-bake/hip:test from scripts/hip-toolchain.sh image (its tarball is fetched by the
    set-up: scripts/hip-toolchain.sh fetch)."""
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "hip-toolchain.sh"), "image"],
                          env={**os.environ, "DOCKER_HOST": engine}, capture_output=True,
                          text=True, timeout=1500, check=False)
    if proc.returncode != 0:
        pytest.fail(f"scripts/hip-toolchain.sh image failed: {proc.stderr.strip()[-800:]}")
    return HIP_IMAGE


@pytest.fixture(scope="session")
def rocm(engine: str, hip_image: str, pytestconfig: pytest.Config) -> Rocm:
    """The ROCm version and .debs the HIP image records (its labels): the tests derive what
    they expect of the image from it, whichever ROCm 7.x Debian had when it was made."""
    labels = "{{json .Config.Labels}}"
    proc = subprocess.run(["docker", "image", "inspect", "-f", labels, hip_image],
                          env={**os.environ, "DOCKER_HOST": engine}, capture_output=True,
                          text=True, timeout=60, check=False)
    if proc.returncode != 0:
        pytest.fail(f"docker image inspect {hip_image} failed: {proc.stderr.strip()}")
    found = json.loads(proc.stdout) or {}
    version = found.get("org.rocm-bake.rocm-version", "")
    if not version.startswith("7."):
        pytest.fail(f"{hip_image} records ROCm {version!r} (org.rocm-bake.rocm-version); the "
                    "tests need 7.x: run scripts/hip-toolchain.sh fetch and image again")
    seen = Rocm(version, found.get("org.rocm-bake.hip-debs", ""))
    pytestconfig.stash[ROCM_SEEN] = seen
    return seen


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter,
                            config: pytest.Config) -> None:
    """The session says which ROCm the HIP tests ran against."""
    seen = config.stash.get(ROCM_SEEN, None)
    if seen is not None:
        terminalreporter.write_line(f"{HIP_IMAGE}: ROCm {seen.version} ({seen.debs})")


@pytest.fixture(scope="session")
def compiled(engine: str, hip_image: str, tmp_path_factory: pytest.TempPathFactory) -> Compiled:
    """tests/hip/compile.sh run once in the HIP image."""
    out = tmp_path_factory.mktemp("hip-out")
    proc = docker_run(engine, {HERE / "src": "/src:ro", HERE / "compile.sh": "/compile.sh:ro",
                               out: "/out"}, "/compile.sh")
    if proc.returncode != 0:
        pytest.fail(f"compile.sh failed in {hip_image}:\n{proc.stderr.strip()[-1500:]}")
    return Compiled(out, out / "oracle")


@pytest.fixture(scope="session")
def rocm_wheel() -> Path:
    wheel = FIXTURES / ROCM_WHEEL
    if not wheel.is_file():
        missing(str(wheel), "bash scripts/hip-fixtures.sh")
    return wheel
