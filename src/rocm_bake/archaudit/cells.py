"""The arch audit after a build: every cell the bake exported (a ``<component>-<arch>`` target
that was asked for, not one only linked through ``target:``) has its artifacts audited
against its arch, one line per cell.

A cell's artifacts are what its outputs wrote: a ``type=local`` directory (``dist/<arch>``), a
``type=oci``/``type=docker`` tarball, or the image itself by reference (its tags, or the
output's ``name``) when the engine holds it, else from its registry when the name says one
(``REGISTRY/NAME:TAG``, read with skopeo: a builder that pushes without loading, a fleet
node). In an image, ROCm's own libraries (under ``/opt/rocm*``, from the ROCm base image,
built for every arch ROCm supports) are left out: they are not the cell's.

A cell must carry GPU code for its arch: one whose artifacts hold none fails (exit status 1)
unless its target says why it has none, in its label ``rocm-bake.no-gpu-code`` (the base
image, host-only components).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocm_bake.archaudit.audit import EXIT_MISMATCH, EXIT_OK, Audit, audit
from rocm_bake.archaudit.inputs import REGISTRY_SCHEME
from rocm_bake.core.errors import EXIT_FAILED, RocmBakeError
from rocm_bake.docker import images, skopeo
from rocm_bake.model.bake.resolve import Plan
from rocm_bake.model.bake.target import Target

ROCM_PREFIX = "/opt/rocm"
NO_GPU_CODE_LABEL = "rocm-bake.no-gpu-code"   # its value: why the cell carries no GPU code


@dataclass(frozen=True)
class Artifacts:
    """What a cell's outputs left to audit, and why something could not be audited."""

    sources: tuple[str, ...] = ()
    images: tuple[str, ...] = ()        # references among the sources
    unaudited: tuple[str, ...] = ()     # one reason per output that cannot be read back


@dataclass(frozen=True)
class CellAudit:
    """The audit of one exported cell: its verdict, or why it could not be audited."""

    cell: str
    arch: str | None
    artifacts: Artifacts
    audit: Audit | None = None
    error: str = ""
    no_gpu_code: str = ""       # why the cell carries no GPU code (its target's label)

    @property
    def exit_code(self) -> int:
        if self.error:
            return EXIT_FAILED
        return self.audit.exit_code if self.audit is not None else EXIT_OK

    def lines(self) -> list[str]:
        """One line for the cell, then one per problem (each naming the file and the archs)."""
        if self.error:
            return [f"{self.cell}: cannot audit: {self.error}"]
        where = self._where()
        if self.arch is None:
            return [f"{self.cell}: not a cell of one GPU arch (its name ends in no arch of "
                    f"the build): not audited"]
        if self.audit is None:
            return [f"{self.cell}: not audited: {'; '.join(self.artifacts.unaudited)}"]
        found = self.audit
        notes = "".join(f"; {reason}" for reason in self.artifacts.unaudited)
        if not found.reports and not found.require_gpu_code:
            why = (f", as its label {NO_GPU_CODE_LABEL} says: {self.no_gpu_code}"
                   if self.no_gpu_code else "")
            return [f"{self.cell}: no GPU code ({found.host_only} host-only ELF file(s)) in "
                    f"{where}{notes}{why}"]
        problems = found.problems()
        if not found.reports:
            head = (f"{self.cell}: expected {self.arch}: NO GPU CODE: {found.host_only} "
                    f"host-only ELF file(s), none with GPU code, in {where}{notes}")
            return [head, *(f"{self.cell}: {problem}" for problem in problems)]
        verdict = "ok" if not problems else f"WRONG ARCH ({len(problems)} problem(s))"
        head = (f"{self.cell}: expected {self.arch}: {verdict}: {len(found.reports)} ELF "
                f"file(s) with GPU code carry {' '.join(found.archs)} "
                f"({found.host_only} host-only) in {where}{notes}")
        return [head, *(f"{self.cell}: {problem}" for problem in problems)]

    def _where(self) -> str:
        named = [(f"image {s.removeprefix(REGISTRY_SCHEME)} (from its registry)"
                  if s.startswith(REGISTRY_SCHEME) else f"image {s}")
                 if s in self.artifacts.images else s for s in self.artifacts.sources]
        left_out = f" ({ROCM_PREFIX}* left out: ROCm's own)" if self.artifacts.images else ""
        return ", ".join(named) + left_out


def no_gpu_code(target: Target) -> str:
    """Why the target carries no GPU code, as its label says ("" when it must carry some)."""
    labels = target.get("labels") or {}
    return str(labels.get(NO_GPU_CODE_LABEL) or "") if isinstance(labels, dict) else ""


def cell_arch(name: str, archs: Sequence[str]) -> str | None:
    """The arch of a cell named ``<component>-<arch>`` (None for any other target)."""
    return next((arch for arch in archs if name.endswith(f"-{arch}")), None)


def exported(plan: Plan) -> list[str]:
    """The targets the bake writes out: those asked for, not those only linked through
    ``target:`` contexts (buildx builds those as contexts and exports nothing of them)."""
    return [name for name, target in plan.targets.items() if not target.linked]


