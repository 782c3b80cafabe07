"""How many nodes? A fleet run predicted for 1, 2, ... N nodes (``inv fleet.plan``).

The prediction is the scheduler of ``inv fleet.build`` itself (:class:`runner.FleetRun`: its
priorities, its ready queue, its node choice), run on a virtual clock with a simulated builder
in place of the bakes: each cell takes the seconds it took in a recorded run (``run.json``; the
scheduler orders the cells by the estimates that run had, as it did then), or the estimate
``fleet.build`` would start from (the perf history, else a static one per component). Nothing
is built and nothing is written.

A recorded run also gives the time after its last cell ended: the arch audit of every built
cell from the registry (``fleet.build`` runs it on the client once the cells are done; a
benchmark measured it at ~1 s per cell), the same whatever the node count, so every prediction
from that record adds it. Predicted from estimates alone, it is not counted (and said).

For each node count: the predicted wall time, the utilisation of the nodes' slots (cell time
÷ (slots x wall time)), and the critical path of the predicted schedule: from the last cell
to finish back to the start, each cell with what it waited for (a dependency, or a free slot).
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tabulate import tabulate

from rocm_bake.core.clock import VirtualClock
from rocm_bake.core.errors import UsageError
from rocm_bake.fleetbuild import cells as fleet_cells
from rocm_bake.fleetbuild import runner
from rocm_bake.fleetbuild.cells import FleetBuildError, FleetCell
from rocm_bake.fleetbuild.config import Fleet, Node
from rocm_bake.fleetbuild.progress import Silent
from rocm_bake.fleetbuild.record import Attempt
from rocm_bake.perf.schema import duration

RUN_FILE = "run.json"
PLAN_REGISTRY = "http://plan.invalid/"      # never reached: nothing is built
EPSILON = 1e-6                              # seconds: "ended when the next one started"


class SimulatedBuilder:
    """Each cell ends ``seconds[cell]`` after it started, on a virtual clock; every node
    answers."""

    def __init__(self, clock: VirtualClock, seconds: Mapping[str, float]) -> None:
        self.clock = clock
        self.seconds = dict(seconds)
        self._running: list[tuple[float, int, str, Attempt]] = []
        self._started = 0

    def probe(self, node: Node) -> str:
        return ""

    def start(self, cell: FleetCell, node: Node, attempt: Attempt, argv: list[str],
              env: dict[str, str]) -> None:
        self._started += 1
        heapq.heappush(self._running, (attempt.start + self.seconds[cell.name], self._started,
                                       cell.name, attempt))

    def wait(self, timeout: float) -> runner.Finished | None:
        if not self._running:
            self.clock.sleep(timeout)
            return None
        end, _, cell, attempt = heapq.heappop(self._running)
        self.clock.advance_to(end)
        attempt.end, attempt.returncode = end, 0
        return runner.Finished(cell, attempt)

    def stop(self, node: str) -> None:
        pass


@dataclass(frozen=True)
class Link:
    """One cell of a critical path: when it ran, where, and what it waited for."""

    cell: str
    node: str
    start: float        # seconds from the start of the run
    seconds: float
    after: str          # "" (it started the run), "dependency <cell>" or "slot <cell>"


@dataclass(frozen=True)
class Prediction:
    nodes: int
    capacity: int
    wall: float                 # the schedule of the cells, then the audit after them
    cell_seconds: float         # the sum of every cell's time
    critical_path: list[Link]
    audit: float = 0.0          # the seconds after the last cell (the recorded run's)

    @property
    def utilisation(self) -> float:
        slots = self.nodes * self.capacity
        return self.cell_seconds / (slots * self.wall) if self.wall > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"nodes": self.nodes, "capacity": self.capacity,
                "wall_seconds": round(self.wall, 3),
                "audit_seconds": round(self.audit, 3),
                "utilisation": round(self.utilisation, 4),
                "critical_path": [{"cell": k.cell, "node": k.node, "start": round(k.start, 3),
                                   "seconds": round(k.seconds, 3), "after": k.after}
                                  for k in self.critical_path]}


@dataclass(frozen=True)
class Recorded:
    """What a recorded run measured: where it came from, how many nodes, its wall time."""

    source: str
    nodes: int
    capacity: int
    wall: float
    seconds: dict[str, float]   # cell -> the seconds its last attempt took
    audit: float = 0.0          # from its last cell's end to its finish: the arch audit


@dataclass(frozen=True)
class Plan:
    cells: list[FleetCell]                  # ordered by the scheduler's priority
    seconds: dict[str, float]               # cell -> the seconds it takes
    predictions: list[Prediction]
    recorded: Recorded | None = None        # the run the cell times come from, if any

    def sources(self) -> dict[str, int]:
        """How many cells took their time from each source (recorded, history, static)."""
        out: dict[str, int] = {}
        for cell in self.cells:
            out[cell.estimate_source] = out.get(cell.estimate_source, 0) + 1
        return out

    def chain(self) -> tuple[float, str]:
        """The longest dependency chain (seconds, its first cell): no node count finishes
        sooner."""
        timed = fleet_cells.prioritised({c.name: replace(c, estimate=self.seconds[c.name])
                                         for c in self.cells})
        return (timed[0].priority, timed[0].name) if timed else (0.0, "")

    def to_json(self) -> dict[str, Any]:
        return {"chain_seconds": round(self.chain()[0], 3),
                "cells": {c.name: {"seconds": round(self.seconds[c.name], 3),
                                   "source": c.estimate_source,
                                   "estimate": round(c.estimate, 3),
                                   "depends": list(c.depends)} for c in self.cells},
                "sources": self.sources(),
                "recorded": None if self.recorded is None else {
                    "source": self.recorded.source, "nodes": self.recorded.nodes,
                    "capacity": self.recorded.capacity,
                    "wall_seconds": round(self.recorded.wall, 3),
                    "audit_seconds": round(self.recorded.audit, 3)},
                "predictions": [p.to_json() for p in self.predictions]}


def parse_nodes(text: str) -> list[int]:
    """``1,2,3,8`` -> [1, 2, 3, 8]: whole numbers >= 1, each once."""
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or not all(p.isdigit() and int(p) >= 1 for p in parts):
        raise UsageError(f"--nodes: expected node counts >= 1, comma-separated "
                         f"(e.g. 1,2,3,8), got {text!r}")
    counts = [int(p) for p in parts]
    if len(set(counts)) != len(counts):
        raise UsageError(f"--nodes: {text!r} names a node count twice")
    return counts


def record_path(name: str, log_root: Path) -> Path:
    """A run.json file, a run directory, or a run id under ``log_root``."""
    for candidate in (Path(name), Path(name) / RUN_FILE, log_root / name / RUN_FILE):
        if candidate.is_file():
            return candidate
    runs = sorted(p.parent.name for p in log_root.glob(f"*/{RUN_FILE}"))
    known = f"runs under {log_root}/: {', '.join(runs[-5:])}" if runs else \
        f"no run under {log_root}/"
    raise UsageError(f"--record {name!r}: no such run.json, run directory or run id ({known})")


def recorded_cells(path: Path) -> tuple[list[FleetCell], Recorded]:
    """The cells of a recorded run with the estimates the run ordered them by, and what the
    run measured: the seconds each cell took (its last attempt), the wall time."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise FleetBuildError(f"{path}: not a readable fleet run record ({exc})") from None
    raw_cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(raw_cells, list) or not raw_cells:
        raise FleetBuildError(f"{path}: not a fleet run record (no cells)")
    out: dict[str, FleetCell] = {}
    seconds: dict[str, float] = {}
    for raw in raw_cells:
        name = str(raw.get("cell", ""))
        if raw.get("status") != "built":
            raise FleetBuildError(f"{path}: cell {name} was not built ({raw.get('status')}): "
                                  "the record has no time for it")
        seconds[name] = float(raw["seconds"])
        out[name] = FleetCell(name, str(raw.get("component", "")), str(raw.get("arch", "")),
                              tuple(raw.get("depends") or ()), {},
                              float(raw.get("estimate", seconds[name])), "recorded")
    missing = sorted({d for c in out.values() for d in c.depends} - set(out))
    if missing:
        raise FleetBuildError(f"{path}: cells depend on {', '.join(missing)}, "
                              "which the record does not hold")
    nodes = data.get("nodes") or {}
    used = {str(raw.get("node", "")) for raw in raw_cells}
    capacity = min((int(v.get("capacity", 1)) for v in nodes.values()), default=1)
    return (fleet_cells.prioritised(out),
            Recorded(str(path), len(nodes) or len(used), capacity,
                     float(data.get("wall_seconds", 0.0)), seconds, _audit(data, raw_cells)))


