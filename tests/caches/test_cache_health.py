"""Cache health without an engine: sccache statistics, health warnings, the per-target summary
of a build's progress."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from rocm_bake.compilercache import health as cache_health
from rocm_bake.docker import progress as buildx_progress


def _sccache_json(hits: int, misses: int, writes: int, write_errors: int) -> dict[str, object]:
    return {"stats": {"cache_hits": {"counts": {"C/C++": hits}, "adv_counts": {}},
                      "cache_misses": {"counts": {"C/C++": misses}, "adv_counts": {}},
                      "cache_writes": writes, "cache_write_errors": write_errors,
                      "cache_read_errors": 0, "cache_timeouts": 0,
                      "requests_not_cacheable": 0},
            "cache_location": "WebDAV"}


def test_stats_hit_rate_and_total(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps(_sccache_json(38, 1, 1, 0)))
    (tmp_path / "b.json").write_text(json.dumps(_sccache_json(0, 1, 0, 1)))
    (tmp_path / "c.txt").write_text("ccache text")
    stats = cache_health.load_stats(tmp_path)
    assert [s.name for s in stats] == ["a", "b"]
    assert stats[0].hit_rate == pytest.approx(38 / 39)
    assert cache_health.total(stats).hit_rate == pytest.approx(38 / 40)
    assert cache_health.CacheStats("x").hit_rate is None


def test_health_warnings() -> None:
    low = cache_health.CacheStats("torch", hits=5, misses=95, writes=95)
    assert cache_health.health_warnings(low, read_only=False, rebuild=True)
    assert cache_health.health_warnings(low, read_only=False, rebuild=False) == []
    silent = cache_health.CacheStats("torch", hits=0, misses=39, writes=0, write_errors=39)
    assert "silently went read-only" in cache_health.health_warnings(silent, read_only=False,
                                                                     rebuild=False)[0]
    assert cache_health.health_warnings(silent, read_only=True, rebuild=False) == []


def _status(**vertex: object) -> str:
    return json.dumps({"vertexes": [vertex]})


def test_parse_progress_steps_cached_and_logs() -> None:
    lines = [
        _status(digest="d1", name="[build 1/2] RUN make", started="2026-01-01T00:00:00.5Z"),
        json.dumps({"logs": [{"vertex": "d1", "data": base64.b64encode(b"hello\n").decode()}]}),
        _status(digest="d1", name="[build 1/2] RUN make", started="2026-01-01T00:00:00.5Z",
                completed="2026-01-01T00:00:10.123456789Z"),
        _status(digest="d2", name="[build 2/2] RUN true", cached=True,
                started="2026-01-01T00:00:00Z", completed="2026-01-01T00:00:00Z"),
        _status(digest="d3", name="[internal] load build context"),
        "not json",
    ]
    steps = buildx_progress.parse_rawjson(lines)
    assert [s.digest for s in steps] == ["d1", "d2", "d3"]
    assert steps[0].seconds == pytest.approx(9.623456) and steps[0].log == ["hello\n"]
    assert steps[1].cached and steps[1].is_run and not steps[2].is_run
    stats = [cache_health.CacheStats("x", hits=9, misses=1, writes=1)]
    line = cache_health.summary_line("t", steps, stats)
    assert line == "t: 1/2 RUN steps CACHED, sccache 9 hits / 1 misses (90%), 1 writes"


def test_parse_plain_and_health_report() -> None:
    stats = json.dumps(_sccache_json(1, 39, 0, 39))
    lines = ["#1 [internal] load build definition\n",
             "#5 [torch build 2/5] RUN with-compiler-cache.sh make\n",
             "#5 0.512 compiling\n",
             f"#5 120.3 rocm-bake-cache-stats torch {stats}\n",
             "#5 DONE 121.0s\n",
             "#6 [torch build 1/5] RUN true\n", "#6 CACHED\n",
             "#7 [base base 2/2] RUN echo\n", "#7 CACHED\n"]
    steps = buildx_progress.parse_plain(lines)
    assert [buildx_progress.target_of(s) for s in steps] == ["internal", "torch", "torch", "base"]
    summary, warnings = cache_health.health_report(steps, read_only=False)
    assert summary == ["torch: 1/2 RUN steps CACHED, sccache 1 hits / 39 misses (2%), 0 writes",
                       "base: 1/1 RUN steps CACHED"]
    assert len(warnings) == 2 and all(w.startswith("torch: torch: ") for w in warnings)
    _, read_only = cache_health.health_report(steps, read_only=True, rebuild=False)
    assert read_only == []
