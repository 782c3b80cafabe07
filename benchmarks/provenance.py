"""Benchmark: what provenance adds to a push, side by side with it off.

Pushes the test variant's app image (tests/e2e/stages, one arch) to the engine's registry,
alternating: *off* is the bake the library prepares for `inv push` with buildx's provenance
turned off (``--provenance=false``) and no versions statement; *on* is the same bake with
provenance mode=max (what `inv push` runs) plus the versions statement attached through the
registry API. Both start from the same warm layer cache (a first, untimed push warms it), each
push under a new tag. Prints every time, the medians, the difference, the machine and its load.

Needs the engine (`scripts/engine.sh start`, DOCKER_HOST) and the HIP image
(`scripts/hip-toolchain.sh image`).

    .venv/bin/python benchmarks/provenance.py [--repeats 2] [--registry 127.0.0.1:5000]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import _failed
import _machine

from rocm_bake.builds import commit
from rocm_bake.builds import request as build
from rocm_bake.oci import provenance

ROOT = Path(__file__).resolve().parent.parent
STAGES = ROOT / "tests" / "e2e" / "stages"
CELL = "app-gfx950"


def _rocm_version() -> str:
    proc = _failed.run(["docker", "image", "inspect", "-f",
                        '{{index .Config.Labels "org.rocm-bake.rocm-version"}}',
                        "rocm-bake/hip:test"], stdout=subprocess.PIPE)
    return proc.stdout.strip()


def _push(registry: str, rocm: str, with_provenance: bool) -> tuple[float, float]:
    """One push of the app image under a new tag: its wall time in seconds, and the part of
    it the versions statement took (attaching it through the registry API)."""
    image = f"{registry}/rocm-bake-bench/provenance:{uuid.uuid4().hex[:10]}"
    request = build.BuildRequest(targets=[CELL], files=["docker-bake.hcl"], push=True,
                                 sets=[f"{CELL}.tags={image}", f"ROCM_VERSION={rocm}"])
    cwd = Path.cwd()
    os.chdir(STAGES)
    try:
        prepared = build.prepare(request)
    finally:
        os.chdir(cwd)
    command = prepared.command
    if not with_provenance:
        command = dataclasses.replace(command, overrides=[
            o for o in command.overrides if o != provenance.BAKE_OVERRIDE])
    argv = command.argv()
    if not with_provenance:
        argv.insert(argv.index("bake") + 1, "--provenance=false")
    with tempfile.TemporaryDirectory() as tmp:
        metadata = Path(tmp) / "metadata.json"
        argv.insert(argv.index("bake") + 1, f"--metadata-file={metadata}")
        start = time.perf_counter()
        _failed.run(argv, cwd=STAGES, env={**os.environ, **prepared.invocation.env},
                    stdout=subprocess.DEVNULL)
        baked = time.perf_counter()
        if with_provenance:
            provenance.attach_pushed(json.loads(metadata.read_text()),
                                     provenance.bake_pins(prepared.definition),
                                     commit.head(length=40))
        end = time.perf_counter()
        return end - start, end - baked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--registry", default="127.0.0.1:5000")
    args = parser.parse_args()
    rocm = _rocm_version()
    load_before = os.getloadavg()
    _push(args.registry, rocm, True)                       # warm the layer cache, untimed
    times: dict[str, list[float]] = {"off": [], "on": []}
    for _ in range(args.repeats):
        for mode in ("off", "on"):
            seconds, attach = _push(args.registry, rocm, mode == "on")
            times[mode].append(seconds)
            print(f"{mode:3}  {seconds:6.2f} s" + (f"  (of which the versions statement "
                                                   f"{attach:.2f} s)" if mode == "on" else ""),
                  flush=True)
    load_after = os.getloadavg()
    off, on = statistics.median(times["off"]), statistics.median(times["on"])
    print(f"median: provenance off {off:.2f} s, on (mode=max + versions statement) {on:.2f} s, "
          f"+{on - off:.2f} s ({(on - off) / off * 100:+.0f}%)")
    print(_machine.line(load_before, load_after))


if __name__ == "__main__":
    _failed.main(main)