def _audit(data: Mapping[str, Any], raw_cells: Sequence[Mapping[str, Any]]) -> float:
    """The seconds from a recorded run's last cell's end to its finish (0 when the record
    has not the times)."""
    ends = [float(a["end"]) for raw in raw_cells for a in raw.get("attempts") or ()
            if isinstance(a.get("end"), int | float)]
    finished = data.get("finished")
    if not ends or not isinstance(finished, int | float):
        return 0.0
    return max(0.0, float(finished) - max(ends))


def simulate(cells: Sequence[FleetCell], nodes: int, capacity: int = 1,
             seconds: Mapping[str, float] | None = None, audit: float = 0.0) -> Prediction:
    """``fleet.build``'s scheduler over ``nodes`` simulated nodes of ``capacity`` slots each,
    ordering the cells by their ``estimate``; each takes ``seconds[cell]`` (default: its
    estimate); then ``audit`` seconds after the last cell."""
    if not cells:
        raise FleetBuildError("nothing to plan: no cell")
    clock = VirtualClock()
    fleet = Fleet(tuple(Node(f"node{i}", f"unix:///plan/node{i}.sock", capacity=capacity)
                        for i in range(1, nodes + 1)), PLAN_REGISTRY, None)
    ordered = fleet_cells.prioritised({c.name: c for c in cells})
    took = {c.name: c.estimate for c in cells} if seconds is None else dict(seconds)
    request = runner.FleetRequest([], ordered, run_id="plan", log_root=Path("plan"))
    run = runner.run(fleet, request, env={}, progress=Silent(clock=clock),
                     builder=SimulatedBuilder(clock, took),
                     clock=clock, save=False)
    record = run.record
    return Prediction(nodes, capacity, record.finished - record.started + audit,
                      sum(took[c.name] for c in cells), critical_path(run), audit)


