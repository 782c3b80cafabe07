"""Differential fuzzing of the bake model against the installed buildx.

Generates seeded random bake files, environments and ``--set`` lists (tests/buildx/fuzz.py),
runs each through ``docker buildx bake`` and the model, and prints the agreement rate and
every disagreement, grouped by class, each shrunk to a minimal case.

    .venv/bin/python benchmarks/bake_fuzz.py --cases 5000 [--seed 0] [--workers 4]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("ROCM_BAKE_CACHE_DIR", "off")  # thousands of one-off files: no cache

from tests.buildx.fuzz import PluginBuildx, Verdict, generate, run, shrink  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--seed", default="0")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--no-shrink", action="store_true")
    options = parser.parse_args()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as home:
        buildx = PluginBuildx(Path(home))
        cases = [generate(f"{options.seed}:{i}") for i in range(options.cases)]
        report = run(cases, buildx, options.workers)
        classes: dict[str, list[Verdict]] = {}
        for verdict in report.disagreements:
            classes.setdefault(verdict.kind, []).append(verdict)
        elapsed = time.perf_counter() - start
        print(f"{report.agreed}/{report.total} cases agree ({report.rate:.2%}); buildx failed "
              f"{report.buildx_failed} of them; {len(classes)} disagreement classes; "
              f"{elapsed:.0f} s; buildx panicked on {len(report.panics)} more (not counted)")
        for kind, verdicts in sorted(classes.items(), key=lambda kv: -len(kv[1])):
            print(f"\n== {len(verdicts)} x {kind}")
            smallest = min(verdicts, key=lambda v: len(v.case.text))
            if not options.no_shrink:
                with tempfile.TemporaryDirectory() as work:
                    smallest = shrink(smallest, buildx, Path(work))
            print(smallest.case.describe().rstrip())
            print(f"-- buildx: {_outcome(smallest.expected)}")
            print(f"-- model:  {_outcome(smallest.got)}")
        for verdict in report.panics[:3]:
            print(f"\n== buildx panicked: {verdict.expected.error}")
            print(verdict.case.describe().rstrip())
    return 0 if not report.disagreements else 1


def _outcome(outcome: object) -> str:
    ok = getattr(outcome, "ok", False)
    if ok:
        import json  # noqa: PLC0415

        return json.dumps(getattr(outcome, "data", None), sort_keys=True)[:600]
    return str(getattr(outcome, "error", ""))[:300]


if __name__ == "__main__":
    sys.exit(main())
