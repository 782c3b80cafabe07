"""Benchmark: `inv perf` on the cache test stack (tests/e2e/cachestack: ggml's HIP backend from
the llama-cpp-python sdist, the full TU set, compiled by the real HIP compiler through sccache
on the WebDAV store, registry layer cache), all four conditions side by side, N repeats; then
the medians, the ratios to cold (aims: warm <= 0.10 with >= 99 % HIP hits, hot <= 0.05,
frozen <= 0.02), the HIP hit rate, and the cold time per arch (gfx950, gfx1201, gfx1250).

Needs the engine, registry and WebDAV store running, the HIP toolchain image and the stack's
downloads:

    eval "$(scripts/engine.sh start)"; scripts/webdav.sh start; scripts/cachestack.sh
    scripts/hip-toolchain.sh fetch && scripts/hip-toolchain.sh image
    .venv/bin/python benchmarks/perf.py [--repeat 2] [--archs gfx950,gfx1201,gfx1250]

Appends to perf/history.jsonl and rewrites perf/report.html + perf/summary.md; `./inv docs`
then renders the summary into docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import rocm_bake.perf.history as perf_history

ROOT = Path(__file__).resolve().parent.parent
INV = str(Path(sys.executable).parent / "inv")
HISTORY = ROOT / "perf" / "history.jsonl"


def _lines() -> int:
    return len(HISTORY.read_text().splitlines()) if HISTORY.is_file() else 0


def _perf(conditions: str, repeat: int, sets: Sequence[str]) -> list[dict[str, object]]:
    """One `inv perf` run; the records it appended."""
    before = _lines()
    argv = [INV, "perf", "--conditions", conditions, "--repeat", str(repeat)]
    for item in sets:
        argv += ["--set", item]
    subprocess.run(argv, cwd=ROOT, check=True)
    return [json.loads(line) for line in HISTORY.read_text().splitlines()[before:]
            if line.strip()]


def _report(summary: Mapping[str, perf_history.ConditionSummary]) -> None:
    for condition, item in summary.items():
        rate = f", sccache hit rate {item.hit_rate:.1%}" if item.hit_rate is not None else ""
        hip = (f", HIP hit rate {item.hip_hit_rate:.1%}" if item.hip_hit_rate is not None
               else "")
        langs = "".join(f", {lang} {h} hits / {m} misses"
                        for lang, (h, m) in (item.languages or {}).items())
        print(f"{condition:6} median {item.median:7.1f} s (min {item.minimum:.1f}, "
              f"max {item.maximum:.1f}, n={item.count}){rate}{hip}{langs}")
    for condition, ratio in perf_history.ratios(summary).items():
        aim = perf_history.AIMS.get(condition)
        verdict = ""
        if aim is not None:
            verdict = f" (aim <= {aim:.2f}: {'met' if ratio <= aim else 'NOT met'})"
        print(f"{condition}/cold = {ratio:.3f}{verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--conditions", default="frozen,hot,warm,cold")
    parser.add_argument("--archs", default="gfx950,gfx1201,gfx1250",
                        help="archs whose cold build is timed (the first one: all conditions)")
    args = parser.parse_args()
    archs = [a for a in args.archs.split(",") if a]
    records = _perf(args.conditions, args.repeat, [f"GPU_ARCHS={archs[0]}"] if archs else [])
    cold = {archs[0]: perf_history.summarize(records).get("cold")} if archs else {}
    failed = []
    for arch in archs[1:]:
        try:
            cold[arch] = perf_history.summarize(_perf("cold", args.repeat,
                                                      [f"GPU_ARCHS={arch}"])).get("cold")
        except subprocess.CalledProcessError:
            failed.append(arch)          # inv perf printed why (one line and the build log)
    subprocess.run([INV, "perf-report"], cwd=ROOT, check=True)

    print(f"\nall four conditions, GPU_ARCHS={archs[0] if archs else 'default'}:")
    _report(perf_history.summarize(records))
    print("\ncold build per arch (median):")
    for arch, item in cold.items():
        if item is not None:
            print(f"{arch:8} {item.median:7.1f} s (n={item.count})")
    for arch in failed:
        print(f"{arch:8} the cold build failed (see its log above)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
