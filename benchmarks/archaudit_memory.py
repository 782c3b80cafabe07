"""Benchmark: peak RSS and time of the arch audit (`archaudit.audit`), this checkout against
another one (e.g. main), side by side, on a crafted wheel of about 1 MB whose one ELF member
(an x86-64 `.so` whose `.hip_fatbin` holds a gfx950 bundle, then zero padding) inflates to
1 GiB (tests/unit/craftelf.py), and on any real wheels given (e.g. a cupy-rocm-7-0 wheel from
PyPI, fetched beforehand: the script never downloads).

Each measurement is a fresh process running the audit with one side's code; a small wrapper
process starts it and reports its peak RSS (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``,
the audit being the wrapper's only child) and the wall time. Rounds alternate the two sides.
The baseline runs with its own ``.venv/bin/python`` if it has one, else with this Python and
``PYTHONPATH=<baseline>/src``. Both sides must find the same archs (checked). These machines
are noisy: the load average is printed with the figures.

    git worktree add ../audit-main main
    .venv/bin/python benchmarks/archaudit_memory.py --baseline ../audit-main \\
        [--rounds 3] [--size-mib 1024] [--wheel cupy_rocm_7_0-....whl ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import _failed
from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.unit.craftelf import write_wheel  # noqa: E402

AUDIT = """\
import json, sys
from rocm_bake import archaudit
result = archaudit.audit([sys.argv[1]])
print(json.dumps({"archs": result.archs, "gpu_elf_files": len(result.reports),
                  "host_only": result.host_only}))
"""
# The wrapper: runs the audit as its only child, then reports the child's peak RSS and time.
WRAPPER = """\
import json, resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True, check=False)
seconds = time.perf_counter() - start
peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"returncode": proc.returncode, "stdout": proc.stdout,
                  "stderr": proc.stderr[-2000:], "seconds": seconds, "peak_kb": peak_kb}))
"""


def _side(checkout: Path) -> tuple[str, dict[str, str]]:
    """The Python and environment that run ``checkout``'s code."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    own = checkout / ".venv" / "bin" / "python"
    if own.is_file():
        return str(own), env
    return sys.executable, {**env, "PYTHONPATH": str(checkout / "src")}


def _measure(python: str, env: dict[str, str], wheel: Path) -> dict[str, object]:
    done = _failed.run([sys.executable, "-c", WRAPPER, python, "-c", AUDIT, str(wheel)],
                       env=env, stdout=subprocess.PIPE)
    sample: dict[str, object] = json.loads(done.stdout)
    if sample["returncode"] != 0:
        last = (str(sample["stderr"]).strip().splitlines() or ["failed"])[-1]
        raise _failed.RunError(f"the audit of {wheel} with {python} failed: {last}")
    sample["result"] = json.loads(str(sample["stdout"]))
    return sample


def _row(name: str, wheel: Path, samples: list[dict[str, object]]) -> list[str]:
    peak = statistics.median(float(str(s["peak_kb"])) for s in samples) / 1024
    seconds = statistics.median(float(str(s["seconds"])) for s in samples)
    result = samples[0]["result"]
    assert isinstance(result, dict)
    return [wheel.name, name, f"{peak:8.0f}", f"{seconds:7.2f}",
            " ".join(result["archs"]) or "-", str(result["gpu_elf_files"])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True,
                        help="the other checkout (e.g. a worktree of main)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--size-mib", type=int, default=1024,
                        help="what the crafted wheel's ELF member inflates to (default 1024)")
    parser.add_argument("--wheel", type=Path, action="append", default=[],
                        help="a real wheel to audit too (repeatable), e.g. cupy-rocm-7-0")
    args = parser.parse_args()
    missing = [str(w) for w in args.wheel if not w.is_file()]
    if missing or not (args.baseline / "src" / "rocm_bake").is_dir():
        raise _failed.RunError(f"not found: {', '.join(missing) or args.baseline / 'src'}")
    sides = {"before": _side(args.baseline.resolve()), "after": _side(ROOT)}
    load_before = os.getloadavg()
    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="archaudit-bench-") as tmp:
        crafted = write_wheel(Path(tmp) / "crafted-1.0-cp311-cp311-linux_x86_64.whl",
                              {"crafted/_big.so": (["gfx950"], args.size_mib << 20)})
        print(f"crafted wheel: {crafted.stat().st_size} bytes, its ELF member inflates to "
              f"{args.size_mib} MiB", flush=True)
        for wheel in [crafted, *args.wheel]:
            samples: dict[str, list[dict[str, object]]] = {name: [] for name in sides}
            for _ in range(args.rounds):
                for name, (python, env) in sides.items():
                    samples[name].append(_measure(python, env, wheel))
            if samples["before"][0]["result"] != samples["after"][0]["result"]:
                raise _failed.RunError(f"{wheel.name}: before and after disagree: "
                                       f"{samples['before'][0]['result']} vs "
                                       f"{samples['after'][0]['result']}")
            rows += [_row(name, wheel, samples[name]) for name in sides]
    print(tabulate(rows, headers=["wheel", "code", "peak RSS MB", "seconds", "archs",
                                  "ELF with GPU code"], tablefmt="simple"))
    load_after = os.getloadavg()
    print(f"(medians of {args.rounds} rounds; {os.cpu_count()} CPUs; load average "
          f"{load_before[0]:.1f} before, {load_after[0]:.1f} after)")


if __name__ == "__main__":
    _failed.main(main)
