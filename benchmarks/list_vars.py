"""Benchmark: `inv list-vars --json` vs `docker buildx bake --list=variables` on rocm-bake.hcl.

Runs both commands alternately, N rounds each, in one process (these machines are noisy, so
only side-by-side ratios mean anything), and prints medians and the ratio.

    .venv/bin/python benchmarks/list_vars.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INV = str(Path(sys.executable).parent / "inv")

COMMANDS = {
    "inv list-vars": [INV, "list-vars", "--json"],
    "inv list-vars (no cache)": ["env", "ROCM_BAKE_CACHE_DIR=off", INV, "list-vars", "--json"],
    "buildx --list=variables": ["docker", "buildx", "bake", "-f", "rocm-bake.hcl",
                                "--list=type=variables,format=json"],
}


def _time(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, env=os.environ, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    rounds = parser.parse_args().rounds
    samples: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for argv in COMMANDS.values():  # warm-up
        _time(argv)
    for _ in range(rounds):
        for name, argv in COMMANDS.items():
            samples[name].append(_time(argv))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    for name, values in samples.items():
        print(f"{name:26s} median {medians[name] * 1000:7.1f} ms  "
              f"min {min(values) * 1000:7.1f} ms  max {max(values) * 1000:7.1f} ms")
    oracle = medians["buildx --list=variables"]
    print(f"ratio inv/buildx over {rounds} rounds: "
          f"{medians['inv list-vars'] / oracle:.2f}x (parse cache warm), "
          f"{medians['inv list-vars (no cache)'] / oracle:.2f}x (no parse cache)")


if __name__ == "__main__":
    main()
