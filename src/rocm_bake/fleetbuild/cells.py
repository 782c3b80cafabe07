"""What a fleet run builds: the cells, their dependencies (``target:`` contexts) and the
time each is expected to take (the perf history, else a static estimate)."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rocm_bake.archaudit import cells as archaudit_cells
from rocm_bake.core.errors import RocmBakeError
from rocm_bake.docker import exporters
from rocm_bake.model import bakefile, components, entitlements, graph
from rocm_bake.model.bakefile import ARCH_VARIABLE
from rocm_bake.perf import schema

# Seconds a cold cell takes when the perf history knows nothing of it: the bake file's
# STATIC_SECONDS entry for its component (the order of magnitude of the upstream builds, so
# the longest work starts first even on a fresh fleet), else this.
DEFAULT_SECONDS = 60.0


class FleetBuildError(RocmBakeError):
    """A fleet run cannot start (bad cell names, no usable node)."""


@dataclass(frozen=True)
class FleetCell:
    name: str
    component: str
    arch: str
    depends: tuple[str, ...]            # cells it takes through target: contexts
    contexts: dict[str, str]            # context name -> the cell it links to
    estimate: float                     # seconds expected
    estimate_source: str                # "history" | "static"
    priority: float = 0.0               # the longest path from here to the end, in seconds
    platforms: tuple[str, ...] = ()     # the target's platforms (empty: the node's own)
    allow: tuple[str, ...] = ()         # the --allow grants the target needs (network.host ...)
    no_gpu_code: str = ""               # why it carries no GPU code (its label; the arch audit)
    # Its reproducible image export on push (rocm_bake.docker.exporters): --set overrides.
    exports: tuple[str, ...] = ()


def estimates(history: Path | None) -> dict[str, float]:
    """Median seconds per target from the perf history (all conditions)."""
    if history is None:
        return {}
    by_target: dict[str, list[float]] = {}
    for record in schema.load(history):
        by_target.setdefault(record.target, []).append(record.seconds)
    return {t: statistics.median(v) for t, v in by_target.items()}


def select(files: Sequence[str], archs: Sequence[str] = (), wanted: Sequence[str] = (),
           env: Mapping[str, str] | None = None, history: Path | None = None
           ) -> list[FleetCell]:
    """The cells to build: ``wanted`` names cells or components (all when empty), plus every
    cell they depend on; ordered longest path first."""
    all_cells = [c for c in graph.cells(files, archs, env) if c.target]
    by_name = {c.target: c for c in all_cells if c.target}
    chosen: set[str] = set()
    for want in wanted:
        hits = [n for n, c in by_name.items() if want in (n, c.component)]
        if not hits:
            raise FleetBuildError(f"no cell or component named {want!r} "
                                  f"(cells: {', '.join(sorted(by_name))})")
        chosen.update(hits)
    if not wanted:
        chosen = set(by_name)
    todo = list(chosen)
    while todo:                                   # the dependency closure
        for dep in by_name[todo.pop()].depends:
            if dep not in by_name:
                raise FleetBuildError(f"a cell depends on {dep!r}, which is not a cell")
            if dep not in chosen:
                chosen.add(dep)
                todo.append(dep)
    known = estimates(history)
    base_env = dict(env or {})
    if archs:
        base_env[ARCH_VARIABLE] = ",".join(archs)
    definition = bakefile.load(files, base_env) if chosen else None
    static = components.static_seconds(definition) if definition is not None else {}
    out: dict[str, FleetCell] = {}
    for name in chosen:
        cell = by_name[name]
        contexts: dict[str, str] = {}
        platforms: tuple[str, ...] = ()
        allow: tuple[str, ...] = ()
        no_gpu_code = ""
        exports: tuple[str, ...] = ()
        if definition is not None:
            plan = definition.plan([name])
            # A fleet cell is pushed, never loaded into the node's engine.
            exports = exporters.plan_exports(definition.plan([name], push=True), None).overrides
            allow = tuple(entitlements.for_plan(plan))
            no_gpu_code = archaudit_cells.no_gpu_code(plan.targets[name])
            target = plan.to_json()["target"][name]
            platforms = tuple(str(p) for p in target.get("platforms") or ())
            for key, value in (target.get("contexts") or {}).items():
                if isinstance(value, str) and value.startswith("target:"):
                    contexts[key] = value.removeprefix("target:")
        if name in known:
            seconds, source = known[name], "history"
        else:
            seconds, source = static.get(cell.component, DEFAULT_SECONDS), "static"
        out[name] = FleetCell(name, cell.component, cell.arch, tuple(cell.depends), contexts,
                              seconds, source, platforms=platforms, allow=allow,
                              no_gpu_code=no_gpu_code, exports=exports)
    return prioritised(out)


def skipped(files: Sequence[str], archs: Sequence[str] = (),
            env: Mapping[str, str] | None = None) -> list[dict[str, str]]:
    """The cells the bake file skips (its SKIP table), with the reason."""
    return [{"component": c.component, "arch": c.arch, "reason": c.skipped or "skipped"}
            for c in graph.cells(files, archs, env) if not c.target]


def prioritised(cells: Mapping[str, FleetCell]) -> list[FleetCell]:
    """Each cell's priority = its estimate plus the longest chain of cells waiting on it;
    highest first (the critical path starts first, then the longest work)."""
    dependents: dict[str, list[str]] = {n: [] for n in cells}
    for cell in cells.values():
        for dep in cell.depends:
            dependents.setdefault(dep, []).append(cell.name)
    memo: dict[str, float] = {}

    def path(name: str) -> float:
        if name not in memo:
            memo[name] = cells[name].estimate + max(
                (path(d) for d in dependents[name] if d in cells), default=0.0)
        return memo[name]

    ranked = [FleetCell(**{**c.__dict__, "priority": path(c.name)}) for c in cells.values()]
    return sorted(ranked, key=lambda c: (-c.priority, c.name))
