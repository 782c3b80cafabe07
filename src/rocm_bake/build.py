"""A build request (targets, arches, files, overrides) checked against the bake model, turned
into the exact ``docker buildx bake`` invocation, and run."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rocm_bake import bakefile, buildx, entitlements
from rocm_bake.bake.resolve import Plan
from rocm_bake.bakefile import Definition
from rocm_bake.errors import RocmBakeError, UsageError

ARCH_VARIABLE = "GPU_ARCHS"


@dataclass
class BuildRequest:
    """What the user asked for. ``sets`` mixes target overrides (``vllm.args.X=1``, passed to
    buildx as ``--set``) and bake variables (``MAX_JOBS=32``, passed in the environment)."""

    targets: list[str] = field(default_factory=list)
    archs: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=lambda: [bakefile.DEFAULT_FILE])
    sets: list[str] = field(default_factory=list)
    push: bool = False

    def variable_overrides(self) -> dict[str, str]:
        out = {}
        for item in self.sets:
            key, has_value, value = item.partition("=")
            if not has_value:
                raise UsageError(f"invalid --set {item!r}: expected NAME=VALUE or "
                                 "TARGET.FIELD=VALUE")
            if "." not in key:
                out[key] = value
        if self.archs:
            out[ARCH_VARIABLE] = ",".join(self.archs)
        return out

    def target_overrides(self) -> list[str]:
        return [s for s in self.sets if "." in s.partition("=")[0]]


@dataclass
class PreparedBuild:
    """A request checked against the bake model: the plan it resolves to and the command."""

    request: BuildRequest
    definition: Definition
    plan: Plan
    invocation: buildx.BakeInvocation


def prepare(request: BuildRequest, env: Mapping[str, str] | None = None) -> PreparedBuild:
    """Evaluate the bake files with the request's overrides; fail on any bad input."""
    base_env = dict(os.environ if env is None else env)
    additions = request.variable_overrides()
    definition = bakefile.load(request.files, {**base_env, **additions})
    declared = {v.name for v in definition.variables()}
    unknown = sorted(k for k in additions if k not in declared)
    if unknown:
        raise UsageError(f"unknown bake variable {unknown[0]}; variables: "
                         f"{', '.join(sorted(declared))}")
    names = set(definition.target_names) | set(definition.group_names)
    for target in request.targets:
        if target not in names:
            raise UsageError(f"unknown target {target!r}; valid targets and groups: "
                             f"{', '.join(sorted(names))}")
    overrides = request.target_overrides()
    plan = definition.plan(request.targets, overrides, push=request.push)
    argv = buildx.bake_argv(request.files, request.targets, overrides, push=request.push,
                            allow=entitlements.for_plan(plan))
    return PreparedBuild(request, definition, plan, buildx.BakeInvocation(argv, additions))


def run(prepared: PreparedBuild, env: Mapping[str, str] | None = None) -> None:
    """Check the machine, then run the bake; a failed bake is an error (exit status 2)."""
    full_env = {**(os.environ if env is None else env), **prepared.invocation.env}
    buildx.preflight(env=full_env)
    result = subprocess.run(prepared.invocation.argv, env=full_env, check=False)
    if result.returncode != 0:
        raise RocmBakeError(f"docker buildx bake failed with exit status {result.returncode}")


def split_csv(values: Sequence[str]) -> list[str]:
    """Flag values that may repeat or be comma-separated (``--arch a,b --arch c``)."""
    return [part for value in values for part in value.split(",") if part]
