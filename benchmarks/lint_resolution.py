"""Benchmark: `inv lint`'s resolution family on the repository's bake file and committed locks.

Each round runs the family in this process (bake model, stand-in wheels, one offline uv
resolution per install step) and times it; it prints the median wall and CPU time, and how
many distributions each image's environment resolves to (an image: a target, or a build stage
of it that installs a lock). Needs the `lock` extra's uv; no network.

    .venv/bin/python benchmarks/lint_resolution.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from pathlib import Path

import _failed

from rocm_bake_checks.lint import bakemodel, upstream
from rocm_bake_checks.lint.findings import LintError
from rocm_bake_checks.lint.locks import resolution

ROOT = Path(__file__).resolve().parent.parent


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    try:
        _main()
    except LintError as exc:
        raise _failed.RunError(str(exc)) from None


def _main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    bake = [ROOT / "rocm-bake.hcl"]
    walls, cpus = [], []
    found: list[str] = []
    for _ in range(args.rounds):
        start, cpu = time.perf_counter(), _cpu()
        definition = bakemodel.load(bake)
        targets = bakemodel.targets(definition, ROOT)
        found = [str(f) for f in resolution.check(definition, bake, targets, ROOT,
                                                  upstream.Metadata(upstream.Settings()))]
        walls.append(time.perf_counter() - start)
        cpus.append(_cpu() - cpu)
    definition = bakemodel.load(bake)
    targets = bakemodel.targets(definition, ROOT)
    sizes = resolution.sizes(definition, bake, targets, ROOT,
                             upstream.Metadata(upstream.Settings()))
    print(f"resolution family: median {statistics.median(walls):.2f} s wall, "
          f"{statistics.median(cpus):.2f} s CPU over {args.rounds} rounds; "
          f"{len(found)} finding(s); {len(sizes)} images")
    for image, count in sorted(sizes.items()):
        print(f"  {image}: {count} distributions")


if __name__ == "__main__":
    _failed.main(main)
