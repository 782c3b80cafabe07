"""One CACHE_TYPE for every compile of the test stage graph (gfx950), built once per value:
the cache's own counters (sccache's statistics, ccache's stats log) show the compiles of
setuptools' host C++ and hipcc's HIP (core, ~ torch.utils.cpp_extension: CC/CXX name the host
wrappers, HIP goes through the HIP wrapper directory), of a CMake build (plugin, the launchers)
and of a make build that picks its launcher from PATH as vLLM's setup.py does (plugin-make:
only the chosen tool is on PATH); with CACHE_TYPE=none no cache is called at all (no ccache
stats-log line, no sccache server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_bake.compilercache import health as cache_health
from tests.e2e.stages.conftest import ARCH, bake
from tests.hip.conftest import Rocm

pytestmark = pytest.mark.engine

# step -> language -> at least this many compiles (the Makefile: exactly its two C files).
EXPECTED = {"core": {"HIP": 1, "C/C++": 1}, "plugin": {"HIP": 1, "C/C++": 2},
            "plugin-make": {"C/C++": 2}}
MAKE_UNITS = 2


def build(cache_type: str, engine: str, rocm: Rocm, out: Path) -> Path:
    bake([f"wheels-{ARCH}"], [f"DIST={out}", f"GPU_ARCHS={ARCH}", f"CACHE_TYPE={cache_type}",
                              f"ROCM_VERSION={rocm.version}"],
         engine, out.parent / f"{cache_type}.log", [out])
    return out / ARCH / "compiler-cache"


@pytest.mark.parametrize("cache_type", ["sccache", "ccache"])
def test_every_compile_goes_through_the_chosen_cache(cache_type: str, engine: str, rocm: Rocm,
                                                     tmp_path: Path) -> None:
    stats = {s.name: s for s in cache_health.load_stats(build(cache_type, engine, rocm,
                                                              tmp_path / "dist"))}
    assert sorted(stats) == sorted(EXPECTED), stats
    for step, languages in EXPECTED.items():
        assert stats[step].tool == cache_type, stats[step]
        for language, least in languages.items():
            assert stats[step].language(language).requests >= least, (step, stats[step])
    make = stats["plugin-make"]
    assert make.requests == MAKE_UNITS and list(make.languages) == ["C/C++"], make


def test_none_calls_no_cache(engine: str, rocm: Rocm, tmp_path: Path) -> None:
    directory = build("none", engine, rocm, tmp_path / "dist")
    assert cache_health.load_stats(directory) == []
    for step in EXPECTED:
        text = (directory / f"{step}.txt").read_text()
        assert "(ccache calls: 0; sccache server: not started)" in text, (step, text)
