"""The perf history, its summary and the HTML report (no engine)."""

from __future__ import annotations

import json
import re
import threading
import urllib.request
from pathlib import Path

import pytest

from rocm_bake.compilercache import health as cache_health
from rocm_bake.core.errors import UsageError
from rocm_bake.docker.progress import Step
from rocm_bake.perf import conditions, history, report, schema


def _records(tmp_path: Path) -> Path:
    path = tmp_path / "history.jsonl"
    step = Step("d", "[t build 1/1] RUN make", cached=False)
    records = []
    for repeat, (cold, warm, hot, frozen) in enumerate([(100, 8, 4, 1), (110, 9, 5, 2)], 1):
        for condition, seconds, stats in (
                ("cold", cold, [cache_health.CacheStats("t", misses=39, writes=39)]),
                ("frozen", frozen, []), ("warm", warm, [cache_health.CacheStats("t", hits=39)]),
                ("hot", hot, [])):
            records.append(history.record(
                run_id="r1", repeat=repeat, condition=condition, target="t",
                seconds=seconds, arch="gfx950",
                workload=schema.Workload("b.hcl", {"t": {"HIP": 39}}), steps=[step],
                stats=stats, commit="abc", pins="p"))
    history.append(path, records)
    return path


def test_history_records_read_by_the_docs(tmp_path: Path) -> None:
    path = _records(tmp_path)
    docs = schema.load(path)
    assert len(docs) == 8 and {r.condition for r in docs} == set(history.CONDITIONS)
    warm = [r for r in docs if r.condition == "warm"]
    assert warm[0].cache_hit_rate == 1.0
    raw = history.load(path)
    assert raw[0]["sccache"] == {"hits": 0, "misses": 39, "writes": 39, "write_errors": 0,
                                 "per_step": [cache_health.CacheStats("t", misses=39,
                                                                      writes=39).to_json()]}
    assert raw[0]["run_steps"] == 1 and raw[0]["cached_steps"] == 0


def test_summary_medians_and_ratios(tmp_path: Path) -> None:
    records = history.load(_records(tmp_path))
    summary = history.summarize(records)
    assert summary["cold"].median == 105 and summary["cold"].maximum == 110
    ratios = history.ratios(summary)
    assert ratios["warm"] == pytest.approx(8.5 / 105)
    text = re.sub(r" {2,}", " ", history.markdown(records))   # tabulate pads the columns
    assert "| warm | 2 | 8.0 s | 8.5 s | 9.0 s | 0.081 | ≤ 0.05 | 100.0% |" in text


def test_report_is_self_contained(tmp_path: Path) -> None:
    page, summary = report.write(_records(tmp_path), tmp_path / "out")
    text = page.read_text()
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in text and "<script src" not in text
    data = text.split('<script id="data" type="application/json">')[1].split("</script>")[0]
    assert len(json.loads(data)) == 8
    assert "median / cold" in summary.read_text()


def test_serve_renders_fresh_history(tmp_path: Path) -> None:
    path = _records(tmp_path)
    server = report.serve(path, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as answer:
            assert b"rocm-bake build performance" in answer.read()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/history.jsonl",
                                    timeout=5) as answer:
            assert len(answer.read().splitlines()) == 8
    finally:
        server.shutdown()
        server.server_close()


def test_conditions_parse_and_registry_traffic(tmp_path: Path) -> None:
    assert conditions.parse_conditions("cold,frozen") == ["cold", "frozen"]
    with pytest.raises(UsageError):
        conditions.parse_conditions("tepid")
    digest = "ab" * 32
    blob = tmp_path / "reg/docker/registry/v2/blobs/sha256" / digest[:2] / digest / "data"
    blob.parent.mkdir(parents=True)
    blob.write_bytes(b"x" * 10)
    log = tmp_path / "registry.log"
    log.write_text(
        'old line http.request.method=GET http.request.uri="/v2/p/buildcache/blobs/s" '
        "http.response.written=999\n"
        'x http.request.method=GET http.request.uri="/v2/p/buildcache/blobs/sha256:1" '
        "http.response.written=5\n"
        f'x http.request.method=PUT http.request.uri="/v2/p/buildcache/blobs/uploads/u?'
        f'digest=sha256%3A{digest}"\n'
        'x http.request.method=GET http.request.uri="/v2/other/blobs/x" '
        "http.response.written=7\n")
    offset = len(log.read_text().splitlines()[0]) + 1
    assert conditions.registry_traffic(log, offset, "127.0.0.1:5000/p/buildcache",
                                       tmp_path / "reg") == (5, 10)


def test_a_record_names_its_arch_workload_and_machine(tmp_path: Path) -> None:
    raw = history.load(_records(tmp_path))[0]
    assert raw["arch"] == "gfx950"
    assert raw["workload"] == {"bake_file": "b.hcl", "units": {"t": {"HIP": 39}}}
    assert isinstance(raw["cpus"], int) and raw["cpus"] >= 1
    assert isinstance(raw["memory_gib"], float) and raw["memory_gib"] > 0
    assert history.machine_text(raw).endswith(f", {raw['memory_gib']:g} GiB memory")
    assert history.machine_text({"machine": "vm x86_64 2 cpus"}) == (
        "vm x86_64 2 cpus, memory not recorded")


