"""The bake side of the lint: every target the bake files build, for every supported arch, as
the real bake model (``rocm_bake.model.bakefile``) resolves it -- the same plan buildx would run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.model import bakefile
from rocm_bake.model.bakefile import ARCH_VARIABLE, Definition
from rocm_bake_checks.lint.findings import LintError

ARCH_LIST = "ALL_ARCHS"


@dataclass(frozen=True)
class BakeTarget:
    """One resolved target: where it is declared and what it asks BuildKit to build."""

    name: str
    file: str
    line: int
    context: Path
    dockerfile: Path | None  # None: dockerfile-inline
    stage: str | None
    args: Mapping[str, str]
    contexts: Mapping[str, str]


def load(files: Sequence[Path], env: Mapping[str, str] | None = None) -> Definition:
    """Evaluate the bake files with the committed defaults (no caller environment), for every
    arch in ``ALL_ARCHS`` when the file has one."""
    base_env = dict(env or {})
    try:
        definition = bakefile.load(files, base_env)
        archs = _all_archs(definition)
        declared = {v.name for v in definition.variables()}
        if archs and ARCH_VARIABLE in declared and ARCH_VARIABLE not in base_env:
            definition = bakefile.load(files, {**base_env, ARCH_VARIABLE: ",".join(archs)})
    except RocmBakeError as exc:
        raise LintError(str(exc)) from None
    return definition


def _all_archs(definition: Definition) -> list[str]:
    try:
        value = definition.value(ARCH_LIST)
    except RocmBakeError:
        return []
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [str(v) for v in value]
    raise LintError(f"top-level attribute {ARCH_LIST} must be a list of strings")


def requested(definition: Definition) -> list[str]:
    """What the lint builds: the ``all`` group, else ``default``, else every target."""
    for group in ("all", "default"):
        if group in definition.group_names:
            return [group]
    return [n for n in definition.target_names if not n.startswith("_")]


def targets(definition: Definition, root: Path) -> list[BakeTarget]:
    """Every target the plan resolves to (requested and linked), with paths made absolute
    against the bake file's directory, the way ``docker buildx bake`` run there sees them."""
    try:
        plan = definition.plan(requested(definition))
    except RocmBakeError as exc:
        raise LintError(str(exc)) from None
    out = []
    for name in sorted(plan.targets):
        target = plan.targets[name]
        source = definition.config.sources.get(name)
        file = source.file if source else str(definition.files[0])
        base = Path(file).resolve().parent
        context = (base / str(target.get("context") or ".")).resolve()
        inline = target.get("dockerfile-inline")
        dockerfile = None if inline else context / str(target.get("dockerfile") or "Dockerfile")
        out.append(BakeTarget(
            name=name, file=relative(Path(file), root), line=(source.line or 1) if source else 1,
            context=context, dockerfile=dockerfile, stage=target.get("target"),
            args={k: str(v) for k, v in (target.get("args") or {}).items() if v is not None},
            contexts=dict(target.get("contexts") or {})))
    return out


def relative(path: Path, root: Path) -> str:
    """A path as findings print it: relative to the lint's root when it is inside it."""
    resolved = path.resolve()
    try:
        return str(resolved.relative_to(root.resolve()))
    except ValueError:
        return str(path)
