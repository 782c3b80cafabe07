"""``inv fleet.build`` from what the user asked to a run, and back to an exit status: the
cells, nodes and the request :func:`runner.run` takes (:func:`prepare`), and what the finished
run means (:func:`conclude`): its ``arch:`` lines and its exit status, 0 all built and audited
ok, 1 a wrong GPU arch or no GPU code, 2 something not built or not audited (named)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rocm_bake.archaudit import cells as archaudit_cells
from rocm_bake.builds import commit as commits
from rocm_bake.builds import request as builds
from rocm_bake.core.errors import UsageError
from rocm_bake.fleetbuild import cells as fleet_cells
from rocm_bake.fleetbuild import config as fleets
from rocm_bake.fleetbuild import runner
from rocm_bake.oci import provenance

LANES = ("fleet", "nightly")


@dataclass(frozen=True)
class FleetOptions:
    """What ``inv fleet.build`` was asked for, flag by flag."""

    cells: list[str] = field(default_factory=list)
    archs: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    fleet: str = fleets.DEFAULT_FILE
    nodes: list[str] = field(default_factory=list)
    sets: list[str] = field(default_factory=list)
    prefix: str = "rocm-bake/fleet"
    tag: str = ""
    tier: str = ""
    retries: int = 2
    log_dir: str = "fleet-logs"
    history: str = "perf/history.jsonl"
    lane: str = ""


@dataclass(frozen=True)
class FleetPlan:
    """A run ready to start: the nodes, the request, the environment the bakes see."""

    config: fleets.Fleet
    request: runner.FleetRequest
    env: dict[str, str]
    files: list[str]


@dataclass(frozen=True)
class Conclusion:
    """What a finished run means: its report lines, exit status and error (when not 0)."""

    lines: list[str]
    exit_status: int
    error: str = ""


def _lane(options: FleetOptions) -> str:
    if options.lane and options.lane not in LANES:
        raise UsageError(f"--lane {options.lane!r}: expected fleet or nightly")
    return options.lane or ("nightly" if options.tag.startswith("nightly") else "fleet")


def prepare(options: FleetOptions, environ: Mapping[str, str] | None = None) -> FleetPlan:
    """The cells (with their dependencies), the nodes and the run's request; a bad option, an
    unknown cell or node, or a bake file that does not evaluate is an error naming it."""
    lane = _lane(options)
    wanted = builds.BuildRequest(archs=builds.split_csv(options.archs),
                                 sets=list(options.sets))
    if options.files:
        wanted.files = list(options.files)
    base_env = dict(os.environ if environ is None else environ)
    definition, variables = builds.checked_variables(wanted, base_env)
    wanted.tier = options.tier
    tier, definition = builds.apply_tier(wanted, definition, variables, base_env)
    env = {**base_env, **variables}  # the same matrix
    history = Path(options.history)
    selected = fleet_cells.select(wanted.files, wanted.archs, builds.split_csv(options.cells),
                                  env, history if history.is_file() else None)
    config = runner.select_nodes(fleets.load(options.fleet), options.nodes)
    request = runner.FleetRequest(
        wanted.files, selected, prefix=options.prefix, tag=options.tag,
        cache_read=tier.layers != "none", cache_write=tier.layers == "read-write",
        no_cache=tier.no_cache, tier=tier.name, retries=options.retries,
        overrides=wanted.target_overrides(), log_root=Path(options.log_dir), lane=lane,
        skipped=fleet_cells.skipped(wanted.files, wanted.archs, env),
        pins=provenance.bake_pins(definition), commit=commits.head(length=40))
    return FleetPlan(config, request, env, wanted.files)


def conclude(done: runner.FleetRun) -> Conclusion:
    """The run's ``arch:`` lines, then its exit status: a cell not built is 2 (named), else
    the arch audit's (1 a wrong arch or no GPU code, 2 not audited, 0 ok)."""
    rec = done.record
    lines = [f"arch: {line}" for cell in rec.cells.values() for line in cell.audit]
    bad = [f"{r.cell} ({r.status}: {r.reason})" for r in rec.cells.values()
           if r.status != "built"]
    if bad:
        return Conclusion(lines, rec.exit_status or 2, f"not built: {'; '.join(bad)}")
    try:
        archaudit_cells.check(done.audits)
    except archaudit_cells.ArchAuditError as exc:
        return Conclusion(lines, exc.exit_code, str(exc))
    return Conclusion(lines, 0)
