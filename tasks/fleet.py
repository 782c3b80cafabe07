"""inv fleet.create / fleet.status / fleet.rm / fleet.build: the BuildKit nodes of fleet.toml."""

from __future__ import annotations

import os
import sys

from invoke.context import Context
from invoke.exceptions import Exit
from invoke.tasks import task

from rocm_bake.fleetbuild.config import DEFAULT_FILE as FLEET_FILE
from tasks._cli import reports_errors, table


@task(help={"fleet": "fleet file (default: fleet.toml)"})
@reports_errors
def create(c: Context, fleet: str = FLEET_FILE) -> None:
    """Create a docker context per node (with the docker driver a context is a builder)."""
    _contexts(fleet, remove=False)


@task(help={"fleet": "fleet file (default: fleet.toml)"})
@reports_errors
def rm(c: Context, fleet: str = FLEET_FILE) -> None:
    """Remove the docker contexts fleet.create made."""
    _contexts(fleet, remove=True)


def _contexts(fleet: str, remove: bool) -> None:
    from rocm_bake.fleetbuild import config as fleets
    from rocm_bake.fleetbuild import nodes

    config = fleets.load(fleet)
    changes = (nodes.remove_contexts if remove else nodes.create_contexts)(config)
    failed = [ch for ch in changes if ch.action in ("failed", "refused")]
    table([[ch.node, ch.context, ch.action, ch.detail] for ch in changes],
          ["node", "context", "action", "detail"],
          f"{failed[0].node}: {failed[0].detail}" if failed else "")


@task(help={"fleet": "fleet file (default: fleet.toml)"})
@reports_errors
def status(c: Context, fleet: str = FLEET_FILE) -> None:
    """One row per node: driver, BuildKit version, reachable, build cache size."""
    from rocm_bake.fleetbuild import config as fleets
    from rocm_bake.fleetbuild import nodes

    rows = nodes.status(fleets.load(fleet))
    down = [s for s in rows if not s.reachable]
    table([[s.node, s.endpoint, s.driver, s.buildkit, "yes" if s.reachable else "NO",
            s.cache_size, s.capacity, s.transport, s.detail] for s in rows],
          ["node", "endpoint", "driver", "BuildKit", "reachable", "cache", "capacity",
           "transport", "detail"],
          "unreachable node(s): " + "; ".join(f"{s.node} ({s.detail})" for s in down)
          if down else "")


@task(iterable=["cells", "arch", "set", "file", "node"],
      help={"cells": "cells or components to build (repeatable or comma-separated; default "
                     "all); their dependencies are added",
            "arch": "arches (repeatable or comma-separated; default: the bake file's GPU_ARCHS)",
            "file": "bake file(s) (default: rocm-bake.hcl)",
            "fleet": "fleet file (default: fleet.toml)",
            "node": "use only these nodes of the fleet (repeatable)",
            "set": "NAME=VALUE sets a bake variable; TARGET.FIELD=VALUE goes to buildx --set",
            "prefix": "repository prefix in the registry (default rocm-bake/fleet)",
            "tag": "tag of the handed-over images (default: the run id)",
            "tier": "the trust tier: what the run may do with the shared caches: dev (a run no "
                    "lane starts), pr, fork-pr, trusted or release (default: CACHE_TIER, else "
                    "dev; docs/lanes.md)",
            "retries": "attempts on another node after a node is lost (default 2)",
            "log_dir": "where logs and run.json go (default fleet-logs/<run-id>/)",
            "history": "perf history for time estimates (default perf/history.jsonl)",
            "json": "print the run record as JSON instead of the summary",
            "perf_out": "append each built cell's time to this perf history (e.g. "
                        "perf/history.jsonl; condition warm)",
            "commit": "the commit recorded with --perf-out (default: the checkout's HEAD)",
            "lane": "the lane this run belongs to: fleet or nightly (default: nightly when "
                    "the tag starts with nightly, else fleet)"})
