"""Benchmark: `from rocm_bake.model import bakefile; bakefile.load(["rocm-bake.hcl"])` with a warm
parse cache, this checkout against another one (e.g. main), side by side.

Every command that reads the bake file (`inv version-check` first of all) pays this before it
does any work of its own. Each round runs the same snippet once with this checkout's Python
and once with the other's (``--baseline``, its ``.venv/bin/python``), alternately, in fresh
processes; the snippet reports the wall and CPU time of the import and of the load. Each side
has its own parse cache directory, warmed before the rounds. Both load this checkout's
rocm-bake.hcl. Python writes its bytecode cache as it does for a user
(``PYTHONDONTWRITEBYTECODE`` is dropped). These machines are noisy: only the ratios of one
run mean anything.

    .venv/bin/python benchmarks/bake_load.py --baseline ../main [--rounds 21]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _failed

ROOT = Path(__file__).resolve().parent.parent
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
SNIPPET = """\
import time
wall, cpu = time.perf_counter(), time.process_time()
try:
    from rocm_bake.model import bakefile
except ImportError:  # a baseline checkout from before the library's packages
    from rocm_bake.model import bakefile
wall_1, cpu_1 = time.perf_counter(), time.process_time()
bakefile.load(["rocm-bake.hcl"])
wall_2, cpu_2 = time.perf_counter(), time.process_time()
import json, sys
print(json.dumps({"import": wall_1 - wall, "load": wall_2 - wall_1, "total": wall_2 - wall,
                  "import CPU": cpu_1 - cpu, "load CPU": cpu_2 - cpu_1, "total CPU": cpu_2 - cpu,
                  "parser imported": "hcl2" in sys.modules or "lark" in sys.modules}))
"""
MEASURES = ("import", "load", "total", "import CPU", "load CPU", "total CPU")


def _run(python: str, cache: Path) -> dict[str, float]:
    start = time.perf_counter()
    done = _failed.run([python, "-c", SNIPPET], cwd=ROOT, stdout=subprocess.PIPE,
                       env={**ENV, "ROCM_BAKE_CACHE_DIR": str(cache)})
    result: dict[str, float] = json.loads(done.stdout)
    result["process"] = time.perf_counter() - start
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True,
                        help="the other checkout (its .venv/bin/python is used)")
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args()
    pythons = {"this": sys.executable, "baseline": str(args.baseline / ".venv/bin/python")}
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in pythons}
    with tempfile.TemporaryDirectory() as tmp:
        caches = {name: Path(tmp) / name for name in pythons}
        for name, python in pythons.items():  # warm-up: parse and bytecode caches
            _run(python, caches[name])
        for _ in range(args.rounds):
            for name, python in pythons.items():
                samples[name].append(_run(python, caches[name]))
    for name in pythons:
        medians = "  ".join(f"{m} {_median(samples[name], m) * 1000:6.1f}"
                            for m in (*MEASURES, "process"))
        imported = any(s["parser imported"] for s in samples[name])
        print(f"{name:8s} ms (medians): {medians}  hcl2/lark imported: {imported}")
    for measure in (*MEASURES, "process"):
        ratio = _median(samples["this"], measure) / _median(samples["baseline"], measure)
        print(f"ratio this/baseline {measure:10s} {ratio:.2f}x")
    print(f"({args.rounds} rounds; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs)")


def _median(samples: list[dict[str, float]], measure: str) -> float:
    return statistics.median(s[measure] for s in samples)


if __name__ == "__main__":
    _failed.main(main)
