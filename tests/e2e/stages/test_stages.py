"""The test variant of the stage graph built on the real engine: wheels exported to a local
dir with their versions manifest, compiler-cache hooks that really cached, a runtime image."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from rocm_bake import bakefile
from tests.e2e.stages.conftest import ARCH, BAKE_FILE, STAGES, StageBuild

WHEELS = {"rb_core": "CORE_VERSION", "rb_plugin": "PLUGIN_VERSION", "rb_app": "APP_VERSION"}


def pins() -> dict[str, object]:
    value = bakefile.load([STAGES / BAKE_FILE], env={}).value("PINS")
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
    assert data["pins"] == pins()
    records = data["wheels"]
    assert isinstance(records, list)
    assert sorted(r["file"] for r in records) == files
    expected = pins()
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
    # core: one C++ file compiled by the stand-in hipcc through the HIP_CLANG_PATH wrapper
    # directory (ROCm 7.2.3 < 7.13); plugin: its two files (and CMake's compiler checks)
    # through CMAKE_C/CXX_COMPILER_LAUNCHER.
    assert cacheable_calls((stats / "core.txt").read_text()) == 1
    assert cacheable_calls((stats / "plugin.txt").read_text()) >= 2


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
