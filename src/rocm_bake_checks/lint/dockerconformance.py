"""The conformance family's rules over upstream's own Dockerfiles (``upstream-dockerfiles.toml``):
apt-base, runtime-env, runtime-pip, release-wheels and export-wheels, build-components and
build-flags, build-toolchain and build-scripts, each in its own module; this module fetches
upstream's files once and runs them."""

from __future__ import annotations

from pathlib import Path

from rocm_bake.model.bakefile import Definition
from rocm_bake_checks.lint import (
    aptbase,
    buildflags,
    buildsteps,
    conformance,
    releasewheels,
    runtimeenv,
    runtimepip,
    upstream,
    upstreamdocker,
    upstreamstages,
)
from rocm_bake_checks.lint.bakemodel import BakeTarget
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.findings import Finding

RULES = ("apt-base", "runtime-env", "runtime-pip", "release-wheels", "export-wheels",
         "build-components", "build-flags", "build-toolchain", "build-scripts",
         "component-upstream", "component-waiver")


def check(definition: Definition, targets: list[BakeTarget], root: Path,
          metadata: upstream.Metadata, files: Dockerfiles,
          policy_file: Path | None = None) -> list[Finding]:
    path = metadata.settings.dockerfiles
    settings = upstreamdocker.load(path) if path is not None else None
    if settings is None:
        return []
    variables = {v.name: v.value for v in definition.variables()}
    values = {k: v for k, v in variables.items() if isinstance(v, str)}
    up = upstreamdocker.fetch(settings, metadata, variables)
    dists = conformance.context_dists(definition, settings)
    refs, unanswered = upstreamstages.answered(definition, targets, up, files, root)
    up = upstreamstages.with_components(up, definition, targets, files, root, refs)
    waivers = upstreamstages.stale_waivers(policy_file, refs, root) if policy_file else []
    return [*unanswered, *waivers,
            *aptbase.check(up, root, files, values),
            *runtimeenv.check(up, root, files, values),
            *runtimepip.check(up, root, files),
            *releasewheels.check(up, targets, files, root, dists),
            *buildflags.check(up, root, files, values),
            *buildsteps.check(up, root, files, values)]