def test_the_units_a_cold_build_compiled() -> None:
    cold = cache_health.CacheStats(
        "ggml", misses=46, languages={"HIP": cache_health.LanguageStats(0, 39),
                                      "C/C++": cache_health.LanguageStats(0, 7)})
    probe = cache_health.CacheStats("probe", misses=1,
                                    languages={"HIP": cache_health.LanguageStats(0, 1)})
    units = history.units([cold, probe])
    assert units == {"ggml": {"HIP": 39, "C/C++": 7}, "probe": {"HIP": 1}}
    text = history.workload_text({"target": "ggml", "arch": "gfx950",
                                  "workload": {"bake_file": "s.hcl", "units": units}})
    assert text == ("target `ggml` of `s.hcl` for gfx950, compiling 40 HIP + 7 C/C++ "
                    "translation units (ggml: 39 HIP + 7 C/C++; probe: 1 HIP)")


def test_the_aims_met_and_missed_by_the_newest_full_run(tmp_path: Path) -> None:
    records = history.load(_records(tmp_path))
    line = history.aims_line(records)
    # medians: cold 105, frozen 1.5, hot 4.5, warm 8.5; warm HIP: none recorded (no languages)
    assert line.startswith("On an unrecorded engine with sccache, the newest run of the most "
                           "conditions, `r1` (")
    assert "`t` for gfx950, frozen, hot, warm, cold)" in line
    assert "missed: warm/cold 0.081 (aim ≤ 0.05), hot/cold 0.043 (aim ≤ 0.03), " \
           "frozen/cold 0.014 (aim ≤ 0.01)." in line and "met: none" in line, line
    assert history.aims_line([]).startswith("No `inv perf` run is recorded yet")
    assert str(history.AIMS["warm"]) in history.aims_text()


def test_each_engine_gets_its_own_aims_and_tables(tmp_path: Path) -> None:
    """Runs on two engines are never pooled: a sentence of aims and a table each, named."""
    from rocm_bake.docker.engineinfo import EngineVersion  # noqa: PLC0415
    floor, current = EngineVersion("26.1.5+dfsg1", "v0.13.2"), EngineVersion("28.5.2", "v0.25.1")
    records = []
    for engine, run, hot in ((floor, "f1", 4.0), (current, "c1", 2.0)):
        for condition, seconds in (("cold", 100.0), ("hot", hot)):
            records.append(history.record(
                run_id=run, repeat=1, condition=condition, target="t", seconds=seconds,
                arch="gfx950", workload=schema.Workload("b.hcl", {}), steps=[], stats=[],
                commit="abc", pins="p", engine=engine))
    records = json.loads(json.dumps(records))             # as the history file holds them
    assert records[0]["engine"] == {"docker": "26.1.5+dfsg1", "buildkit": "v0.13.2"}
    line = history.aims_line(records)
    assert ("On Docker 26.1.5+dfsg1, BuildKit v0.13.2 with sccache, the newest run of the most "
            "conditions, `f1`") in line and "missed: hot/cold 0.040 (aim ≤ 0.03)." in line, line
    assert ("On Docker 28.5.2, BuildKit v0.25.1 with sccache, the newest run of the most "
            "conditions, `c1`"
            in line and "met: hot/cold 0.020 (aim ≤ 0.03)" in line), line
    text = history.markdown(records)
    assert "### `t` for gfx950 with sccache on Docker 26.1.5+dfsg1, BuildKit v0.13.2" in text
    assert "### `t` for gfx950 with sccache on Docker 28.5.2, BuildKit v0.25.1" in text
    # ... and side by side, an engine a column (the older history's records name none).
    side = re.sub(r" {2,}", " ", text.split("### The engines side by side", 1)[1])
    assert ("| workload | measure | Docker 26.1.5+dfsg1, BuildKit v0.13.2 | "
            "Docker 28.5.2, BuildKit v0.25.1 | aim |") in side
    assert "| `t` gfx950 sccache | hot/cold | 0.040 | 0.020 | ≤ 0.03 |" in side
    assert history.engines_section(records[:2]) == []       # one engine: nothing to compare


def test_perf_and_the_bake_files_default_to_the_same_compiler_cache() -> None:
    """inv perf's CACHE_TYPE without --set is the cache test stack's and rocm-bake.hcl's."""
    from rocm_bake.compilercache import settings as cache_settings  # noqa: PLC0415
    from rocm_bake.model import bakefile  # noqa: PLC0415
    from rocm_bake.perf import conditions  # noqa: PLC0415
    from tests.conftest import ROOT  # noqa: PLC0415

    for path in (ROOT / conditions.STACK_DIR / "docker-bake.hcl", ROOT / "rocm-bake.hcl"):
        assert bakefile.load([path]).value("CACHE_TYPE") == cache_settings.default_cache_type()
    assert cache_settings.default_cache_type() == "ccache"
    assert conditions.cache_type([]) == cache_settings.default_cache_type()
    assert conditions.cache_type(["CACHE_TYPE=sccache", "X=1"]) == "sccache"
