"""inv build / inv push: run ``docker buildx bake`` for targets and arches; inv why-rebuilt:
why a cell's last build was not served from the layer cache."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from invoke.context import Context
from invoke.tasks import task

from tasks._cli import reports_errors, to_stderr, warn, warn_lines

if TYPE_CHECKING:
    from rocm_bake.builds.request import BuildRequest

_HELP = {
    "target": "target or group to build (repeatable; default: the bake file's default group)",
    "arch": "GPU arch to build for, e.g. gfx950 (repeatable or comma-separated; sets GPU_ARCHS)",
    "file": "bake file (repeatable; default: rocm-bake.hcl)",
    "set_": ("NAME=VALUE sets a bake variable; TARGET.FIELD=VALUE is passed to buildx --set "
             "(TARGET.args.NAME alone takes NAME from the environment)"),
    "push": "push the images to the registry (buildx --push)",
    "tier": ("the trust tier: what the build may do with the shared caches: dev (a build no "
             "lane runs), pr, fork-pr, trusted or release (default: CACHE_TIER, else dev; "
             "docs/lanes.md)"),
    "dry_run": "show the exact command and environment (secrets masked), run nothing",
    "print_": "print the resolved plan as JSON, as `docker buildx bake --print` would (no Docker)",
}


def _request(target: list[str], arch: list[str], file: list[str], sets: list[str],
             push: bool, tier: str) -> BuildRequest:
    from rocm_bake.builds import request as builds

    request = builds.BuildRequest(targets=list(target), archs=builds.split_csv(arch),
                                  sets=list(sets), push=push, tier=tier)
    if file:
        request.files = list(file)
    return request


@task(iterable=["target", "arch", "file", "set_"], help=_HELP)
@reports_errors
def build(c: Context, target: list[str], arch: list[str], file: list[str], set_: list[str],
          push: bool = False, dry_run: bool = False, print_: bool = False,
          tier: str = "") -> None:
    """Build targets with docker buildx bake (checks docker, buildx >= 0.24 and a builder first).

    First one `tier:` line: what the build's trust tier lets it do with the shared caches (a
    setting beyond it is refused before the build, exit status 2). After the bake: one `cache:`
    line per target, and one `arch:` line per exported cell,
    the arch audit of its artifacts (export directory, image) against the cell's arch. Exit
    status: 0 built with the right archs, 1 an artifact lacks its cell's arch or carries
    another, 2 the build or the audit could not run.
    """
    from rocm_bake.builds import request as builds
    from rocm_bake.compilercache import settings as cache_settings

    prepared = builds.prepare(_request(target, arch, file, set_, push, tier))
    warn(prepared.definition.warnings)
    warn_lines(cache_settings.definition_deprecations(prepared.definition))
    if print_:
        print(json.dumps(prepared.plan.to_json(), indent=2))
        return
    if dry_run:
        print(prepared.invocation.display())
        return
    builds.run(prepared, report=to_stderr)


@task(iterable=["target", "arch", "file", "set_"],
      help={k: v for k, v in _HELP.items() if k not in ("push", "print_")})
@reports_errors
def push(c: Context, target: list[str], arch: list[str], file: list[str], set_: list[str],
         dry_run: bool = False, tier: str = "") -> None:
    """Build targets and push their images to the registry (inv build --push).

    The arch audit of every exported cell follows, as in inv build (exit 1 on a wrong arch).
    """
    from rocm_bake.builds import request as builds
    from rocm_bake.compilercache import settings as cache_settings

    prepared = builds.prepare(_request(target, arch, file, set_, push=True, tier=tier))
    warn(prepared.definition.warnings)
    warn_lines(cache_settings.definition_deprecations(prepared.definition))
    if dry_run:
        print(prepared.invocation.display())
        return
    builds.run(prepared, report=to_stderr)



@task(iterable=["file"], help={
    "cell": "the cell (bake target) whose last two builds to compare, e.g. torch-gfx950",
    "file": "bake file (repeatable; default: rocm-bake.hcl)",
    "json": "print the explanation as JSON",
})
@reports_errors
def why_rebuilt(c: Context, cell: str, file: list[str], json_: bool = False) -> None:
    """Why CELL's last build rebuilt: its first step not cached, and each input that changed.

    Compares the cell's last two completed builds in the buildx history of the engine inv
    build uses (found running, never started), one line per cause: a pin (a variable of the bake
    file's PINS) "PYTORCH_COMMIT changed 6bbd260 → 1a2b3c4", any other build arg "build arg
    MAX_JOBS changed 32 → 48", "the base image digest changed (...)", a file of a local context
    or the Dockerfile "dockerfiles/scripts/with-compiler-cache.sh changed" (from the file
    records inv build writes), or "no input changed: the layer cache was not available
    (hot → cold)".

    Exit status: 0 explained, 2 it could not (an unknown cell, fewer than two builds).
    """
    from rocm_bake.builds import whyrebuilt
    from rocm_bake.model import bakefile

    explanation = whyrebuilt.explain(cell, list(file) or [bakefile.DEFAULT_FILE])
    if json_:
        print(json.dumps(explanation.to_json(), indent=2, ensure_ascii=False))
        return
    for line in explanation.lines():
        print(line)
