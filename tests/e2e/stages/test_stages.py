"""The test variant of the stage graph built on the real engine for gfx950, gfx1201 and gfx1250:
wheels exported to a local dir with their versions manifest, compiler-cache hooks that really
cached, a runtime image, and every GPU translation unit compiled by the real HIP compiler for
its cell's arch (inv audit-arch on the exports and the images)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rocm_bake.model import bakefile
from tests.conftest import run_cli
from tests.e2e.stages.conftest import ARCH, ARCHS, BAKE_FILE, STAGES, StageBuild

WHEELS = {"rb_core": "CORE_VERSION", "rb_plugin": "PLUGIN_VERSION", "rb_app": "APP_VERSION"}


def pins(rocm: str) -> dict[str, object]:
    """PINS of the test variant as the stage build had it (ROCM_VERSION the HIP image's)."""
    value = bakefile.load([STAGES / BAKE_FILE], env={"ROCM_VERSION": rocm}).value("PINS")
    assert isinstance(value, dict)
    return {str(k): v for k, v in value.items()}


def manifest(dist: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((dist / "versions.json").read_text())
    return data


@pytest.mark.engine
def test_every_wheel_is_exported_with_its_manifest(stage_build: StageBuild) -> None:
    dist = stage_build.dist
    files = sorted(p.name for p in dist.glob("*.whl"))
    assert [f.split("-")[0] for f in files] == sorted(WHEELS), files
    data = manifest(dist)
    assert data["pins"] == pins(stage_build.rocm)
    records = data["wheels"]
    assert isinstance(records, list)
    assert sorted(r["file"] for r in records) == files
    expected = pins(stage_build.rocm)
    for record in records:
        wheel = dist / record["file"]
        assert record["sha256"] == hashlib.sha256(wheel.read_bytes()).hexdigest()
        assert record["version"] == expected[WHEELS[record["name"]]]


def cacheable_calls(stats: str) -> int:
    match = re.search(r"Cacheable calls:\s+(\d+)", stats)
    assert match, stats
    return int(match.group(1))


@pytest.mark.engine
def test_compile_steps_went_through_the_compiler_cache(stage_build: StageBuild) -> None:
    stats = stage_build.dist / "compiler-cache"
    # core: its HIP file compiled by the real hipcc through the HIP_CLANG_PATH wrapper
    # directory (ROCm below 7.13; hipcc's own clang++ calls reach ccache too); plugin: its
    # C, C++ and HIP files (and CMake's compiler checks) through CMAKE_C/CXX/HIP_COMPILER_LAUNCHER.
    assert cacheable_calls((stats / "core.txt").read_text()) >= 1
    assert cacheable_calls((stats / "plugin.txt").read_text()) >= 3


@pytest.mark.engine
def test_the_runtime_image_runs_and_carries_the_manifest(stage_build: StageBuild,
                                                         engine: str) -> None:
    image = f"rocm-bake-e2e/app:{stage_build.tag}-{ARCH}"
    env = {**os.environ, "DOCKER_HOST": engine}

    def run(*args: str) -> str:
        proc = subprocess.run(["docker", "run", "--rm", "--network=none", *args], env=env,
                              capture_output=True, text=True, timeout=120, check=False)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    assert run(image).strip() == "rb-app 2.0.1: twice(scale(add(1, 1))) = 14"
    inside = json.loads(run("--entrypoint", "cat", image, "/opt/rocm-bake/versions.json"))
    assert inside == manifest(stage_build.dist)
    assert run("--entrypoint", "sh", image, "-c", "env | grep -c HIP_CLANG || true").strip() == "0"
    # The runtime manifest check the real runtime images run (dockerfiles/scripts/
    # check-runtime.py): no file owned twice, the expected modules present.  This stand-in
    # image carries the cell's rb_* modules, not vLLM's amdsmi, so amdsmi is checked absent.
    checked = run("--entrypoint", "check-runtime.py", image, "--expect", "rb_core", "rb_plugin",
                  "rb_app")
    assert "0 file(s) with two owners; expected modules (rb_core, rb_plugin, rb_app): present" \
        in checked
    missing = subprocess.run(["docker", "run", "--rm", "--network=none", "--entrypoint",
                              "check-runtime.py", image, "--expect", "amdsmi"], env=env,
                             capture_output=True, text=True, timeout=120, check=False)
    assert missing.returncode == 1
    assert "expected module amdsmi does not import" in missing.stderr


def installed_from_files(image: str, engine: str) -> set[str]:
    """The wheel files the image's pip installed from files (``pip inspect``: each distribution
    installed from a local wheel records its file:// URL in direct_url.json)."""
    proc = subprocess.run(["docker", "run", "--rm", "--network=none", "--entrypoint", "python",
                           image, "-m", "pip", "inspect"],
                          env={**os.environ, "DOCKER_HOST": engine}, capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    urls = [d.get("direct_url", {}).get("url", "") for d in report["installed"]]
    return {u.rsplit("/", 1)[-1] for u in urls if u.startswith("file://") and u.endswith(".whl")}


@pytest.mark.engine
def test_the_wheels_export_holds_every_wheel_the_runtime_image_installs(
        stage_build: StageBuild, engine: str) -> None:
    """`pip install DIST/<arch>/*.whl` gives what the runtime image has (issue 23: the real
    export lacked the amdsmi wheel its vLLM image installs; lint rule export-wheels checks
    dockerfiles/ the same way)."""
    for arch in ARCHS:
        installed = installed_from_files(stage_build.image(arch), engine)
        exported = {p.name for p in stage_build.dist_of(arch).glob("*.whl")}
        assert installed, arch
        assert installed <= exported, (arch, sorted(installed - exported))


def audit(*args: str, engine: str | None = None) -> tuple[int, dict[str, Any]]:
    result = run_cli(["inv", "audit-arch", *args, "--json"],
                     env={"DOCKER_HOST": engine} if engine else None)
    assert result.returncode in (0, 1), result.stderr
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    return result.returncode, data


@pytest.mark.engine
@pytest.mark.parametrize("arch", ARCHS)
def test_every_gpu_library_carries_exactly_its_cells_arch(stage_build: StageBuild,
                                                          arch: str) -> None:
    """core's hipcc library (PYTORCH_ROCM_ARCH) and plugin's CMake HIP library
    (CMAKE_HIP_ARCHITECTURES from GPU_ARCHS), in the wheels export of the cell."""
    code, data = audit(str(stage_build.dist_of(arch)), "--expect", arch)
    assert code == 0, data["problems"]
    files = data["files"]
    gpu = sorted(str(f["path"]).rsplit("/", 1)[-1] for f in files)
    assert gpu == ["librb_core_gpu.so", "librb_plugin_gpu.so"]
    assert all(f["archs"] == [arch] for f in files)
    assert data["host_only_elf_files"] == 3   # rb_core, librb_plugin.so, rb_app._native
    other = next(a for a in ARCHS if a != arch)
    code, data = audit(str(stage_build.dist_of(arch)), "--expect", other)
    assert code == 1 and len(data["problems"]) == 4  # each library lacks one, carries one


@pytest.mark.engine
def test_the_runtime_images_carry_their_cells_arch(stage_build: StageBuild,
                                                   engine: str) -> None:
    """By reference: the installed libraries and the app's own wheel in /wheels."""
    for arch in ARCHS:
        code, data = audit(stage_build.image(arch), "--expect", arch, engine=engine)
        assert code == 0, data["problems"]
        paths = sorted(str(f["path"]) for f in data["files"])
        assert len(paths) == 2 and all("site-packages" in p for p in paths), paths
