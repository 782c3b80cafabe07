"""Per-language sccache statistics (no engine): HIP and C/C++ from sccache 0.16's own
counters, the 0-HIP-hits warning, the summary line, the perf history and its summary."""

from __future__ import annotations

import re
from pathlib import Path

from rocm_bake.compilercache import health as cache_health
from rocm_bake.docker.progress import Step
from rocm_bake.perf import history, schema
from rocm_bake_docs import performance
from rocm_bake_docs.source import Source

# The shape sccache 0.16.0 prints for `--show-stats --stats-format=json` after compiling HIP
# (hipcc through the wrapper directory) and host C/C++ (trimmed to the fields read).
WORKLOAD = schema.Workload("tests/e2e/cachestack/docker-bake.hcl")
COLD = {"stats": {"cache_hits": {"counts": {}, "adv_counts": {}},
                  "cache_misses": {"counts": {"C/C++": 2, "HIP": 3},
                                   "adv_counts": {"c++ [gcc]": 1, "hip [clang]": 3,
                                                  "c [gcc]": 1}},
                  "cache_writes": 5, "cache_write_errors": 0, "cache_read_errors": 0,
                  "cache_timeouts": 0, "requests_not_cacheable": 0},
        "cache_location": "Local disk: \"/root/.cache/sccache\""}
WARM = {"stats": {"cache_hits": {"counts": {"C/C++": 2, "HIP": 3}, "adv_counts": {}},
                  "cache_misses": {"counts": {}, "adv_counts": {}}, "cache_writes": 0}}


def test_per_language_counters() -> None:
    stats = cache_health.CacheStats.from_sccache("ggml", COLD)
    assert stats.misses == 5 and stats.hits == 0
    assert stats.language("HIP") == cache_health.LanguageStats(0, 3)
    assert stats.language("C/C++") == cache_health.LanguageStats(0, 2)
    assert stats.language("CUDA") == cache_health.LanguageStats()
    assert list(stats.to_json()["languages"]) == ["C/C++", "HIP"]   # type: ignore[call-overload]
    both = cache_health.total([stats, cache_health.CacheStats.from_sccache("x", WARM)])
    assert both.language("HIP") == cache_health.LanguageStats(3, 3)
    assert both.language("HIP").hit_rate == 0.5


def test_rebuild_with_no_hip_hit_warns() -> None:
    cold = cache_health.CacheStats.from_sccache("ggml", COLD)
    warnings = cache_health.health_warnings(cold, read_only=False, rebuild=True)
    assert any("0 HIP hits of 3 HIP compiles on a rebuild" in w for w in warnings), warnings
    assert cache_health.health_warnings(cold, read_only=False, rebuild=False) == []
    warm = cache_health.CacheStats.from_sccache("ggml", WARM)
    assert cache_health.health_warnings(warm, read_only=False, rebuild=True) == []
    # One new HIP TU (a probe) is no alarm; C/C++-only steps never get the HIP warning.
    one = cache_health.CacheStats("p", misses=1,
                                  languages={"HIP": cache_health.LanguageStats(0, 1)})
    assert cache_health.health_warnings(one, read_only=True, rebuild=True) == []


def test_summary_line_names_the_languages() -> None:
    steps = [Step("d", "[ggml build 2/4] RUN make", cached=False)]
    warm = cache_health.CacheStats.from_sccache("ggml", WARM)
    line = cache_health.summary_line("ggml", steps, [warm])
    assert line.endswith("; C/C++ 2 hits / 0 misses, HIP 3 hits / 0 misses"), line


def test_history_and_summary_split_hip_from_host(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    step = Step("d", "[ggml build 2/4] RUN make", cached=False)
    records = [history.record(run_id="r", repeat=1, condition=condition, target="ggml",
                              seconds=seconds, arch="gfx950", workload=WORKLOAD, steps=[step],
                              stats=[cache_health.CacheStats.from_sccache("ggml", raw)],
                              commit="c", pins="p")
               for condition, seconds, raw in (("cold", 200.0, COLD), ("warm", 10.0, WARM))]
    history.append(path, records)
    loaded = history.load(path)
    assert loaded[0]["sccache_languages"] == {"C/C++": {"hits": 0, "misses": 2},
                                              "HIP": {"hits": 0, "misses": 3}}
    assert loaded[0]["hip_hit_rate"] == 0.0 and loaded[1]["hip_hit_rate"] == 1.0
    summary = history.summarize(loaded)
    assert summary["warm"].hip_hit_rate == 1.0
    assert summary["warm"].languages == {"C/C++": (2, 0), "HIP": (3, 0)}
    text = re.sub(r" {2,}", " ", history.markdown(loaded))
    row = ("| warm | 1 | 10.0 s | 10.0 s | 10.0 s | 0.050 | ≤ 0.05 | 100.0% | 100.0% "
           "| 3 / 0 | 2 / 0 |")
    assert row in text, text


def test_docs_summary_shows_the_newest_run_of_all_conditions(tmp_path: Path) -> None:
    """benchmarks/perf.py times other archs' cold builds after the four-condition run: the
    summary keeps showing the run of all four."""
    step = Step("d", "[ggml build 2/4] RUN make", cached=False)

    def record(run: str, arch: str, condition: str, seconds: float) -> dict[str, object]:
        return history.record(run_id=run, repeat=1, condition=condition, target="ggml",
                              seconds=seconds, arch=arch, workload=WORKLOAD, steps=[step],
                              stats=[], commit="c", pins=run)

    records = [record("four", "gfx950", c, s) for c, s in (("cold", 200.0), ("frozen", 1.0),
                                                           ("warm", 12.0), ("hot", 5.0))]
    records.append(record("later", "gfx1250", "cold", 230.0))
    text = history.markdown(records)
    gfx950, gfx1250 = text.split("### `ggml` for gfx950 with sccache")[1].split(
        "### `ggml` for gfx1250 with sccache")
    assert "Run `four`" in gfx950 and "230.0 s" not in gfx950, text
    assert "Run `later`" in gfx1250 and "| cold " in gfx1250 and "| warm " not in gfx1250
    assert "the newest run of the most conditions, `four`" in text


def test_docs_latest_numbers_come_from_one_run(tmp_path: Path) -> None:
    """The performance page's "Latest numbers" row of a target is one run's: a later cold-only
    run of another arch does not put its cold time beside the four-condition run's."""
    step = Step("d", "[ggml build 2/4] RUN make", cached=False)
    path = tmp_path / "history.jsonl"
    for run, condition, seconds in (("four", "cold", 200.0), ("four", "frozen", 1.0),
                                    ("four", "warm", 12.0), ("four", "hot", 5.0),
                                    ("gfx1250", "cold", 230.0)):
        history.append(path, [history.record(run_id=run, repeat=1, condition=condition,
                                             target="ggml", seconds=seconds, steps=[step],
                                             arch="gfx1250" if run == "gfx1250" else "gfx950",
                                             workload=WORKLOAD, stats=[], commit="c",
                                             pins=run)])
    source = Source(tmp_path, perf_history=Path("history.jsonl"))
    rows = [line for line in performance.render(source).splitlines()
            if line.startswith("| `ggml`")]
    assert len(rows) == 2 and "gfx950" in rows[0] and "gfx1250" in rows[1], rows
    assert "3m 20s" in rows[0] and "3m 50s" not in rows[0], rows
    assert "3m 50s" in rows[1] and "3m 20s" not in rows[1], rows
