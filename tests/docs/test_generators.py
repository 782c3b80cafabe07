"""The page generators, in-process: perf history, charts, build graph, tags, hooks."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from rocm_bake.docgen import (
    build_graph,
    charts,
    image_tags,
    mkdocs_hooks,
    model,
    pages,
    perfdata,
    performance,
    reference_index,
)
from rocm_bake.docgen.source import Source
from rocm_bake.errors import RocmBakeError
from rocm_bake.graph import Cell
from tests.conftest import ROOT

DATA = Path(__file__).parent / "data"
VENDOR = ROOT / "docs" / "assets" / "javascripts" / "vendor"


def _record(**overrides: object) -> str:
    record = {"time": "2026-11-01T00:00:00+00:00", "condition": "warm",
              "target": "torch-gfx950", "seconds": 12.5, **overrides}
    return json.dumps(record)


def test_perf_record_is_parsed() -> None:
    r = perfdata.parse(_record(cache_hit_rate=0.5, commit="abc"), "h:1")
    assert (r.condition, r.target, r.seconds, r.cache_hit_rate, r.commit) == (
        "warm", "torch-gfx950", 12.5, 0.5, "abc")


@pytest.mark.parametrize(("line", "message"), [
    ("{", "h:3: not JSON"),
    ("[]", "h:3: a record must be a JSON object"),
    (_record(condition="tepid"), "h:3: condition must be one of frozen, hot, warm, cold"),
    (_record(seconds=-1), "h:3: seconds must be a non-negative number"),
    (_record(seconds=True), "h:3: seconds must be a non-negative number"),
    (_record(time="yesterday"), "h:3: time must be ISO 8601"),
    (_record(target=""), "h:3: target must be a non-empty string"),
    (_record(cache_hit_rate=1.5), "h:3: cache_hit_rate must be between 0 and 1"),
])
def test_bad_perf_records_name_file_and_line(line: str, message: str) -> None:
    with pytest.raises(RocmBakeError, match=re.escape(message)):
        perfdata.parse(line, "h:3")


@pytest.mark.parametrize(("seconds", "text"), [
    (0.42, "0.4 s"), (42, "42 s"), (842, "14m 02s"), (3 * 3600 + 125, "3h 02m")])
def test_durations_read_like_a_person_writes_them(seconds: float, text: str) -> None:
    assert perfdata.duration(seconds) == text


def test_no_history_says_so_and_draws_nothing(tmp_path: Path) -> None:
    text = performance.render(Source(tmp_path))
    assert "No measurements are recorded yet" in text
    assert "<svg" not in text and "Latest numbers" not in text


def test_history_gives_latest_numbers_and_one_chart_per_condition(tmp_path: Path) -> None:
    history = tmp_path / "perf" / "history.jsonl"
    history.parent.mkdir()
    history.write_text((DATA / "perf-history.jsonl").read_text())
    text = performance.render(Source(tmp_path))
    assert "No measurements are recorded yet" not in text
    assert text.count('<svg class="perf-chart"') == 4
    latest = text.split("## Latest numbers")[1].split("## History")[0]
    latest = re.sub(r" {2,}", " ", latest)                     # tabulate pads the columns
    assert "| `torch-gfx950` | 1.2 s | 3m 05s | 14m 00s | 58m 58s |" in latest


def test_chart_is_deterministic_and_escapes_names() -> None:
    series = [charts.Series("a<b", [(0, 1.0, "x&y"), (1, 2.0, "z")])]
    svg = charts.line_chart("t", ["d1", "d2"], series)
    assert svg == charts.line_chart("t", ["d1", "d2"], series)
    assert "a&lt;b" in svg and "x&amp;y" in svg and "\n" not in svg
    assert svg.count("<polyline") == 1 and svg.count("<circle") == 2


def test_implied_links_are_left_out_of_the_diagram() -> None:
    cells = [Cell("a", "x", "a-x"), Cell("b", "x", "b-x", ("a-x",)),
             Cell("c", "x", "c-x", ("a-x", "b-x"))]
    assert build_graph.direct_links(cells) == [("a-x", "b-x"), ("b-x", "c-x")]


def test_build_graph_of_the_bake_file() -> None:
    source = Source(ROOT)
    text = build_graph.render(source)
    diagram = text.split("```mermaid\n")[1].split("```")[0]
    for cell in model.cells(source):
        assert f"    {cell.component}[" in diagram
    assert 'aiter["aiter<br/>skipped on gfx1201, gfx1250"]' in diagram
    assert "base --> torch" in diagram
    assert "empty -.->|gfx1201, gfx1250| vllm" in diagram


def test_image_tags_page_lists_every_tag_the_model_resolves() -> None:
    source = Source(ROOT)
    text = image_tags.render(source)
    plan = model.definition(source).plan(["all"]).to_json()["target"]
    assert isinstance(plan, dict)
    tags = [t for target in plan.values() for t in target.get("tags") or []]
    assert len(tags) >= 20
    for tag in tags:
        assert f"`{tag}`" in text


def test_no_generator_writes_the_variables_page() -> None:
    assert reference_index.VARIABLES in pages.FOREIGN
    assert all(p.path not in pages.FOREIGN for p in pages.PAGES)
    assert reference_index.VARIABLES == mkdocs_hooks.VARIABLES
    assert reference_index.VARIABLES_MARKER == mkdocs_hooks.MARKER


def test_atomic_write_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "a" / "page.md"
    pages.atomic_write(target, "one\n")
    pages.atomic_write(target, "two\n")
    assert target.read_text() == "two\n"
    assert [p.name for p in target.parent.iterdir()] == ["page.md"]


def _config(docs: Path) -> dict[str, object]:
    return {"docs_dir": str(docs), "nav": [{"Home": "index.md"},
                                           {"Reference": ["reference/index.md"]}]}


def test_hooks_link_the_variables_page_only_once_it_exists(tmp_path: Path) -> None:
    page = SimpleNamespace(file=SimpleNamespace(src_uri="reference/index.md"))
    text = f"| {mkdocs_hooks.MARKER} | x |"
    absent = mkdocs_hooks.on_config(_config(tmp_path))
    assert absent["nav"][1] == {"Reference": ["reference/index.md"]}
    assert "not generated yet" in mkdocs_hooks.on_page_markdown(text, page, absent, None)
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "variables.md").write_text("# Variables\n")
    present = mkdocs_hooks.on_config(_config(tmp_path))
    assert {"Bake variables": "reference/variables.md"} in present["nav"][1]["Reference"]
    linked = mkdocs_hooks.on_page_markdown(text, page, present, None)
    assert "[Bake variables](variables.md)" in linked


def test_vendored_mermaid_is_the_recorded_file() -> None:
    recorded = re.search(r"sha256 ([0-9a-f]{64})", (VENDOR / "README.md").read_text())
    assert recorded is not None
    digest = hashlib.sha256((VENDOR / "mermaid.min.js").read_bytes()).hexdigest()
    assert digest == recorded.group(1)
