"""Benchmark: what a reproducible image export costs, side by side with the export as built.

Exports the test variant's runtime image (tests/e2e/stages, app-gfx950, every step cached: a
first, untimed build fills the layer cache) to an OCI archive, alternating in every repeat:
*as built* (``type=oci,dest=...``) and *reproducible* (the attributes every build of the
project exports with: rocm_bake.docker.exporters, ``rewrite-timestamp=true`` and OCI media
types), each on two runtime bases: the runtime image (``RUNTIME_IMAGE``, what the test variant
uses) and the 1.4 GB HIP toolchain image (what it used before). Prints each bake's wall time
and its export step's own time (buildx's plain progress), the medians, the ratio to the export
as built, the machine and its load.

Needs the engine (`scripts/engine.sh start`, DOCKER_HOST) and both images
(`scripts/hip-toolchain.sh image`).

    .venv/bin/python benchmarks/export.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import _failed
import _machine

from rocm_bake.docker import bakecommand, exporters
from rocm_bake.reproducible import verify

ROOT = Path(__file__).resolve().parent.parent
STAGES = ROOT / "tests" / "e2e" / "stages"
CELL = "app-gfx950"
BASES = {"runtime image": "rocm-bake/hip-runtime:test", "HIP toolchain": "rocm-bake/hip:test"}
MODES = ("as built", "reproducible")


def _rocm_version() -> str:
    proc = _failed.run(["docker", "image", "inspect", "-f",
                        '{{index .Config.Labels "org.rocm-bake.rocm-version"}}',
                        "rocm-bake/hip:test"], stdout=subprocess.PIPE)
    return proc.stdout.strip()


def _export(base: str, mode: str, rocm: str, out: Path) -> tuple[float, float]:
    """One bake of the cached runtime image into an OCI archive: its wall time and the export
    step's, in seconds."""
    cwd = Path.cwd()
    os.chdir(STAGES)
    try:
        prepared, epoch = verify.prepare(CELL, ["docker-bake.hcl"],
                                         [f"ROCM_VERSION={rocm}", f"RUNTIME_IMAGE={base}"])
    finally:
        os.chdir(cwd)
    tarball = out / "image.tar"
    output = (exporters.oci_archive(tarball) if mode == "reproducible"
              else f"type=oci,dest={tarball}")
    argv = bakecommand.bake_argv(["docker-bake.hcl"], [CELL],
                                 [*prepared.request.target_overrides(), f"{CELL}.output={output}"],
                                 progress="plain",
                                 allow=verify.fs_entitlements(prepared, [out], STAGES))
    env = {**os.environ, **prepared.invocation.env, verify.EPOCH_ARG: epoch,
           "BUILDX_NO_DEFAULT_ATTESTATIONS": "1"}
    start = time.perf_counter()
    proc = _failed.run(argv, cwd=STAGES, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    wall = time.perf_counter() - start
    tarball.unlink()
    step = _export_seconds(proc.stdout)
    if step is None:
        raise _failed.RunError(f"no export step in the log of {' '.join(argv[:4])} ...")
    return wall, step


def _export_seconds(log: str) -> float | None:
    """The seconds buildx's plain progress gives the export step (its ``#N DONE X.Ys``)."""
    number = next((m.group(1) for m in re.finditer(
        r"^#(\d+) \[[^\]]+\] exporting to oci image format$", log, re.M)), None)
    if number is None:
        return None
    done = re.search(rf"^#{number} DONE ([0-9.]+)s$", log, re.M)
    return float(done.group(1)) if done else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rocm = _rocm_version()
    load_before = os.getloadavg()
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="rocm-bake-export-") as tmp:
        for base in BASES.values():                      # fill the layer cache, untimed
            _export(base, "as built", rocm, Path(tmp))
        for _ in range(args.repeats):
            for label, base in BASES.items():
                for mode in MODES:
                    wall, step = _export(base, mode, rocm, Path(tmp))
                    times.setdefault((label, mode), []).append((wall, step))
                    print(f"{label:13}  {mode:12}  bake {wall:6.2f} s  export step {step:6.2f} s",
                          flush=True)
    load_after = os.getloadavg()
    print("median:")
    for label in BASES:
        built = statistics.median(step for _, step in times[(label, "as built")])
        for mode in MODES:
            wall = statistics.median(w for w, _ in times[(label, mode)])
            step = statistics.median(s for _, s in times[(label, mode)])
            print(f"  {label:13}  {mode:12}  bake {wall:6.2f} s  export step {step:6.2f} s"
                  f"  ({step / built:.1f}x the export as built)")
    print(_machine.line(load_before, load_after))


if __name__ == "__main__":
    _failed.main(main)
