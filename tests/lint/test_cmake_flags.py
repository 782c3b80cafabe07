"""build-flags and build-components read CMake: an upstream stage that builds with CMake (vLLM
v0.33.0's docker/Dockerfile.rocm_72_base build_rocm_runtime: ``cmake -B build -G Ninja
-DCMAKE_BUILD_TYPE=Release ... && cmake --build build && cmake --install build``) builds
something, and the stage mapped to it passes its ``-D`` options (named ``-DNAME``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_bake_checks.lint import buildflags, stages
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.dockerfile import parse_text
from rocm_bake_checks.lint.upstreamdocker import Mapped, Settings, Upstream

URL = "https://example.invalid/docker/Dockerfile.rocm_72_base"
REF = "rocm_72_base:build_rocm_runtime"
# A stand-in for upstream's stage, written in its shape (not its text).
UPSTREAM = """\
FROM rocm/dev-ubuntu-22.04 AS base
FROM base AS build_rocm_runtime
RUN cd /src/projects/clr \\
    && cmake -B build -G Ninja \\
        -DCMAKE_BUILD_TYPE=Release \\
        -DCLR_BUILD_HIP=ON \\
        -D CLR_BUILD_OCL:BOOL=OFF \\
        -DROCM_PATH=/opt/rocm \\
    && cmake --build build --parallel 16 \\
    && cmake --install build --prefix /clr-install --strip
FROM base AS final
COPY --from=build_rocm_runtime /staging/ /opt/rocm/
"""
OURS = """\
FROM base AS build
ARG MAX_JOBS
RUN --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \\
    cmake -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCLR_BUILD_HIP=ON \\
        -DCLR_BUILD_OCL=OFF -DROCM_PATH=/opt/rocm \\
    && with-compiler-cache.sh cmake --build build --parallel "${MAX_JOBS}" \\
    && cmake --install build --prefix /clr-install --strip
"""


def upstream(mapped: bool = True) -> Upstream:
    settings = Settings(
        files={"rocm_72_base": URL}, base_stages=("rocm_72_base:base",),
        final="rocm_72_base:final", release=(), ours_base="dockerfiles/base.Dockerfile",
        ours_final="dockerfiles/rocm-runtime.Dockerfile:build",
        ours_export="dockerfiles/rocm-runtime.Dockerfile:build",
        stages={REF: Mapped("dockerfiles/rocm-runtime.Dockerfile:build", ())} if mapped else {},
        implied=(), config=Path("upstream-dockerfiles.toml"), stages_line=1)
    parsed = parse_text(UPSTREAM, Path("Dockerfile.rocm_72_base"))
    return Upstream(settings, {"rocm_72_base": parsed}, {"rocm_72_base": URL})


def check(tmp_path: Path, ours: str) -> list[str]:
    (tmp_path / "dockerfiles").mkdir()
    (tmp_path / "dockerfiles" / "base.Dockerfile").write_text("FROM rocm/dev AS base\n")
    (tmp_path / "dockerfiles" / "rocm-runtime.Dockerfile").write_text(ours)
    return [str(f) for f in buildflags.check(upstream(), tmp_path, Dockerfiles(), {})]


def test_the_d_options_of_a_cmake_configure_are_flags() -> None:
    parsed = parse_text(UPSTREAM, Path("Dockerfile.rocm_72_base"))
    stage = parsed.stage("build_rocm_runtime")
    assert stage is not None
    assert [(f.name, f.value) for f in stages.cmake_options(stage)] == [
        ("-DCMAKE_BUILD_TYPE", "Release"), ("-DCLR_BUILD_HIP", "ON"),
        ("-DCLR_BUILD_OCL", "OFF"), ("-DROCM_PATH", "/opt/rocm")]


def test_a_cmake_stage_unmapped_builds_something() -> None:
    found = [str(f) for f in buildflags.components(upstream(mapped=False), Path("."))]
    assert found == ["upstream-dockerfiles.toml:1: build-components: upstream's "
                     "Dockerfile.rocm_72_base stage build_rocm_runtime builds something "
                     "(Dockerfile.rocm_72_base:3); no stage here is mapped to it"]


def test_the_same_d_options_conform(tmp_path: Path) -> None:
    assert check(tmp_path, OURS) == []


@pytest.mark.parametrize(("ours", "said"), [
    (OURS.replace(" -DCLR_BUILD_HIP=ON", ""),
     "builds with -DCLR_BUILD_HIP=ON (Dockerfile.rocm_72_base:3); this stage does not"),
    (OURS.replace("-DCLR_BUILD_OCL=OFF", "-DCLR_BUILD_OCL=ON"),
     "builds with -DCLR_BUILD_OCL=OFF (Dockerfile.rocm_72_base:3); this stage with "
     "-DCLR_BUILD_OCL=ON"),
])
def test_a_d_option_upstream_passes_and_this_stage_does_not(tmp_path: Path, ours: str,
                                                             said: str) -> None:
    assert check(tmp_path, ours) == [
        "dockerfiles/rocm-runtime.Dockerfile:1: build-flags: upstream's Dockerfile.rocm_72_base "
        f"stage build_rocm_runtime {said}"]
