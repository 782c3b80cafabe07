"""Fixtures of the stage-graph engine tests: the real HIP toolchain image (tests/hip/conftest.py)
and one build of the whole test variant (tests/e2e/stages/docker-bake.hcl) for every arch,
shared by the tests that read it back."""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from rocm_bake.builds import request as build
from rocm_bake.docker import images
from rocm_bake.docker.engineinfo import EngineVersion, engine_version
from rocm_bake.reproducible import verify as repro
from tests.conftest import ROOT, Result, missing, run_cli
from tests.hip.conftest import Rocm, hip_image, rocm

__all__ = ["hip_image", "rocm"]  # the fixtures, shared with tests/hip

STAGES = Path(__file__).resolve().parent
BAKE_FILE = "docker-bake.hcl"
ARCH = "gfx950"
ARCHS = ("gfx950", "gfx1201", "gfx1250")


@dataclass(frozen=True)
class StageBuild:
    dist: Path     # DIST/gfx950
    tag: str
    seconds: float
    rocm: str      # ROCM_VERSION: the HIP image's (its org.rocm-bake.rocm-version label)

    def dist_of(self, arch: str) -> Path:
        return self.dist.parent / arch

    def image(self, arch: str) -> str:
        return f"rocm-bake-e2e/app:{self.tag}-{arch}"


@pytest.fixture(scope="session")
def stage_engines(engines: dict[str, str], hip_image: str) -> dict[str, str]:
    """Both engines (release -> DOCKER_HOST) holding the HIP images the test variant builds
    on (scripts/hip-toolchain.sh image in each: the same tarballs, the same layers)."""
    for host in engines.values():
        run_dir = host.removeprefix("unix://").removesuffix("/docker.sock")
        proc = subprocess.run(["bash", str(ROOT / "scripts" / "hip-toolchain.sh"), "image",
                               run_dir], env={**os.environ, "DOCKER_HOST": host},
                              capture_output=True, text=True, timeout=1500, check=False)
        if proc.returncode != 0:
            pytest.fail(f"scripts/hip-toolchain.sh image {run_dir} failed: "
                        f"{proc.stderr.strip()[-800:]}")
    return engines


def engine_of(host: str) -> EngineVersion:
    """The Docker and BuildKit versions of the engine at ``host``."""
    return engine_version({**os.environ, "DOCKER_HOST": host})


def inv_push(engine: str, image: str, rocm: str, *sets: str) -> Result:
    """`inv push` of the gfx950 runtime image as ``image`` (more bake settings in ``sets``)."""
    return run_cli(["inv", "push", "--file", BAKE_FILE, "--target", f"app-{ARCH}",
                    "--set", f"app-{ARCH}.tags={image}", "--set", f"ROCM_VERSION={rocm}",
                    *(f"--set={s}" for s in sets)],
                   cwd=STAGES, env={"DOCKER_HOST": engine}, timeout=1800)


def bake(targets: list[str], sets: list[str], engine: str, log: Path,
         writes: list[Path]) -> None:
    """docker buildx bake of the test variant, as the library prepares it, plus the file-system
    grants buildx asks for (the `scripts` context lives outside this directory)."""
    downloads = Path(os.environ.get("ROCM_BAKE_CACHESTACK_DIR", "/var/cache/rocm-bake/cachestack"))
    if not (downloads / "sccache").is_file():   # the base's sccache (the `downloads` context)
        missing(f"the sccache binary in {downloads}", "bash scripts/cachestack.sh")
    sets = [*sets, f"DOWNLOADS={downloads}"]
    request = build.BuildRequest(targets=targets, files=[BAKE_FILE], sets=sets)
    env = {**os.environ, "DOCKER_HOST": engine}
    cwd = Path.cwd()
    os.chdir(STAGES)
    try:
        prepared = build.prepare(request, env)
        grants = repro.fs_entitlements(prepared, writes)
    finally:
        os.chdir(cwd)
    argv = prepared.invocation.argv
    for archive in prepared.exports.loads.values():   # buildx writes them, into a directory
        (STAGES / archive).parent.mkdir(parents=True, exist_ok=True)
    argv = [*argv[:3], "--progress=plain", *(f"--allow={g}" for g in grants), *argv[3:]]
    with log.open("w") as handle:
        proc = subprocess.run(argv, cwd=STAGES, env={**env, **prepared.invocation.env},
                              stdout=handle, stderr=subprocess.STDOUT, timeout=1800, check=False)
    if proc.returncode != 0:
        pytest.fail(f"bake {targets} failed; last lines:\n"
                    + "\n".join(log.read_text().splitlines()[-25:]))
    # The images exported reproducibly for the engine (rocm_bake.docker.exporters), loaded as inv
    # build loads them.
    for archive in prepared.exports.loads.values():
        images.image_load(STAGES / archive, env)
        (STAGES / archive).unlink()


@pytest.fixture(scope="session")
def stage_build(engine: str, rocm: Rocm,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[StageBuild]:
    """The whole test variant built once for every arch: the app runtime images and the wheels
    exports (DIST/<arch>), with ROCM_VERSION the HIP image's."""
    out = tmp_path_factory.mktemp("stages")
    tag = f"t{uuid.uuid4().hex[:10]}"
    started = time.monotonic()
    bake(["all"], [f"DIST={out / 'dist'}", f"TAG={tag}", f"GPU_ARCHS={','.join(ARCHS)}",
                   f"ROCM_VERSION={rocm.version}"], engine, out / "bake.log", [out / "dist"])
    built = StageBuild(out / "dist" / ARCH, tag, time.monotonic() - started, rocm.version)
    yield built
    subprocess.run(["docker", "image", "rm", *(built.image(arch) for arch in ARCHS)],
                   env={**os.environ, "DOCKER_HOST": engine}, capture_output=True, check=False)
