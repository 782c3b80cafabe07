"""Benchmark: `inv bump --dry-run` on the real rocm-bake.hcl against the local upstream world
of tests/bump/world.py (git daemon per component, loopback PyPI with the vLLM sdist, a real
docker-registry; no injected latency), N rounds, each with a cold cache (a fresh --cache-dir:
every repository fetched) and then a warm one (the same cache again), alternately, side by
side in one run. Run it inside a network namespace of its own (the registry listens on
loopback):

    /work/tools/nsrun NAME .venv/bin/python benchmarks/bump.py [--rounds 3]

Prints the median wall time of each condition, and the machine's load average at the start.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _failed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.bump import world as bumpworld  # noqa: E402

INV = str(Path(sys.executable).parent / "inv")


def once(world: bumpworld.World, tree: Path, cache: Path) -> float:
    argv = [INV, "--search-root", str(ROOT), "bump", "--dry-run", "--vllm", bumpworld.RELEASE,
            "--cache-dir", str(cache)]
    for rewrite in world.rewrites():
        argv += ["--rewrite", rewrite]
    started = time.monotonic()
    done = subprocess.run(argv, cwd=tree, capture_output=True, text=True, check=False)
    elapsed = time.monotonic() - started
    if done.returncode != 0:
        raise _failed.RunError(f"inv bump --dry-run failed ({done.returncode}): "
                               f"{(done.stderr.strip().splitlines() or ['no output'])[-1]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    load = os.getloadavg()
    times: dict[str, list[float]] = {"cold": [], "warm": []}
    with tempfile.TemporaryDirectory(prefix="rocm-bake-bench-bump-") as tmp:
        base = Path(tmp)
        with bumpworld.running(base / "world") as world:
            tree = base / "tree"
            tree.mkdir()
            shutil.copy(ROOT / "rocm-bake.hcl", tree / "rocm-bake.hcl")
            for round_ in range(args.rounds):
                cache = base / f"cache-{round_}"
                times["cold"].append(once(world, tree, cache))
                times["warm"].append(once(world, tree, cache))
    print(f"inv bump --dry-run, real rocm-bake.hcl, local world, {args.rounds} rounds "
          f"(load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
          f"{os.cpu_count()} cores)")
    for name, values in times.items():
        print(f"  {name:5} median {statistics.median(values):6.2f} s  "
              f"(min {min(values):.2f}, max {max(values):.2f})")


if __name__ == "__main__":
    _failed.main(main)
