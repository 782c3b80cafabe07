"""CACHE_TYPE=ccache on the cache test stack (ggml's small set, the real HIP compiler, the real
WebDAV store as ccache's HTTP remote storage): a warm rebuild, whose compile step starts with an
empty local ccache directory as a build on another machine does, finds every HIP and C/C++
translation unit in the shared store without running the preprocessor -- said by ccache's own
counters (its stats log: direct_cache_hit, remote_storage_hit), which the build exports and
prints as its `cache:` line."""

from __future__ import annotations

import pytest

from rocm_bake.compilercache import health as cache_health
from rocm_bake.perf import runner
from tests.e2e.cachestack.conftest import COMPILE_STEP, HIP_TUS, HOST_TUS, Stack, count_lines, ggml

pytestmark = pytest.mark.engine



@pytest.fixture(scope="module")
def ccache_cold(stack: Stack) -> runner.BakeRun:
    return stack.bake("ccache-cold", f"ccache-cold-{stack.uid}", tool="ccache",
                      secret=stack.secret("ccache", namespace=f"ccache-{stack.uid}",
                                          tool="ccache"))


def test_cold_build_writes_the_shared_store(stack: Stack, ccache_cold: runner.BakeRun) -> None:
    stats = ggml(ccache_cold)
    assert stats.tool == "ccache" and stats.location == "ccache local + remote storage", stats
    assert stats.language("HIP") == cache_health.LanguageStats(0, HIP_TUS), stats
    assert stats.language("C/C++") == cache_health.LanguageStats(0, HOST_TUS), stats
    # A result and a manifest per translation unit, PUT on the WebDAV store.
    assert stats.writes == 2 * (HIP_TUS + HOST_TUS) and stats.write_errors == 0, stats
    puts = count_lines(stack.webdav / "access.log", f"PUT /ccache-{stack.uid}/")
    assert puts >= stats.writes, puts
    assert ccache_cold.warnings(rebuild=False) == []


def test_warm_rebuild_hits_without_the_preprocessor(stack: Stack,
                                                    ccache_cold: runner.BakeRun) -> None:
    run = stack.bake("ccache-warm", f"ccache-warm-{stack.uid}", export=False, tool="ccache",
                     secret=stack.work / "ccache.secret")
    assert not run.step(COMPILE_STEP).cached
    stats = ggml(run)
    # Every hit a direct one: found from the source, the command line and the manifest's
    # headers, the preprocessor never run; all of them from the remote storage.
    assert stats.language("HIP") == cache_health.LanguageStats(HIP_TUS, 0, HIP_TUS), stats
    assert stats.language("C/C++") == cache_health.LanguageStats(HOST_TUS, 0, HOST_TUS), stats
    assert stats.direct == stats.hits == HIP_TUS + HOST_TUS and stats.writes == 0, stats
    exported = cache_health.load_stats(stack.work / "ccache-warm" / "dist" / "compiler-cache")
    assert next(s for s in exported if s.name == "ggml") == stats
    summary = run.summary("ggml")
    assert f"ccache {HIP_TUS + HOST_TUS + 1} hits / 0 misses (100%), " \
           f"{HIP_TUS + HOST_TUS + 1} direct" in summary, summary
    assert run.warnings(rebuild=True) == []
