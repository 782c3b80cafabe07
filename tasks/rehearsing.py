"""inv rehearse: the real bake file and Dockerfiles, run for real in a stand-in world."""

from __future__ import annotations

import os
from pathlib import Path

from invoke.context import Context
from invoke.exceptions import Exit
from invoke.tasks import task

from tasks._cli import reports_errors


@task(iterable=["target", "arch"], help={
    "target": "a target or group of rocm-bake.hcl (repeatable; default: vllm and lmcache)",
    "arch": "the arches (GPU_ARCHS) to rehearse (repeatable, or gfx950,gfx1201; default gfx950)",
    "file": "the bake file (default: rocm-bake.hcl)",
    "cache": "where the locked distributions are kept by sha256 (default: "
             "$XDG_CACHE_HOME/rocm-bake/rehearsal, else ~/.cache/rocm-bake/rehearsal)",
    "port": "the loopback port of the stand-in world (default 38731; the stand-in base names "
            "it, so a fixed port keeps the layer cache across rehearsals)",
    "log": "write buildx's whole plain log to this file",
})
@reports_errors
def rehearse(c: Context, target: list[str] | None = None, arch: list[str] | None = None,
             file: str = "rocm-bake.hcl", cache: str = "", port: int = 0, log: str = "") -> None:
    """Build the targets with the real Dockerfiles on the project's engine, offline.

    Only what cannot exist here is stood in for, and each substitution is listed: the ROCm
    base image (scripts/rehearsal-base.sh: pinned Debian, CPython 3.12), every source fetch (a
    loopback git server holding upstream's release sdists where PyPI has them), every compile
    (a stand-in build of the wheel with the real artifact's name, version and requirements,
    read from upstream), the downloads GitHub, static.rust-lang.org and the NIC vendors would
    serve (NIC_DEBS: stand-in .debs of the real packages, NIC_BACKEND=all).
    Everything else runs as on a real builder, against the locks' real distributions
    (downloaded once from PyPI by sha256).

    Exit status: 0 every step passed, 1 a step failed (`cell: Dockerfile:line: its own
    error`), 2 the rehearsal could not run.
    """
    from rocm_bake.docker import preflight
    from rocm_bake_checks.rehearse import run

    arches = [a for item in (arch or ["gfx950"]) for a in item.replace(";", ",").split(",") if a]
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    env = {**os.environ}
    env.update(preflight.ensure_builder(env))
    options = run.Options(root=Path.cwd(), bake_file=Path(file),
                          targets=target or ["vllm", "lmcache"], arches=arches,
                          cache=Path(cache) if cache else home / "rocm-bake" / "rehearsal",
                          port=port or run.DEFAULT_PORT, env=env,
                          log=Path(log) if log else None)
    result = run.rehearse(options, print)
    print("substitutions:")
    for line in result.substitutions:
        print(f"  {line}")
    print(f"mirror: {result.distributions} distributions, {result.downloaded} downloaded "
          f"({result.downloaded_bytes / 1e6:.1f} MB) this run")
    if not result.ok:
        print(f"rehearse: FAILED {result.failure}")
        raise Exit(code=run.EXIT_FAILED_STEP)
    print(f"rehearse: passed ({', '.join(options.targets)} for {', '.join(arches)})")
