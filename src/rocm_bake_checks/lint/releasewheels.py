"""The wheels a release collects (family conformance):

- ``release-wheels``: every wheel upstream's release collects (``upstream-dockerfiles.toml``
  release: the stages its release stages mount or copy, mapped to wheels by [dockerfiles.stages])
  is in the wheels export here (ours-export: the stages and named contexts whose ``/wheels`` it
  copies, followed through the bake targets of the contexts down to the stages that build them),
  in each cell that builds the stage mapped to it (a skipped component's wheels are not asked).
- ``export-wheels``: every wheel a runtime image the export collects installs (its ``RUN
  --mount=...,from=X,source=/wheels...``) reaches the export too, so ``pip install
  dist/<arch>/*.whl`` gives what the image has.  Compared by the stage that builds the wheel.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rocm_bake_checks.lint import stages
from rocm_bake_checks.lint.bakemodel import BakeTarget, relative
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.dockerfile import Stage
from rocm_bake_checks.lint.findings import Finding, LintError, merge_cells
from rocm_bake_checks.lint.upstreamdocker import Upstream, split


@dataclass(frozen=True)
class Leaf:
    """A stage whose ``/wheels`` are its own (it builds them), reached through ``context``."""

    file: str
    stage: str
    context: str


class Graph:
    """Stages and bake targets of one arch's cells, read through their ``/wheels``."""

    def __init__(self, targets: list[BakeTarget], files: Dockerfiles, root: Path) -> None:
        self.targets = {t.name: t for t in targets}
        self.files = files
        self.root = root
        self.visited: set[str] = set()     # the Dockerfiles a traversal went through

    def stage_of(self, target: BakeTarget) -> Stage:
        if target.dockerfile is None or not target.dockerfile.is_file():
            raise LintError(f"target {target.name}: no Dockerfile to read")
        parsed = self.files.get(target.dockerfile)
        stage = parsed.stage(target.stage) if target.stage else parsed.stages[-1]
        if stage is None:
            raise LintError(f"target {target.name}: no stage {target.stage!r}")
        return stage

    def leaves(self, target: BakeTarget, stage: Stage, context: str,
               seen: frozenset[str] = frozenset()) -> set[Leaf]:
        """The stages that built what ``stage``'s ``/wheels`` holds (or what it copies to /)."""
        copies = [s for s in stages.sources(stage)
                  if s.keyword == "COPY" and s.path.startswith("/wheels")]
        assert target.dockerfile is not None
        file = relative(target.dockerfile, self.root)
        self.visited.add(file)
        if not copies:
            # A stage that runs nothing (the `empty` target of a skipped cell) built nothing.
            built = any(True for _ in stages.runs(stage))
            return {Leaf(file, stage.name or "", context)} if built else set()
        out: set[Leaf] = set()
        for copy in copies:
            out |= self.origin(target, copy.origin, context, seen)
        return out

    def origin(self, target: BakeTarget, name: str, context: str,
               seen: frozenset[str]) -> set[Leaf]:
        """The leaves behind ``name`` as ``target`` sees it: its own stage, or a named context."""
        assert target.dockerfile is not None
        parsed = self.files.get(target.dockerfile)
        own = parsed.stage(name)
        if own is not None:
            return self.leaves(target, own, context, seen)
        value = target.contexts.get(name, "")
        if not value.startswith("target:"):
            return {Leaf(value or name, "", name)}
        other = self.targets.get(value.removeprefix("target:"))
        if other is None or other.name in seen:
            return set()
        return self.leaves(other, self.stage_of(other), name, seen | {other.name})

    def installed(self, target: BakeTarget) -> set[Leaf]:
        """What the target's stage installs from ``/wheels`` mounts (its runtime wheels)."""
        out: set[Leaf] = set()
        for mount in stages.sources(self.stage_of(target)):
            if mount.keyword == "RUN" and mount.path.startswith("/wheels"):
                out |= self.origin(target, mount.origin, mount.origin, frozenset({target.name}))
        return out


def exports(up: Upstream, targets: list[BakeTarget], root: Path) -> list[BakeTarget]:
    file, stage = split(up.settings.ours_export, f"{up.settings.config} ours-export")
    found = [t for t in targets if t.dockerfile == root / file and (t.stage or "") == stage]
    if not found:
        raise LintError(f"{up.settings.config}: ours-export: no bake target builds "
                        f"{file} stage {stage}")
    return found


def export_wheels(graph: Graph, export: BakeTarget) -> list[tuple[Finding, str]]:
    stage = graph.stage_of(export)
    exported = graph.leaves(export, stage, "")
    file = relative(export.dockerfile, graph.root) if export.dockerfile else export.file
    out = []
    for copy in stages.sources(stage):
        value = export.contexts.get(copy.origin, "")
        other = graph.targets.get(value.removeprefix("target:"))
        if copy.keyword != "COPY" or other is None:
            continue
        keys = {(leaf.file, leaf.stage) for leaf in exported}
        for leaf in sorted(graph.installed(other), key=lambda x: (x.file, x.stage)):
            if (leaf.file, leaf.stage) not in keys:
                out.append((Finding(file, copy.line, "export-wheels",
                                    f"the runtime image {copy.origin} installs the wheels of "
                                    f"{leaf.file} stage {leaf.stage}, which the wheels export "
                                    "does not collect"), export.name))
    return out


def release_wheels(up: Upstream, graph: Graph, export: BakeTarget,
                   dists: Mapping[str, tuple[str, ...]]) -> list[tuple[Finding, str]]:
    ours: set[str] = set()
    graph.visited.clear()
    for leaf in graph.leaves(export, graph.stage_of(export), ""):
        ours.update(dists.get(leaf.stage) or dists.get(leaf.context) or ())
    cell = set(graph.visited)     # a component the cell skips has no Dockerfile in it
    file = relative(export.dockerfile, graph.root) if export.dockerfile else export.file
    line = graph.stage_of(export).base.line
    out = []
    for ref in up.settings.release:
        parsed, stage = up.stage(ref)
        key = ref.rpartition(":")[0]
        for source in stages.sources(stage):
            mapped = up.settings.stages.get(f"{key}:{source.origin}")
            if parsed.stage(source.origin) is None \
                    or (source.keyword == "COPY" and not source.path.endswith(".whl")):
                continue
            where = f"{up.name(ref)}:{source.line}"
            if mapped is None:
                out.append((Finding(file, line, "release-wheels",
                                    f"upstream's release collects the wheels of "
                                    f"{up.name(key + ':' + source.origin)} ({where}); "
                                    "no stage here builds them"), export.name))
                continue
            if split(mapped.ours, "[dockerfiles.stages]")[0] not in cell:
                continue
            for wheel in mapped.wheels:
                if wheel not in ours:
                    out.append((Finding(file, line, "release-wheels",
                                        f"upstream's release collects the {wheel} wheel "
                                        f"({where}); the wheels export here does not"),
                                export.name))
    return out


def check(up: Upstream, targets: list[BakeTarget], files: Dockerfiles, root: Path,
          dists: Mapping[str, tuple[str, ...]]) -> list[Finding]:
    graph = Graph(targets, files, root)
    seen: list[tuple[Finding, str]] = []
    for export in exports(up, targets, root):
        seen += release_wheels(up, graph, export, dists)
        seen += export_wheels(graph, export)
    return merge_cells(seen)
