"""inv verify-repro: the test variant's runtime image, which carries real HIP code objects
(clang-22 / hipcc, a fixed -cuid per translation unit), built twice from empty caches gives the
same image -- the one committed in expected/ (its inputs are pinned by content: the HIP image
from scripts/hip-toolchain.lock), so on any machine and on both engines (the floor, Docker
26.1.5, and the current one: the same identity, each engine's own manifest digest, the one the
expectation records for it) -- and its archive passes the arch audit; a target that is not
reproducible is reported with its first differing layer and files; an offline step that tries
to download fails the build; bad input is one line, exit 2."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from rocm_bake.archaudit import cells
from rocm_bake.reproducible import diff as reprodiff
from rocm_bake.reproducible import verify as repro
from tests.conftest import RELEASES, ROOT, run_cli
from tests.e2e.stages.conftest import ARCH, BAKE_FILE, STAGES, engine_of
from tests.hip.conftest import Rocm

INV = ["inv", "--search-root", str(ROOT), "verify-repro"]
# The expectation of the gfx950 runtime image (inv verify-repro --record): its identity on any
# machine whose rocm-bake/hip:test was built from scripts/hip-toolchain.lock, on any engine,
# and the manifest digest each engine it was recorded on encodes it as.
EXPECTED = STAGES / "expected" / f"app-{ARCH}.json"


def test_the_expectation_records_both_engines_encodings() -> None:
    """One image, two encodings: what was measured (docs/reproducibility.md)."""
    expected = reprodiff.load(EXPECTED)
    dockers = sorted(key.split(",")[0] for key in expected.encodings)
    assert [d.split()[1].split("+")[0] for d in dockers] == ["26.1.5", "28.5.2"], dockers
    manifests = {e["manifest"] for e in expected.encodings.values()}
    configs = {e["config"] for e in expected.encodings.values()}
    assert len(manifests) == len(configs) == 2


@pytest.mark.engine
@pytest.mark.parametrize("release", RELEASES)
def test_the_runtime_image_is_reproducible(release: str, stage_engines: dict[str, str],
                                           rocm: Rocm, tmp_path: Path) -> None:
    engine = stage_engines[release]
    result = run_cli([*INV, "--file", BAKE_FILE, "--target", f"app-{ARCH}", "--keep",
                      str(tmp_path), "--expect", str(EXPECTED)], cwd=STAGES,
                     env={"DOCKER_HOST": engine, "ROCM_VERSION": rocm.version}, timeout=1200)
    assert result.returncode == 0, result.stdout + result.stderr
    first, second = (repro.read_image(tmp_path / f"build-{n}.tar") for n in (1, 2))
    assert first.identity == second.identity
    # One engine encodes one image one way: the same manifest, the same blobs.
    assert (first.digest, first.layers) == (second.digest, second.layers)
    assert f"reproducible: {first.identity}" in result.stdout
    assert f"as expected: {EXPECTED}" in result.stdout
    expected = reprodiff.load(EXPECTED)
    assert first.identity == expected.identity
    # The manifest digest is this engine's encoding, the one the expectation records for it.
    this = engine_of(engine)
    assert expected.encodings[str(this)]["manifest"] == first.digest
    assert (f"encoding: manifest {first.digest} (this engine's: {this}); the expectation's "
            "for this engine") in result.stdout.splitlines()
    # An expectation recorded from another HIP image (another layer, another identity): the
    # input is named, not the build.
    elsewhere = dataclasses.replace(expected, identity="sha256:" + "1" * 64,
                                    inputs={n: ["sha256:" + "0" * 64] for n in expected.inputs})
    lines = reprodiff.compare(elsewhere, tmp_path / "build-1.tar", expected.inputs)
    assert lines[0] == f"expected sha256:{'1' * 64}, built {first.identity}"
    assert (f"input rocm-bake/hip:test differs: layers "
            f"{expected.inputs['rocm-bake/hip:test'][0][7:19]} here, 000000000000 "
            "expected") in lines[1:]
    # The image holds real HIP code objects, for its cell's arch only (the audit of the OCI
    # tarball inside verify-repro): core's hipcc library and plugin's CMake HIP library.
    tarball = tmp_path / "build-1.tar"
    line = next(x for x in result.stdout.splitlines() if x.startswith("arch: "))
    assert line.startswith(f"arch: app-{ARCH}: expected {ARCH}: ok: 2 ELF file(s) with GPU code "
                           f"carry {ARCH} ("), line
    assert line.endswith(f"in image {tarball} (/opt/rocm* left out: ROCm's own)"), line
    # The same tarball taken for another arch's cell: verify-repro's verdict is exit 1, and
    # the lines name each library and its arch.
    other = "gfx1201"
    wrong = cells.audit_artifacts(f"app-{other}", other,
                                  cells.Artifacts((str(tarball),), (str(tarball),)))
    verdict = repro.Verdict(f"app-{other}", "0", (first, second), wrong)
    assert verdict.reproducible and verdict.exit_code == 1
    problems = wrong.lines()[1:]
    assert sorted(p.rsplit("/", 1)[1] for p in problems) == [
        f"librb_core_gpu.so: carries {ARCH} (expected only {other})",
        f"librb_core_gpu.so: lacks {other}",
        f"librb_plugin_gpu.so: carries {ARCH} (expected only {other})",
        f"librb_plugin_gpu.so: lacks {other}"]


@pytest.mark.engine
def test_a_build_that_is_not_reproducible_exits_1(engine: str, tmp_path: Path) -> None:
    result = run_cli([*INV, "--file", "docker-bake.hcl", "--target", "stamp", "--keep",
                      str(tmp_path)], cwd=STAGES / "unrepro", env={"DOCKER_HOST": engine},
                     timeout=600)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "layer" in result.stdout and "differs" in result.stdout
    assert "not reproducible" in result.stderr
    # The first differing layer, its step and the one file that differs.
    assert "first differing layer: 2 (RUN /bin/sh -c cat /proc/sys/kernel/random/uuid > /stamp)" \
        in result.stdout, result.stdout
    assert "  differs: /stamp (content)" in result.stdout.splitlines()


@pytest.mark.engine
def test_an_offline_step_that_downloads_fails_the_build(engine: str, tmp_path: Path) -> None:
    result = run_cli([*INV, "--file", "docker-bake.hcl", "--target", "fetch", "--keep",
                      str(tmp_path)], cwd=STAGES / "offline", env={"DOCKER_HOST": engine},
                     timeout=600)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("error: build of fetch failed (exit 1): ")
    assert "wget -q -O /index.html http://deb.debian.org/debian/" in result.stderr


def test_a_target_without_source_date_epoch_exits_2() -> None:
    result = run_cli([*INV, "--file", "docker-bake.hcl", "--target", "hello"],
                     cwd=ROOT / "tests" / "e2e" / "stack")
    assert result.returncode == 2
    assert result.stderr.startswith("error: target hello passes no SOURCE_DATE_EPOCH")
    assert result.stderr.count("\n") == 1


def test_a_group_is_refused() -> None:
    result = run_cli([*INV, "--file", BAKE_FILE, "--target", "all"], cwd=STAGES)
    assert result.returncode == 2
    assert "needs one target" in result.stderr and "Traceback" not in result.stderr