def artifacts(target: Target, cwd: Path, env: Mapping[str, str] | None = None) -> Artifacts:
    """Where the target's outputs put what it built (relative dests against ``cwd``)."""
    outputs: list[dict[str, Any]] = list(target.get("output") or [])
    tags = [str(tag) for tag in target.get("tags") or []]
    sources: list[str] = []
    images: list[str] = []
    unaudited: list[str] = []
    if not outputs:     # buildx's default: the image, loaded by the docker driver
        outputs = [{"type": "docker"}]
    for output in outputs:
        kind, dest = output.get("type", ""), output.get("dest")
        if kind in ("local", "oci", "docker") and dest:   # a directory or an image archive
            sources.append(str(cwd / dest))
        elif kind in ("docker", "image", "registry"):
            names = [n for n in str(output.get("name") or "").split(",") if n] or tags
            pushed = kind == "registry" or str(output.get("push", "")).lower() == "true"
            reference = (_in_registry(names) if pushed
                         else _in_engine(names, env) or _in_registry(names))
            if reference is not None:
                sources.append(reference)
                images.append(reference)
            else:
                unaudited.append(f"its image ({', '.join(names) or 'untagged'}) is not in the "
                                 "engine (a builder that does not load images) and its name "
                                 "names no registry")
        elif kind == "cacheonly":
            unaudited.append("its output is type=cacheonly: nothing was exported")
        else:
            unaudited.append(f"its type={kind} output is not read back")
    return Artifacts(tuple(dict.fromkeys(sources)), tuple(dict.fromkeys(images)),
                     tuple(unaudited))


def _in_engine(names: Sequence[str], env: Mapping[str, str] | None) -> str | None:
    """The first of ``names`` the engine holds as an image (``docker image inspect``); None
    when docker cannot answer."""
    try:
        return next((name for name in names if images.image_id(name, env) is not None), None)
    except images.ImageError:
        return None


def _in_registry(names: Sequence[str]) -> str | None:
    """The first of ``names`` that names a registry (``REGISTRY/NAME:TAG``), to be read from
    there (``docker://...``); None when none does."""
    return next((REGISTRY_SCHEME + name for name in names
                 if skopeo.registry_host(name) is not None), None)


def audit_cell(name: str, target: Target, archs: Sequence[str], cwd: Path,
               env: Mapping[str, str] | None = None) -> CellAudit:
    """Audit one exported target against its cell's arch."""
    arch = cell_arch(name, archs)
    if arch is None:
        return CellAudit(name, None, Artifacts())
    return audit_artifacts(name, arch, artifacts(target, cwd, env), env, no_gpu_code(target))


def audit_artifacts(name: str, arch: str | None, found: Artifacts,
                    env: Mapping[str, str] | None = None, no_gpu_code: str = ""
                    ) -> CellAudit:
    """Audit what a cell left against its arch (``arch`` None: not a cell, not audited). It
    must carry GPU code, unless ``no_gpu_code`` says why it has none (its target's label)."""
    if arch is None or not found.sources:
        return CellAudit(name, arch, found, no_gpu_code=no_gpu_code)
    try:
        result = audit(found.sources, (arch,), env, leave_out=(ROCM_PREFIX,),
                       require_gpu_code=not no_gpu_code)
    except RocmBakeError as exc:
        return CellAudit(name, arch, found, error=str(exc), no_gpu_code=no_gpu_code)
    return CellAudit(name, arch, found, result, no_gpu_code=no_gpu_code)


def audit_plan(plan: Plan, archs: Sequence[str], cwd: Path,
               env: Mapping[str, str] | None = None) -> list[CellAudit]:
    """Every exported target of the plan, audited; none when the bake files have no cells
    (no archs: a bake file without GPU_ARCHS builds nothing per arch)."""
    if not archs:
        return []
    return [audit_cell(name, plan.targets[name], archs, cwd, env) for name in exported(plan)]


class ArchAuditError(RocmBakeError):
    """The audit after a build found a wrong arch (exit 1) or could not read a cell (exit 2)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def check(results: Sequence[CellAudit]) -> None:
    """Raise ArchAuditError naming the cells that failed, if any did."""
    code = exit_code(results)
    if code != EXIT_OK:
        bad = [result for result in results if result.exit_code != EXIT_OK]
        if code == EXIT_FAILED:
            what = f"could not audit {', '.join(result.cell for result in bad)}"
        else:
            empty = [r.cell for r in bad if r.audit is not None and not r.audit.reports]
            wrong = [r.cell for r in bad if r.cell not in empty]
            what = "; ".join([*([f"wrong GPU arch in {', '.join(wrong)}"] if wrong else []),
                              *([f"no GPU code in {', '.join(empty)}"] if empty else [])])
        raise ArchAuditError(f"arch audit: {what} (see the arch: lines)", code)


def exit_code(results: Sequence[CellAudit]) -> int:
    """2 when some cell could not be read, else 1 when one carries a wrong arch, else 0."""
    codes = {result.exit_code for result in results}
    if EXIT_FAILED in codes:
        return EXIT_FAILED
    return EXIT_MISMATCH if EXIT_MISMATCH in codes else EXIT_OK
