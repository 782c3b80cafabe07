"""The arch audit after every `inv build`: one `arch:` line per exported cell of the test stage
graph (its image by reference, its wheels export), and a cell built for the wrong arch fails
the build with exit status 1 and a line naming the file and its archs. Reuses the stage graph
built once by the `stage_build` fixture: these builds are cache hits but for what they change."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT, Result, run_cli
from tests.e2e.stages.conftest import ARCH, BAKE_FILE, STAGES, StageBuild

INV = ["inv", "--search-root", str(ROOT), "build", "--file", BAKE_FILE]


def arch_lines(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("arch: ")]


def inv_build(stage_build: StageBuild, engine: str, *args: str) -> Result:
    """inv build of the test variant with ROCM_VERSION the HIP image's, as the stage build."""
    return run_cli([*INV, "--set", f"ROCM_VERSION={stage_build.rocm}", *args], cwd=STAGES,
                   env={"DOCKER_HOST": engine}, timeout=900)


@pytest.mark.engine
def test_each_exported_cell_gets_one_audit_line(stage_build: StageBuild, engine: str,
                                                tmp_path: Path) -> None:
    """app-<arch> (the runtime image, by reference in the engine) and wheels-<arch> (the
    export directory); base/core/plugin are only linked (built as contexts, not exported)."""
    dist = tmp_path / "dist"
    result = inv_build(stage_build, engine, "--target", f"app-{ARCH}", "--target", f"wheels-{ARCH}",
                       "--set", f"DIST={dist}", "--set", f"TAG={stage_build.tag}")
    assert result.returncode == 0, result.stderr[-3000:]
    image = stage_build.image(ARCH)
    app, wheels = arch_lines(result)
    # The image's host-only ELF files are the whole Debian + Python of the HIP image.
    assert re.fullmatch(
        rf"arch: app-{ARCH}: expected {ARCH}: ok: 2 ELF file\(s\) with GPU code carry {ARCH} "
        rf"\(\d+ host-only\) in image {re.escape(image)} "
        rf"\(/opt/rocm\* left out: ROCm's own\)", app), app
    assert wheels == (f"arch: wheels-{ARCH}: expected {ARCH}: ok: 2 ELF file(s) with GPU code "
                      f"carry {ARCH} (3 host-only) in {dist / ARCH}")


@pytest.mark.engine
def test_a_cell_without_gpu_code_says_so(stage_build: StageBuild, engine: str,
                                         tmp_path: Path) -> None:
    """base-<arch> exported on its own: its image holds no GPU code of its own."""
    out = tmp_path / "base"
    result = inv_build(stage_build, engine, "--target", f"base-{ARCH}",
                       "--set", f"base-{ARCH}.output=type=oci,dest={out}.tar")
    assert result.returncode == 0, result.stderr[-3000:]
    (line,) = arch_lines(result)
    assert line.startswith(f"arch: base-{ARCH}: no GPU code (")
    assert f"host-only ELF file(s)) in {out}.tar" in line


@pytest.mark.engine
def test_a_cell_built_for_another_arch_fails_the_build(stage_build: StageBuild, engine: str,
                                                       tmp_path: Path) -> None:
    """core-gfx950 with PYTORCH_ROCM_ARCH=gfx1201 (the knob hipcc's --offload-arch comes from):
    the build itself succeeds, the audit of its export catches the library."""
    out = tmp_path / "core"
    result = inv_build(stage_build, engine, "--target", f"core-{ARCH}",
                       "--set", f"base-{ARCH}.args.PYTORCH_ROCM_ARCH=gfx1201",
                       "--set", f"core-{ARCH}.output=type=local,dest={out}")
    assert result.returncode == 1, result.stderr[-3000:]
    (wheel,) = (out / "wheels").glob("rb_core-*.whl")
    library = f"{wheel}!rb_core_gpu/librb_core_gpu.so"
    assert arch_lines(result) == [
        f"arch: core-{ARCH}: expected {ARCH}: WRONG ARCH (2 problem(s)): 1 ELF file(s) with GPU "
        f"code carry gfx1201 (1 host-only) in {out}",
        f"arch: core-{ARCH}: {library}: lacks {ARCH}",
        f"arch: core-{ARCH}: {library}: carries gfx1201 (expected only {ARCH})",
    ], result.stderr[-3000:]
    assert result.stderr.rstrip().endswith(
        f"error: arch audit: wrong GPU arch in core-{ARCH} (see the arch: lines)")


@pytest.mark.engine
def test_a_cell_that_exports_nothing_is_named(stage_build: StageBuild, engine: str) -> None:
    """A cell whose output leaves nothing to read is one line, not skipped in silence."""
    result = inv_build(stage_build, engine, "--target", f"app-{ARCH}",
                       "--set", f"app-{ARCH}.output=type=cacheonly")
    assert result.returncode == 0, result.stderr[-3000:]
    assert arch_lines(result) == [f"arch: app-{ARCH}: not audited: its output is "
                                  "type=cacheonly: nothing was exported"], result.stderr[-3000:]
