"""Benchmark: `inv version-check --locks` against the real package index for the committed locks.

Each round runs it twice: cold (an empty cache directory of its own) and warm (again, on the
cache the cold run left). It prints the median wall and CPU time (user + system of the command
and its children) of each, and what one run asked: pins, distributions, requests, answers from
the cache, pins with a newer release. Needs the index (PyPI unless --pypi says another).
Python writes its bytecode cache as it does for a user (``PYTHONDONTWRITEBYTECODE`` is dropped).

    .venv/bin/python benchmarks/lock_releases.py [--rounds 3] [--pypi URL]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _failed

ROOT = Path(__file__).resolve().parent.parent
INV = str(Path(sys.executable).parent / "inv")
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run(cache: Path, pypi: str) -> tuple[float, float, dict[str, Any]]:
    """Wall and CPU seconds of one run, and its JSON report."""
    argv = [INV, "version-check", "--locks", "--json", "--deadline", "600",
            "--cache-dir", str(cache), *(["--pypi", pypi] if pypi else [])]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = _failed.run(argv, cwd=ROOT, env=ENV, stdout=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = json.loads(proc.stdout)
    if not isinstance(report, dict):
        raise _failed.RunError("inv version-check --locks --json printed no JSON object")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pypi", default="", help="index base URL (default: PyPI)")
    args = parser.parse_args()
    walls: dict[str, list[float]] = {"cold": [], "warm": []}
    cpus: dict[str, list[float]] = {"cold": [], "warm": []}
    reports: dict[str, dict[str, Any]] = {}
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="rocm-bake-lock-releases-") as tmp:
            for kind in ("cold", "warm"):
                wall, cpu, reports[kind] = _run(Path(tmp), args.pypi)
                walls[kind].append(wall)
                cpus[kind].append(cpu)
    report = reports["cold"]
    pins = sum(report["locks"].values())
    print(f"{len(report['locks'])} locks, {pins} pins, {report['distributions']} distributions; "
          f"{len(report['newer'])} pins with a newer release; "
          f"{len(report['unchecked'])} could not be asked")
    for kind in ("cold", "warm"):
        print(f"{kind}: median {statistics.median(walls[kind]):6.2f} s wall "
              f"(min {min(walls[kind]):.2f}, max {max(walls[kind]):.2f}), "
              f"CPU median {statistics.median(cpus[kind]):.2f} s; "
              f"{reports[kind]['requests']} requests, "
              f"{reports[kind]['answered_from_cache']} answered from the cache")
    print(f"({args.rounds} rounds; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs)")


if __name__ == "__main__":
    _failed.main(main)
