"""Which of upstream's build stages each component answers (family conformance), from the
bake file: its ``UPSTREAM_STAGE`` entry, else upstream's own ``build_<name>`` (``-`` as ``_``),
mapped to the component's Dockerfile (its ``build`` stage, else its target's stage) and its
wheels (``WHEELS``).  These join upstream-dockerfiles.toml's ``[dockerfiles.stages]`` (which
keeps only the stages of ours that are no component, e.g. vLLM's amdsmi), so build-flags,
release-wheels and build-components see them.

- ``component-upstream``: a component answers no upstream stage (no entry, no ``build_<name>``
  upstream), or its entry names a stage upstream's files do not have.
- ``component-waiver``: a ``lint/policy.toml`` exception of build-components or release-wheels
  still waives a stage a component now answers (it would never be judged stale: remove it).
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path

from rocm_bake.model import components
from rocm_bake.model.bakefile import Definition
from rocm_bake_checks.lint.bakemodel import BakeTarget, relative
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.findings import Finding
from rocm_bake_checks.lint.upstreamdocker import Mapped, Upstream

WAIVED_RULES = ("build-components", "release-wheels")
_STAGE_IN = re.compile(r"stage (\S+) ")


def _ours(target: BakeTarget, files: Dockerfiles, root: Path) -> str:
    assert target.dockerfile is not None
    parsed = files.get(target.dockerfile)
    stage = "build" if parsed.stage("build") is not None else (target.stage or "")
    return f"{relative(target.dockerfile, root)}:{stage}"


def _targets(definition: Definition, targets: list[BakeTarget]) -> dict[str, BakeTarget]:
    """Component -> one of its cells' targets (with a Dockerfile)."""
    archs = components.all_archs(definition)
    names = set(components.names(definition))
    out: dict[str, BakeTarget] = {}
    for target in targets:
        cell = components.split_cell(target.name, archs)
        if cell and cell[0] in names and target.dockerfile is not None \
                and target.dockerfile.is_file():
            out.setdefault(cell[0], target)
    return out


def _own(name: str, up: Upstream) -> list[str]:
    """The upstream stages named after a component (``build_<name>``, ``-`` as ``_``)."""
    stage = f"build_{name.replace('-', '_')}"
    return [f"{key}:{stage}" for key, parsed in up.files.items()
            if parsed.stage(stage) is not None]


def stage_refs(definition: Definition, up: Upstream) -> dict[str, str]:
    """Upstream stage ref -> the component of the bake file that answers it (its
    ``UPSTREAM_STAGE`` entry, else its ``build_<name>`` stage), Dockerfiles or not."""
    declared = components.upstream_stages(definition)
    return {ref: name for name in components.names(definition)
            for ref in declared.get(name, _own(name, up))}


def answered(definition: Definition, targets: list[BakeTarget], up: Upstream,
             files: Dockerfiles, root: Path) -> tuple[dict[str, str], list[Finding]]:
    """Upstream stage ref -> the component that answers it, and the component-upstream
    findings (one per component that answers none, or names a stage upstream lacks)."""
    declared = components.upstream_stages(definition)
    file, line = components.declared_at(definition, components.UPSTREAM_STAGE)
    at = (relative(Path(file), root), line)
    out: dict[str, str] = {}
    found: list[Finding] = []
    for name in _targets(definition, targets):
        own = _own(name, up)
        for ref in declared.get(name, own):
            key, _, stage = ref.rpartition(":")
            parsed = up.files.get(key)
            if parsed is None or parsed.stage(stage) is None:
                found.append(Finding(at[0], at[1], "component-upstream",
                                     f"UPSTREAM_STAGE[\"{name}\"] names '{ref}', which "
                                     f"upstream's files ({', '.join(sorted(up.files))}) do not "
                                     "have: name an upstream stage as <file>:<stage>"))
            else:
                out[ref] = name
        if name not in declared and not own:
            found.append(_unanswered(name, at, up, declared))
    return out, found


def _unanswered(name: str, at: tuple[str, int], up: Upstream,
                declared: Mapping[str, list[str]]) -> Finding:
    taken = {r for refs in declared.values() for r in refs} | set(up.settings.stages)
    free = [f"{key}:{s.name}" for key, parsed in up.files.items() for s in parsed.stages
            if s.name and s.name.startswith("build_") and f"{key}:{s.name}" not in taken]
    return Finding(at[0], at[1], "component-upstream",
                   f"component '{name}' answers no upstream stage (upstream has no "
                   f"build_{name.replace('-', '_')}): add \"{name}\" = [\"<file>:<stage>\"] to "
                   "UPSTREAM_STAGE for the stage of upstream's Dockerfiles that builds it "
                   f"(build stages mapped to nothing: {', '.join(free) or 'none'}), or "
                   f"\"{name}\" = [] if upstream builds none")


def with_components(up: Upstream, definition: Definition, targets: list[BakeTarget],
                    files: Dockerfiles, root: Path, refs: Mapping[str, str]) -> Upstream:
    """``up`` with every stage a component answers in its ``stages`` map."""
    by_name = _targets(definition, targets)
    wheels = components.wheels(definition)
    mapped = {ref: Mapped(_ours(by_name[name], files, root), wheels.get(name, ()))
              for ref, name in refs.items()}
    settings = dataclasses.replace(up.settings, stages={**mapped, **up.settings.stages})
    return dataclasses.replace(up, settings=settings)


def stale_waivers(policy_file: Path, refs: Mapping[str, str], root: Path) -> list[Finding]:
    """An exception of build-components/release-wheels naming a stage a component answers."""
    if not policy_file.is_file():
        return []
    text = policy_file.read_text(encoding="utf-8")
    lines = [n for n, t in enumerate(text.splitlines(), 1) if t.strip() == "[[exception]]"]
    entries = tomllib.loads(text).get("exception", [])
    stages = {ref.rpartition(":")[2]: name for ref, name in refs.items()}
    found = []
    for line, entry in zip(lines, entries, strict=False):
        match = _STAGE_IN.search(str(entry.get("contains", "")) + " ")
        if entry.get("rule") in WAIVED_RULES and match and match.group(1) in stages:
            found.append(Finding(relative(policy_file, root), line, "component-waiver",
                                 f"exception for {entry['rule']} ('{entry['contains']}') "
                                 f"waives upstream's stage {match.group(1)}, which component "
                                 f"'{stages[match.group(1)]}' answers now: remove it"))
    return found
