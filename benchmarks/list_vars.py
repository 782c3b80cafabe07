"""Benchmark: `inv list-vars --json` vs `docker buildx bake --list=variables` on rocm-bake.hcl.

Runs both commands alternately, N rounds each, in one process (these machines are noisy, so
only side-by-side ratios mean anything), and prints medians and the ratio, of wall time and of
CPU time (user + system of the command and its children, which a busy machine inflates less).
Python writes its bytecode cache as it does for a user (``PYTHONDONTWRITEBYTECODE`` is
dropped: set in CI or a sandbox, it would make every run compile the project again).

    .venv/bin/python benchmarks/list_vars.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import _failed

ROOT = Path(__file__).resolve().parent.parent
INV = str(Path(sys.executable).parent / "inv")
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ORACLE = "buildx --list=variables"

COMMANDS = {
    "inv list-vars": [INV, "list-vars", "--json"],
    "inv list-vars (no cache)": ["env", "ROCM_BAKE_CACHE_DIR=off", INV, "list-vars", "--json"],
    ORACLE: ["docker", "buildx", "bake", "-f", "rocm-bake.hcl",
             "--list=type=variables,format=json"],
}


def _time(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    _failed.run(argv, cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    rounds = parser.parse_args().rounds
    walls: dict[str, list[float]] = {name: [] for name in COMMANDS}
    cpus: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for argv in COMMANDS.values():  # warm-up: the parse and bytecode caches
        _time(argv)
    for _ in range(rounds):
        for name, argv in COMMANDS.items():
            wall, cpu = _time(argv)
            walls[name].append(wall)
            cpus[name].append(cpu)
    for name in COMMANDS:
        print(f"{name:26s} median {statistics.median(walls[name]) * 1000:7.1f} ms  "
              f"min {min(walls[name]) * 1000:7.1f} ms  max {max(walls[name]) * 1000:7.1f} ms  "
              f"CPU median {statistics.median(cpus[name]) * 1000:7.1f} ms")
    for label, samples in (("wall", walls), ("CPU", cpus)):
        oracle = statistics.median(samples[ORACLE])
        print(f"ratio inv/buildx ({label}) over {rounds} rounds: "
              f"{statistics.median(samples['inv list-vars']) / oracle:.2f}x (parse cache warm), "
              f"{statistics.median(samples['inv list-vars (no cache)']) / oracle:.2f}x "
              "(no parse cache)")
    print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")


if __name__ == "__main__":
    _failed.main(main)
