"""The perf history, its summary and the HTML report (no engine)."""

from __future__ import annotations

import json
import re
import threading
import urllib.request
from pathlib import Path

import pytest

from rocm_bake import cache_health
from rocm_bake.buildx_progress import Step
from rocm_bake.errors import UsageError
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
                run_id="r1", repeat=repeat, condition=condition, target="lightgbm",
                seconds=seconds, steps=[step], stats=stats, commit="abc", pins="p"))
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
    assert "| warm | 2 | 8.0 s | 8.5 s | 9.0 s | 0.081 | ≤ 0.10 | 100.0% |" in text


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
