"""``inv fleet.plan``: fleet.build's own scheduler on a virtual clock (no engine, no sleep)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from rocm_bake.core.clock import VirtualClock
from rocm_bake.core.errors import UsageError
from rocm_bake.fleetbuild import cells, plan, runner
from rocm_bake.fleetbuild.cells import FleetBuildError, FleetCell
from rocm_bake.fleetbuild.config import Fleet, Node
from rocm_bake.fleetbuild.progress import Silent
from tests.cli.test_errors import assert_one_line_error
from tests.conftest import ROOT, run_cli


def cell(name: str, seconds: float, *depends: str) -> FleetCell:
    return FleetCell(name, name, "x", depends, {}, seconds, "recorded")


# Six independent compiles and a link that needs the two longest.
GRAPH = [cell("c0", 10), cell("c1", 8), cell("c2", 6), cell("c3", 5), cell("c4", 4),
         cell("c5", 3), cell("link", 2, "c0", "c1")]


def simulated_run(ordered_by: list[FleetCell], run_id: str, log_root: Path) -> runner.FleetRun:
    """fleet.build on two simulated nodes, its record saved: the cells ordered by the
    estimates of ``ordered_by``, each taking its GRAPH time."""
    clock = VirtualClock(1_767_225_600.0)
    fleet = Fleet((Node("a", "unix:///a.sock"), Node("b", "unix:///b.sock")),
                  "http://127.0.0.1:5000/", None)
    request = runner.FleetRequest(["f.hcl"], cells.prioritised({c.name: c for c in ordered_by}),
                                  run_id=run_id, log_root=log_root)
    return runner.run(fleet, request, env={}, progress=Silent(clock=clock), clock=clock,
                      builder=plan.SimulatedBuilder(clock, {c.name: c.estimate for c in GRAPH}))


def test_one_node_runs_every_cell_back_to_back() -> None:
    one = plan.simulate(GRAPH, 1)
    assert one.wall == 38 and one.utilisation == 1.0
    assert [k.cell for k in one.critical_path] == ["c0", "c1", "c2", "c3", "c4", "c5", "link"]


def test_more_nodes_follow_the_schedulers_own_choices() -> None:
    # 2 nodes: longest path first (c0, c1), then each free node takes the next highest
    # priority: c2 at 8 on node2, c3 at 10 on node1, c4 at 14, c5 at 15, link at 18 -> 20.
    two = plan.simulate(GRAPH, 2)
    assert two.wall == 20
    assert two.utilisation == pytest.approx(38 / 40)
    assert [(k.cell, k.after) for k in two.critical_path] == [
        ("c1", ""), ("c2", "slot c1"), ("c4", "slot c2"), ("link", "slot c4")]
    # 8 nodes: only the dependency chain is left
    eight = plan.simulate(GRAPH, 8)
    assert eight.wall == 12
    assert [(k.cell, k.after) for k in eight.critical_path] == [
        ("c0", ""), ("link", "dependency c0")]
    assert plan.plan(GRAPH, [8]).chain() == (12, "c0")


def test_capacity_is_slots_per_node() -> None:
    assert plan.simulate(GRAPH, 1, capacity=2).wall == plan.simulate(GRAPH, 2).wall


def test_a_recorded_run_predicts_itself(tmp_path: Path) -> None:
    """A run.json written by fleet.build's record (here: a simulated run of 2 nodes, saved)
    gives back its cells and times, and planning 2 nodes on it gives its own wall time."""
    done = simulated_run(GRAPH, "20260101T000000Z-abcd", tmp_path)
    path = plan.record_path("20260101T000000Z-abcd", tmp_path)
    assert path == done.json_path
    recorded, measured = plan.recorded_cells(path)
    assert {c.name: (c.estimate, c.depends) for c in recorded} == {
        c.name: (c.estimate, c.depends) for c in GRAPH}
    assert (measured.nodes, measured.capacity, measured.wall) == (2, 1, 20)
    result = plan.plan(recorded, [1, 2], recorded=measured)
    assert [p.wall for p in result.predictions] == [38, 20]
    text = "\n".join(plan.describe(result))
    assert "7 recorded" in text and "+0.0% of 20.0 s" in text


def test_the_real_graph_on_static_estimates() -> None:
    """rocm-bake.hcl's cells for one arch with no recorded time: the estimates fleet.build
    starts from; 8 nodes cannot beat the dependency chain, 1 node is the sum."""
    chosen = cells.select([str(ROOT / "rocm-bake.hcl")], ["gfx950"])
    result = plan.plan(chosen, [1, 3, 8])
    assert result.sources() == {"static": len(chosen)}
    one, three, eight = result.predictions
    assert one.wall == sum(c.estimate for c in chosen)
    assert eight.wall == result.chain()[0] <= three.wall < one.wall
    assert eight.critical_path[0].cell == "base-gfx950"


@pytest.mark.parametrize("text", ["", "1,x", "0", "2,-1", "1,,2", "2,2"])
def test_malformed_node_counts(text: str) -> None:
    with pytest.raises(UsageError, match="--nodes"):
        plan.parse_nodes(text)


def test_node_counts() -> None:
    assert plan.parse_nodes("1,2,3,8") == [1, 2, 3, 8]
    assert plan.parse_nodes(" 4 ") == [4]


def test_unknown_record_names_the_runs_there(tmp_path: Path) -> None:
    (tmp_path / "20261201T000000Z-aaaa").mkdir()
    (tmp_path / "20261201T000000Z-aaaa" / "run.json").write_text("{}")
    with pytest.raises(UsageError, match=r"no such run\.json.*20261201T000000Z-aaaa"):
        plan.record_path("nope", tmp_path)


def test_a_record_with_a_cell_not_built_has_no_time(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"nodes": {}, "wall_seconds": 3, "cells": [
        {"cell": "a", "status": "failed", "seconds": 1, "depends": [], "node": "n"}]}))
    with pytest.raises(FleetBuildError, match="cell a was not built"):
        plan.recorded_cells(path)
    path.write_text("not json")
    with pytest.raises(FleetBuildError, match="not a readable fleet run record"):
        plan.recorded_cells(path)


def test_bad_input_is_one_line_exit_2(tmp_path: Path) -> None:
    assert_one_line_error(run_cli(["inv", "fleet.plan", "--nodes", "1,two"]), "--nodes")
    assert_one_line_error(run_cli(["inv", "fleet.plan", "--record", "nope", "--log-dir",
                                   str(tmp_path)]), "--record 'nope'")


def test_the_task_prints_every_node_count() -> None:
    result = run_cli(["inv", "fleet.plan", "--arch", "gfx950", "--nodes", "1,3", "--json"])
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [p["nodes"] for p in data["predictions"]] == [1, 3]
    assert data["sources"] == {"static": len(data["cells"])}


def test_a_replay_orders_cells_by_the_estimates_the_run_had(tmp_path: Path) -> None:
    """A run that started from wrong estimates (the short cells first) is replayed as it ran:
    the scheduler orders by the recorded estimates, each cell takes its measured time."""
    misled = [replace(c, estimate=100.0 - c.estimate) for c in GRAPH]
    done = simulated_run(misled, "misled", tmp_path)
    measured = done.record.finished - done.record.started
    recorded, run = plan.recorded_cells(done.json_path)
    replay = plan.plan(recorded, [2], recorded=run).predictions[0]
    assert replay.wall == measured == 21 != plan.simulate(GRAPH, 2).wall == 20
    assert replay.cell_seconds == sum(c.estimate for c in GRAPH)


def test_the_time_after_the_last_cell_is_added_to_every_prediction(tmp_path: Path) -> None:
    """A real run ends with the arch audit of its cells (client side, after the last cell):
    the record's time from its last cell's end to its finish is added to every node count
    (measured: ~11 s for the fleet benchmark's 10 cells, which the plan missed by 36 %)."""
    done = simulated_run(GRAPH, "audited", tmp_path)
    data = json.loads(done.json_path.read_text())
    data["finished"] += 5.0                       # the audit after the last cell
    data["wall_seconds"] += 5.0
    done.json_path.write_text(json.dumps(data))
    recorded, measured = plan.recorded_cells(done.json_path)
    assert (measured.wall, measured.audit) == (25, 5)
    result = plan.plan(recorded, [1, 2], recorded=measured)
    assert [(p.wall, p.audit) for p in result.predictions] == [(43, 5), (25, 5)]
    text = "\n".join(plan.describe(result))
    assert "5.0 s of it after the last cell" in text and "+0.0% of 25.0 s" in text
    estimated = "\n".join(plan.describe(plan.plan(GRAPH, [1])))
    assert "the arch audit, not counted (no recorded run" in estimated
