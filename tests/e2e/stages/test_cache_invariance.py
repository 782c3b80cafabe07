"""The compiler cache never changes the output (issue 34): the test variant's runtime image,
built with --no-cache once per compiler-cache cell -- CACHE_TYPE=none, ccache cold (cache
mounts of its own: COMPILER_CACHE_ID) then warm, sccache cold then warm -- by `inv verify-repro
--cache-invariant`, is the committed reproducible image every time (expected/app-gfx950.json),
and each warm build is all hits by the cache's own counters (ccache's stats log, sccache's
statistics, which with-compiler-cache.sh prints per compile step). Its HIP units compile with a
fixed -cuid, so a hit cannot carry another build's __hip_cuid_* symbol."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rocm_bake import reprodiff
from tests.conftest import ROOT, run_cli
from tests.e2e.stages.conftest import ARCH, BAKE_FILE, STAGES
from tests.hip.conftest import Rocm

pytestmark = pytest.mark.engine

EXPECTED = STAGES / "expected" / f"app-{ARCH}.json"
CELLS = ["none", "ccache cold", "ccache warm", "sccache cold", "sccache warm"]
LINE = re.compile(r"^(?P<cell>[a-z ]+): (?P<digest>sha256:[0-9a-f]{64}) "
                  r"\((?:(?P<hits>\d+) hits / (?P<misses>\d+) misses|no compiler cache called)\)$")


def test_every_cache_cell_gives_the_committed_image(engine: str, rocm: Rocm,
                                                    tmp_path: Path) -> None:
    result = run_cli(["inv", "--search-root", str(ROOT), "verify-repro", "--file", BAKE_FILE,
                      "--target", f"app-{ARCH}", "--cache-invariant", "--expect", str(EXPECTED),
                      "--keep", str(tmp_path)],
                     cwd=STAGES, env={"DOCKER_HOST": engine, "ROCM_VERSION": rocm.version},
                     timeout=3600)
    assert result.returncode == 0, result.stdout + result.stderr
    digest = reprodiff.load(EXPECTED).digest
    lines = result.stdout.splitlines()
    cells = {m["cell"]: m for m in map(LINE.match, lines[:len(CELLS)]) if m}
    assert list(cells) == CELLS, lines
    assert {m["digest"] for m in cells.values()} == {digest}
    assert cells["none"]["hits"] is None                      # no cache was called at all
    for cold in ("ccache cold", "sccache cold"):
        assert int(cells[cold]["hits"]) == 0 and int(cells[cold]["misses"]) > 0, lines
    for warm, cold in (("ccache warm", "ccache cold"), ("sccache warm", "sccache cold")):
        assert int(cells[warm]["misses"]) == 0, lines
        assert int(cells[warm]["hits"]) == int(cells[cold]["misses"]), lines
    assert f"cache-invariant: {digest}" in lines and f"as expected: {EXPECTED}" in lines
