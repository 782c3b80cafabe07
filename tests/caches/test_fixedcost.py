"""The fixed cost of a build (rocm_bake.perf.fixedcost): a bake's wall time cut into parts by
its vertex times, the parts summing to the wall; the cost per hit apart (no engine)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from rocm_bake.compilercache import health as cache_health
from rocm_bake.docker.progress import Step
from rocm_bake.perf import fixedcost, history, schema

T0 = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)


def _at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def _step(name: str, start: float, end: float, cached: bool = False) -> Step:
    return Step(name, name, _at(start), _at(end), cached)


COMPILE = "[ggml build 3/6] RUN COMPILER_CACHE_STATS_NAME=ggml with-compiler-cache.sh make"
STEPS = [
    _step("[internal] load local bake definitions", 0.5, 0.6),
    _step("[ggml internal] load build definition from ggml.Dockerfile", 0.6, 0.7),
    _step("[ggml context downloads] load from client", 0.7, 1.7),
    _step("[ggml] importing cache manifest from 127.0.0.1:5000/x:y", 0.7, 1.0),
    _step("[ggml build 1/6] RUN tar -xzf sdist", 1.0, 2.0, cached=True),
    _step(COMPILE, 2.0, 3.0),
    # the compile step and the local export overlap: the RUN step counts first
    _step("[ggml] exporting to client directory", 2.5, 3.5),
    _step("[ggml] exporting cache to registry", 3.8, 4.0),
]


def test_the_parts_add_up_to_the_wall_and_the_run_steps_come_first() -> None:
    cut = fixedcost.breakdown(STEPS, T0, _at(4.5))
    parts = cut.to_json()
    assert abs(cut.wall - 4.5) < 1e-9
    assert parts["run"] == 1.0
    assert parts["client"] == 0.5 + 0.5           # before the first vertex, after the last
    assert parts["definitions"] == 0.2
    assert parts["cache import"] == 0.3           # over the context transfer beside it
    assert parts["context transfer"] == 0.7
    assert parts["other steps"] == 0.3            # a CACHED RUN step is no compile
    assert parts["image export"] == 0.5           # only what the RUN step does not cover
    assert parts["between steps"] == 0.3
    assert parts["cache export"] == 0.2
    assert abs(cut.fixed - 3.5) < 1e-9
    assert cut.line().startswith("fixed 3.50 s of 4.50 s: client 1.00, context transfer 0.70")


def test_a_vertex_outside_the_client_run_is_clipped() -> None:
    cut = fixedcost.breakdown([_step(COMPILE, -1.0, 2.0)], T0, _at(1.0))
    assert cut.to_json()["run"] == 1.0 and cut.fixed == 0.0


def test_the_cost_per_hit_counts_only_compile_steps_that_ran() -> None:
    stats = [cache_health.CacheStats("ggml", hits=40), cache_health.CacheStats("probe", hits=1)]
    # the probe step was CACHED: its exported stats are an earlier build's
    steps = [*STEPS, _step("[ggml build 5/6] RUN COMPILER_CACHE_STATS_NAME=probe hipcc", 0, 1,
                           cached=True)]
    assert fixedcost.hit_cost(steps, stats) == (1.0, 40)
    assert fixedcost.hit_cost(steps, [cache_health.CacheStats("ggml", misses=40)]) is None


def test_the_history_and_its_summary_report_fixed_cost_and_cost_per_hit_apart(
        tmp_path: Path) -> None:
    records = []
    for condition, end, stats in (("cold", 60.0, [cache_health.CacheStats("ggml", misses=40)]),
                                  ("warm", 4.5, [cache_health.CacheStats("ggml", hits=40)])):
        records.append(history.record(
            run_id="r", repeat=1, condition=condition, target="ggml", seconds=end,
            arch="gfx950", workload=schema.Workload("b.hcl", {"ggml": {"HIP": 40}}),
            steps=STEPS, stats=stats, commit="c", pins="p",
            fixed=fixedcost.breakdown(STEPS, T0, _at(end))))
    warm = records[1]
    assert warm["fixed_seconds"] == 3.5 and warm["hit_cost"] == {"seconds": 1.0, "hits": 40}
    assert "hit_cost" not in records[0]
    path = tmp_path / "history.jsonl"
    history.append(path, records)
    text = history.markdown(history.load(path))
    assert "Fixed cost per build" in text
    row = next(line for line in text.splitlines() if line.startswith("| warm ") and
               "ms" in line)
    assert "3.50 s" in row and "25.0 ms" in row      # 1.0 s over 40 hits
