"""The fleet scheduler's parts without an engine: cell selection, priorities, argv, logs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from rocm_bake.compilercache.store import CacheError
from rocm_bake.core.errors import RocmBakeError
from rocm_bake.docker import skopeo
from rocm_bake.fleetbuild import cells, nodes, record, runner
from rocm_bake.fleetbuild import request as fleet_request
from rocm_bake.fleetbuild.cells import FleetBuildError, FleetCell
from rocm_bake.fleetbuild.config import Fleet, Node
from rocm_bake.model import bakefile
from tests.conftest import ROOT
from tests.fleet.conftest import BAKE_FILE

FILES = [str(ROOT / BAKE_FILE)]


def test_selection_adds_dependencies_and_orders_longest_path_first() -> None:
    chosen = cells.select(FILES, ["a1", "a2"], ["top-a2"])
    assert [c.name for c in chosen] == ["base-a2", "mid-a2", "top-a2"]
    by_name = {c.name: c for c in chosen}
    assert by_name["top-a2"].contexts == {"mid": "mid-a2"}
    assert by_name["base-a2"].priority == sum(c.estimate for c in chosen)


def test_components_expand_to_every_arch() -> None:
    assert {c.name for c in cells.select(FILES, ["a1", "a2", "a3"], ["base"])} == {
        "base-a1", "base-a2", "base-a3"}


def test_unknown_cell_is_an_error() -> None:
    with pytest.raises(FleetBuildError, match="no cell or component named 'x-a1'"):
        cells.select(FILES, ["a1"], ["x-a1"])


def test_perf_history_beats_the_static_estimate(tmp_path: Path) -> None:
    history = tmp_path / "history.jsonl"
    history.write_text("\n".join(json.dumps(
        {"time": f"2026-11-2{i}T02:17:00Z", "condition": "warm", "target": "mid-a1",
         "seconds": s, "arch": "a1", "workload": {"bake_file": "f.hcl"}})
        for i, s in enumerate([900, 1000, 5000])) + "\n")
    chosen = {c.name: c for c in cells.select(FILES, ["a1", "a2"], [], history=history)}
    assert (chosen["mid-a1"].estimate, chosen["mid-a1"].estimate_source) == (1000, "history")
    assert chosen["mid-a2"].estimate_source == "static"
    # the a1 chain now holds the longest path: it starts first
    assert next(iter(chosen.values())).name == "base-a1"


def test_the_real_bake_file_starts_with_the_critical_path() -> None:
    chosen = cells.select([str(ROOT / "rocm-bake.hcl")], ["gfx950"], ["vllm"])
    assert [c.name for c in chosen][:2] == ["base-gfx950", "torch-gfx950"]
    assert "lmcache-gfx950" not in {c.name for c in chosen}


def test_bake_argv_hands_dependencies_over_through_the_registry() -> None:
    cell = FleetCell("mid-a1", "mid", "a1", ("base-a1",), {"base": "base-a1"}, 1.0, "static")
    request = runner.FleetRequest(["f.hcl"], [cell], prefix="p/q", cache_write=False,
                                  overrides=["mid-a1.args.X=1"])
    refs = runner.Refs("127.0.0.1:5000", "p/q", "run1")
    argv = runner.bake_argv(request, cell, refs, Node("n", "unix:///x.sock"))
    assert argv[:5] == ["docker", "buildx", "bake", "--file", "f.hcl"]
    sets = [argv[i + 1] for i, a in enumerate(argv) if a == "--set"]
    assert sets == ["mid-a1.tags=127.0.0.1:5000/p/q/mid-a1:run1",
                    "mid-a1.contexts.base=docker-image://127.0.0.1:5000/p/q/base-a1:run1",
                    "mid-a1.cache-from=type=registry,ref=127.0.0.1:5000/p/q/buildcache:mid-a1",
                    "mid-a1.cache-to=",
                    "mid-a1.attest=type=provenance,mode=max",
                    "mid-a1.args.X=1"]
    assert "--push" in argv
    by_context = runner.bake_argv(request, cell, refs, Node("n", "ctx"))
    assert by_context[:3] == ["docker", "--context", "ctx"]


@pytest.mark.parametrize(("tier", "reads", "writes", "no_cache"), [
    ("dev", True, True, False), ("pr", True, False, False), ("fork-pr", False, False, False),
    ("trusted", True, True, False), ("release", False, False, True)])
def test_the_tier_decides_the_fleets_registry_cache(tier: str, reads: bool, writes: bool,
                                                    no_cache: bool) -> None:
    """inv fleet.build --tier: each cell reads and writes `buildcache:<cell>` as far as its
    tier lets it; a release builds every step anew; the run record names the tier."""
    plan = fleet_request.prepare(fleet_request.FleetOptions(
        cells=["base-gfx950"], archs=["gfx950"], fleet=str(ROOT / "fleet.toml"), tier=tier,
        history="/nonexistent"), {"PATH": "/usr/bin"})
    request = plan.request
    assert (request.cache_read, request.cache_write, request.no_cache) == (
        reads, writes, no_cache)
    assert request.tier == tier
    cell = request.cells[0]
    argv = runner.bake_argv(request, cell, runner.Refs("r:5000", "p", "t"), plan.config.nodes[0])
    assert ("--no-cache" in argv) == no_cache
    assert (f"{cell.name}.cache-to=" in argv) == (not writes)
    assert (f"{cell.name}.cache-from=" in argv) == (not reads)


def test_the_fleet_refuses_what_its_tier_may_not() -> None:
    with pytest.raises(CacheError, match=r"^--set base-gfx950\.cache-to=type=registry,ref=x: "
                       r"tier pr may only read the registry layer cache"):
        fleet_request.prepare(fleet_request.FleetOptions(
            cells=["base-gfx950"], archs=["gfx950"], fleet=str(ROOT / "fleet.toml"),
            tier="pr", sets=["base-gfx950.cache-to=type=registry,ref=x"]), {"PATH": "/usr/bin"})


def test_registry_host() -> None:
    assert runner.registry_host("http://127.0.0.1:5000/") == "127.0.0.1:5000"
    with pytest.raises(FleetBuildError):
        runner.registry_host("nohost")


def test_select_nodes() -> None:
    fleet = Fleet((Node("a", "unix:///a"), Node("b", "unix:///b")), "http://r/", None)
    assert [n.name for n in runner.select_nodes(fleet, ["b"]).nodes] == ["b"]
    with pytest.raises(FleetBuildError, match="no node named c"):
        runner.select_nodes(fleet, ["c"])


def test_count_steps(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_text("#5 [1/2] RUN --network=none true\n#5 CACHED\n\n"
                   "#6 [2/2] RUN --network=none make\n#6 DONE 2.0s\n"
                   "#7 [internal] load build definition\n#7 DONE 0.0s\n")
    assert record.count_steps(log) == (1, 1)
    assert record.count_steps(tmp_path / "missing.log") == (0, 0)


def test_watchdog_stops_the_bakes_of_a_node_that_stops_answering(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fleet = Fleet((Node("a", "unix:///nowhere.sock"),), "http://127.0.0.1:5000/", None)
    cell = FleetCell("c-x", "c", "x", (), {}, 1.0, "static")
    builder = runner.BakeBuilder({})
    run = runner.FleetRun(fleet, runner.FleetRequest(["f.hcl"], [cell], log_root=tmp_path),
                          builder=builder)
    proc = subprocess.Popen(["sleep", "60"])
    builder.procs["c-x"] = ("a", proc)
    run.busy["a"] = 1
    run.watch_every = 0
    monkeypatch.setattr(nodes, "probe", lambda *a, **k: "Cannot connect to the Docker daemon")
    run._watch()
    assert proc.wait(timeout=10) != 0


def test_without_skopeo_a_run_fails_before_building(tmp_path: Path) -> None:
    """The arch audit at the end reads the registry with skopeo: missing, nothing starts."""
    fleet = Fleet((Node("a", "unix:///nowhere.sock"),), "http://127.0.0.1:5000/", None)
    cell = FleetCell("c-x", "c", "x", (), {}, 1.0, "static")
    run = runner.FleetRun(fleet, runner.FleetRequest(["f.hcl"], [cell], log_root=tmp_path),
                          env={"PATH": str(tmp_path)})
    with pytest.raises(RocmBakeError, match=r"^skopeo is not installed: the arch audit"):
        run.run()
    assert not run.json_path.exists() and run.record.cells["c-x"].status == "pending"
    skopeo.require()                       # here it is


def test_a_cell_only_goes_to_a_node_of_its_platforms() -> None:
    cell = FleetCell("c-x", "c", "x", (), {}, 1.0, "static", platforms=("linux/arm64",))
    assert not runner.can_build(Node("amd", "unix:///a"), cell)
    assert runner.can_build(Node("both", "unix:///b", ("linux/amd64", "linux/arm64")), cell)
    assert runner.can_build(Node("amd", "unix:///a"), FleetCell("d", "d", "x", (), {}, 1.0,
                                                                "static"))


def test_the_compile_cells_compile_the_full_ggml_set_once() -> None:
    """benchmarks/fleet.py's workload (tests/fleet/compile): the cache stack's full unit set,
    each unit in exactly one of the eight compile cells, between the base and the link cell."""
    stack = bakefile.load([str(ROOT / "tests/e2e/cachestack/docker-bake.hcl")], {})
    full = str(stack.value("GGML_TUS_FULL")).split()
    compile_file = str(ROOT / "tests/fleet/compile/fleet-compile.hcl")
    units = bakefile.load([compile_file], {}).value("UNITS")
    assert isinstance(units, dict)
    dealt = [str(u) for part in units.values() if isinstance(part, list) for u in part]
    assert sorted(dealt) == sorted(full) and len(dealt) == len(set(dealt)) == 46
    chosen = {c.name: c for c in cells.select([compile_file], ["gfx950"])}
    compiles = [f"ggml{p}-gfx950" for p in units]
    assert set(chosen) == {"base-gfx950", "lib-gfx950", *compiles}
    assert all(chosen[c].depends == ("base-gfx950",) for c in compiles)
    assert set(chosen["lib-gfx950"].depends) == {"base-gfx950", *compiles}
    lib = (ROOT / "tests/fleet/compile/lib.Dockerfile").read_text(encoding="utf-8")
    assert all(f"COPY --from=ggml{p} " in lib for p in units)