def critical_path(run: runner.FleetRun) -> list[Link]:
    """From the cell that ended last back to the start: each cell started when a dependency
    ended, or when a cell on its node freed the slot it took."""
    started = run.record.started
    spans = {name: rec.attempts[-1] for name, rec in run.record.cells.items()}
    link = max(spans, key=lambda n: (spans[n].end, n))
    path: list[Link] = []
    while True:
        attempt = spans[link]
        rec = run.record.cells[link]
        dep = max((d for d in rec.depends if abs(spans[d].end - attempt.start) < EPSILON),
                  default="")
        slot = "" if dep else max(
            (n for n, a in spans.items() if n != link and a.node == attempt.node
             and abs(a.end - attempt.start) < EPSILON), default="")
        after = f"dependency {dep}" if dep else f"slot {slot}" if slot else ""
        path.append(Link(link, attempt.node, attempt.start - started, attempt.seconds, after))
        if not (dep or slot):
            return path[::-1]
        link = dep or slot


def plan(cells: Sequence[FleetCell], node_counts: Sequence[int], capacity: int = 1,
         recorded: Recorded | None = None) -> Plan:
    if capacity < 1:
        raise UsageError(f"--capacity must be at least 1, got {capacity}")
    ordered = fleet_cells.prioritised({c.name: c for c in cells})
    seconds = recorded.seconds if recorded else {c.name: c.estimate for c in ordered}
    return Plan(ordered, dict(seconds),
                [simulate(ordered, n, capacity, seconds, recorded.audit if recorded else 0.0)
                 for n in node_counts], recorded)


def _path_text(path: Sequence[Link]) -> str:
    return " → ".join(f"{k.cell} {duration(k.seconds)}"
                      + (" (slot)" if k.after.startswith("slot") else "") for k in path)


def describe(result: Plan, history: str = "") -> list[str]:
    """The plan for people: where the cell times come from, the longest dependency chain,
    one row per node count (against the recorded run's own), each critical path."""
    names = {"recorded": "recorded", "history": f"from the perf history ({history})",
             "static": "static (no recorded time: fleet.build's estimate per component)"}
    counts = result.sources()
    lines = ["cell times: " + "; ".join(f"{n} {names.get(s, s)}" for s, n in counts.items())]
    rec = result.recorded
    if rec is not None:
        lines.append(f"recorded run: {rec.source}, {rec.nodes} node(s) x {rec.capacity} slot(s),"
                     f" {rec.wall:.1f} s measured, {rec.audit:.1f} s of it after the last cell "
                     "(the arch audit: added to every prediction)")
    else:
        lines.append("after the cells: the arch audit, not counted (no recorded run: "
                     "--record one to count it)")
    chain, first = result.chain()
    lines.append(f"longest dependency chain: {duration(chain)} from {first} "
                 "(no node count finishes sooner)")
    rows = []
    for p in result.predictions:
        versus = ""
        if rec is not None and p.nodes == rec.nodes and p.capacity == rec.capacity and rec.wall:
            versus = f"{(p.wall - rec.wall) / rec.wall:+.1%} of {rec.wall:.1f} s"
        rows.append([p.nodes, f"{p.wall:.1f} s", duration(p.wall), f"{p.utilisation:.0%}",
                     versus])
    lines += ["", *tabulate(rows, headers=["nodes", "predicted wall", "", "utilisation",
                                           "vs measured"]).splitlines(), ""]
    lines += [f"critical path, {p.nodes} node(s): {_path_text(p.critical_path)}"
              for p in result.predictions]
    return lines