@reports_errors
def build(c: Context, cells: list[str] | None = None, arch: list[str] | None = None,
          file: list[str] | None = None, fleet: str = FLEET_FILE,
          node: list[str] | None = None, set: list[str] | None = None,
          prefix: str = "rocm-bake/fleet", tag: str = "", tier: str = "",
          retries: int = 2, log_dir: str = "fleet-logs", history: str = "perf/history.jsonl",
          json: bool = False, perf_out: str = "", commit: str = "", lane: str = "") -> None:
    """Build cells (target x arch) over every node of the fleet at once, then arch-audit each
    built cell's image from the registry (one `arch:` line each); exit 0 all built and
    audited ok, 1 a cell carries a wrong GPU arch or no GPU code, 2 something could not be
    built or audited (named)."""
    import json as jsonlib
    from pathlib import Path

    from rocm_bake.builds import commit as commits
    from rocm_bake.fleetbuild import record, runner
    from rocm_bake.fleetbuild import request as fleet_request
    from rocm_bake.fleetbuild.progress import Progress
    from rocm_bake.perf import history as perf_history
    from rocm_bake.reports.serve import running_url

    plan = fleet_request.prepare(fleet_request.FleetOptions(
        cells=list(cells or []), archs=list(arch or []), files=list(file or []), fleet=fleet,
        nodes=list(node or []), sets=list(set or []), prefix=prefix, tag=tag,
        tier=tier, retries=retries, log_dir=log_dir, history=history, lane=lane))
    live = running_url(Path(log_dir))
    if live:
        print(f"live report: {live}", flush=True)
    done = runner.run(plan.config, plan.request, plan.env, Progress())
    rec = done.record
    if perf_out:
        perf_history.append(Path(perf_out), record.perf_records(rec, ",".join(plan.files),
                                                                commit or commits.head()))
    if json:
        print(jsonlib.dumps(rec.to_json(), indent=2))
    else:
        table(record.summary_rows(rec), record.SUMMARY_HEADERS)
        lost = [n for n, v in rec.nodes.items() if v["lost"]]
        print(f"\n{len(rec.cells)} cells on {len(plan.config.nodes)} node(s) in "
              f"{rec.finished - rec.started:.1f}s"
              + (f"; lost: {', '.join(lost)}" if lost else "")
              + f"; record {done.json_path}")
    outcome = fleet_request.conclude(done)
    for line in outcome.lines:
        print(line, file=sys.stderr)
    if outcome.exit_status:
        raise Exit(f"error: {outcome.error}", code=outcome.exit_status)



@task(iterable=["cells", "arch", "file"],
      help={"nodes": "node counts to predict (comma-separated; default 1,2,3,8)",
            "record": "a recorded run: its run.json, its directory or its run id under "
                      "--log-dir; each cell takes the time it took there (default: the bake "
                      "file's cells with fleet.build's estimates)",
            "cells": "cells or components (repeatable or comma-separated; default all), with "
                     "their dependencies; without --record",
            "arch": "arches (default: the bake file's GPU_ARCHS); without --record",
            "file": "bake file(s) (default: rocm-bake.hcl); without --record",
            "history": "perf history for the estimates (default perf/history.jsonl)",
            "log_dir": "where fleet.build keeps its runs (default fleet-logs)",
            "capacity": "builds at once per node (default 1)",
            "json": "print the plan as JSON"})
@reports_errors
def plan(c: Context, nodes: str = "1,2,3,8", record: str = "", cells: list[str] | None = None,
         arch: list[str] | None = None, file: list[str] | None = None,
         history: str = "perf/history.jsonl", log_dir: str = "fleet-logs", capacity: int = 1,
         json: bool = False) -> None:
    """Predict a fleet run on 1, 2, ... N nodes: fleet.build's scheduler on a virtual clock
    over recorded (or estimated) cell times; wall time, utilisation, critical path."""
    import json as jsonlib
    from pathlib import Path

    from rocm_bake.builds import request as builds
    from rocm_bake.core.errors import UsageError
    from rocm_bake.fleetbuild import cells as fleet_cells
    from rocm_bake.fleetbuild import plan as plans

    counts = plans.parse_nodes(nodes)
    recorded = None
    if record:
        if cells or arch or file:
            raise UsageError("--record takes the cells from the run: no --cells, --arch or "
                             "--file with it")
        chosen, recorded = plans.recorded_cells(plans.record_path(record, Path(log_dir)))
    else:
        wanted = builds.BuildRequest(archs=builds.split_csv(arch or []))
        if file:
            wanted.files = list(file)
        _, variables = builds.checked_variables(wanted)
        hist = Path(history)
        chosen = fleet_cells.select(wanted.files, wanted.archs, builds.split_csv(cells or []),
                                    {**os.environ, **variables},
                                    hist if hist.is_file() else None)
    result = plans.plan(chosen, counts, capacity, recorded)
    if json:
        print(jsonlib.dumps(result.to_json(), indent=2))
        return
    for line in plans.describe(result, history):
        print(line)
