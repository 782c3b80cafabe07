"""The ``--allow`` grants a plan needs from buildx: what its targets request (``network =
"host"``), reads of local contexts outside the working directory, and writes of local outputs
outside it. Granting them explicitly keeps buildx from stopping to ask."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rocm_bake.model.bake.resolve import Plan

_WRITING_OUTPUTS = ("local", "tar", "oci", "docker")


def for_plan(plan: Plan, cwd: Path | None = None, writes: Sequence[Path] = ()) -> list[str]:
    here = (cwd or Path.cwd()).resolve()
    requested: list[str] = []
    for target in plan.targets.values():
        for entitlement in target.get("entitlements") or []:
            if entitlement not in requested:
                requested.append(entitlement)
    reads = sorted({str(p) for p in _reads(plan, here) if not _inside(p, here)})
    outputs = [p for p in _writes(plan, here) if not _inside(p, here)]
    granted_writes = sorted({str(_existing(p)) for p in [*outputs, *(w.resolve() for w in writes)]})
    return [*requested, *(f"fs.read={p}" for p in reads),
            *(f"fs.write={p}" for p in granted_writes)]


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _reads(plan: Plan, here: Path) -> list[Path]:
    """Every local path the plan reads: contexts and named contexts that are paths, and the
    files its secrets come from (``secret = ["id=sccache,src=/tmp/..."]``)."""
    paths = []
    for target in plan.targets.values():
        values = [str(target.get("context") or "."), *(target.get("contexts") or {}).values()]
        paths += [(here / v).resolve() for v in values
                  if not v.startswith(("target:", "cwd://")) and "://" not in v]
        paths += [(here / str(s["src"])).resolve() for s in target.get("secret") or []
                  if isinstance(s, dict) and s.get("src")]
    return paths


def _writes(plan: Plan, here: Path) -> list[Path]:
    return [(here / o["dest"]).resolve() for target in plan.targets.values()
            for o in target.get("output") or []
            if o.get("type") in _WRITING_OUTPUTS and o.get("dest") not in (None, "-")]


def _existing(path: Path) -> Path:
    """The path itself, or its nearest existing ancestor (what buildx checks a grant against
    when the output directory is yet to be created)."""
    while not path.exists() and path.parent != path:
        path = path.parent
    return path
