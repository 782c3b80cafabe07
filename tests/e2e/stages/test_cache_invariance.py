"""The compiler cache never changes the output (issue 34): the test variant's runtime image,
built once per compiler-cache cell with every RUN step run again -- CACHE_TYPE=none, ccache
cold (cache mounts of its own) then warm, sccache cold then warm -- by `inv verify-repro
--cache-invariant`, on the suite's engine (the pull-request lane's current one; the floor lane,
.github/workflows/engine-floor.yml, runs it on Docker 26.1.5: the BUILDKIT_CACHE_MOUNT_NS /
BUILDKIT_SANDBOX_HOSTNAME scheme holds on both), is the committed reproducible image every time
(expected/app-gfx950.json),
and each warm build is all hits by the cache's own counters (ccache's stats log, sccache's
statistics, which with-compiler-cache.sh prints per compile step). Its HIP units compile with a
fixed -cuid, so a hit cannot carry another build's __hip_cuid_* symbol."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from rocm_bake.reproducible import diff as reprodiff
from tests.conftest import ROOT, Result, run_cli
from tests.e2e.stages.conftest import ARCH, BAKE_FILE, STAGES
from tests.hip.conftest import Rocm

pytestmark = pytest.mark.engine

EXPECTED = STAGES / "expected" / f"app-{ARCH}.json"
CELLS = ["none", "ccache cold", "ccache warm", "sccache cold", "sccache warm"]
LINE = re.compile(r"^(?P<cell>[a-z ]+): (?P<digest>sha256:[0-9a-f]{64}) "
                  r"\((?:(?P<hits>\d+) hits / (?P<misses>\d+) misses|no compiler cache called)\)$")


@dataclass(frozen=True)
class Run:
    result: Result
    cells: dict[str, re.Match[str]]


@pytest.fixture(scope="module")
def run(engine: str, rocm: Rocm, tmp_path_factory: pytest.TempPathFactory) -> Run:
    keep = tmp_path_factory.mktemp("cache-invariance")
    result = run_cli(["inv", "--search-root", str(ROOT), "verify-repro", "--file", BAKE_FILE,
                      "--target", f"app-{ARCH}", "--cache-invariant", "--expect", str(EXPECTED),
                      "--keep", str(keep)],
                     cwd=STAGES, env={"DOCKER_HOST": engine, "ROCM_VERSION": rocm.version},
                     timeout=3600)
    lines = result.stdout.splitlines()
    cells = {m["cell"]: m for m in map(LINE.match, lines[:len(CELLS)]) if m}
    assert list(cells) == CELLS, result.stdout + result.stderr
    return Run(result, cells)


def test_every_cache_cell_gives_the_committed_image(run: Run) -> None:
    digest = reprodiff.load(EXPECTED).identity
    lines = run.result.stdout.splitlines()
    assert {m["digest"] for m in run.cells.values()} == {digest}, lines
    assert f"cache-invariant: {digest}" in lines and f"as expected: {EXPECTED}" in lines
    assert run.cells["none"]["hits"] is None                  # no cache was called at all
    for cold in ("ccache cold", "sccache cold"):
        assert int(run.cells[cold]["hits"]) == 0 and int(run.cells[cold]["misses"]) > 0, lines


def test_each_warm_build_is_all_hits(run: Run) -> None:
    lines = run.result.stdout.splitlines()
    for warm, cold in (("ccache warm", "ccache cold"), ("sccache warm", "sccache cold")):
        assert int(run.cells[warm]["misses"]) == 0, lines
        assert int(run.cells[warm]["hits"]) == int(run.cells[cold]["misses"]), lines
    assert run.result.returncode == 0, run.result.stdout + run.result.stderr
