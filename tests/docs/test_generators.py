"""The page generators, in-process: perf history, charts, build graph, tags, hooks."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from types import SimpleNamespace

from rocm_bake.model.graph import Cell
from rocm_bake.perf import history as perf_history
from rocm_bake_docs import (
    build_graph,
    charts,
    image_tags,
    mkdocs_hooks,
    model,
    pages,
    performance,
    reference_index,
)
from rocm_bake_docs.source import Source
from tests.conftest import ROOT

DATA = Path(__file__).parent / "data"
VENDOR = ROOT / "docs" / "assets" / "javascripts" / "vendor"


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
    assert ("| `torch-gfx950` | gfx950 | sccache | `rocm-bake.hcl` | 1.2 s | 3m 05s | 14m 00s "
            "| 58m 58s "
            "| — |") in latest
    assert "`./inv perf` measures the cache test stack by default" in text


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
    assert 'aiter["aiter<br/>without kernels on gfx1201<br/>skipped on gfx1250"]' in diagram
    assert 'mori["mori<br/>skipped on gfx1201, gfx1250"]' in diagram
    assert "base -->|gfx950, gfx1201| torch" in diagram      # gfx1250 skips torch
    assert "base --> nixl" in diagram                        # an arrow that holds for every arch
    assert "empty -.->|gfx1201| vllm" in diagram


def test_image_tags_page_lists_every_tag_the_model_resolves() -> None:
    source = Source(ROOT)
    text = image_tags.render(source)
    plan = model.definition(source).plan(["all"]).to_json()["target"]
    assert isinstance(plan, dict)
    tags = [t for target in plan.values() for t in target.get("tags") or []]
    assert len(tags) >= 17      # one per cell: 8 components x 3 arches less 7 skipped cells
    for tag in tags:
        assert f"`{tag}`" in text


def test_no_generator_writes_the_variables_page() -> None:
    assert reference_index.VARIABLES in pages.FOREIGN
    assert all(p.path not in pages.FOREIGN for p in pages.PAGES)
    assert reference_index.VARIABLES == mkdocs_hooks.VARIABLES
    assert reference_index.VARIABLES_MARKER == mkdocs_hooks.MARKER


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


def test_the_tests_page_states_the_aims_and_the_newest_run_of_the_committed_history() -> None:
    """The Tests page's aims and verdicts are the perf history's own (rocm_bake.perf.history):
    a new run or a new aim that the page does not state fails here."""
    readme = " ".join((ROOT / "docs" / "manual" / "tests.md").read_text(encoding="utf-8")
                      .split())
    records = perf_history.load(ROOT / "perf" / "history.jsonl")
    for sentence in (f"Aims: {perf_history.aims_text()}.", perf_history.aims_line(records)):
        assert " ".join(sentence.split()) in readme, sentence
