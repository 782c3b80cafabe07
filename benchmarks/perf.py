"""Benchmark: `inv perf` on the cache test stack (tests/e2e/cachestack: LightGBM through sccache
on the WebDAV store, registry layer cache), all four conditions, N repeats; then the medians,
the ratios to cold (aims: warm <= 0.10, hot <= 0.05, frozen <= 0.02) and the warm hit rate.

Needs the engine, registry and WebDAV store running and the stack's downloads:

    eval "$(scripts/engine.sh start)"; scripts/webdav.sh start; scripts/cachestack.sh
    .venv/bin/python benchmarks/perf.py [--repeat 2]

Appends to perf/history.jsonl and rewrites perf/report.html + perf/summary.md; `./inv docs`
then renders the summary into docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import rocm_bake.perf.history as perf_history

ROOT = Path(__file__).resolve().parent.parent
INV = str(Path(sys.executable).parent / "inv")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--conditions", default="frozen,hot,warm,cold")
    args = parser.parse_args()
    history = ROOT / "perf" / "history.jsonl"
    before = len(history.read_text().splitlines()) if history.is_file() else 0
    subprocess.run([INV, "perf", "--conditions", args.conditions, "--repeat",
                    str(args.repeat)], cwd=ROOT, check=True)
    subprocess.run([INV, "perf-report"], cwd=ROOT, check=True)

    records = [json.loads(line) for line in history.read_text().splitlines()[before:]
               if line.strip()]
    summary = perf_history.summarize(records)
    for condition, item in summary.items():
        rate = f", sccache hit rate {item.hit_rate:.1%}" if item.hit_rate is not None else ""
        print(f"{condition:6} median {item.median:7.1f} s (min {item.minimum:.1f}, "
              f"max {item.maximum:.1f}, n={item.count}){rate}")
    for condition, ratio in perf_history.ratios(summary).items():
        aim = perf_history.AIMS.get(condition)
        verdict = ""
        if aim is not None:
            verdict = f" (aim <= {aim:.2f}: {'met' if ratio <= aim else 'NOT met'})"
        print(f"{condition}/cold = {ratio:.3f}{verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
