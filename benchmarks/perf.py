"""Benchmark: `inv perf` on the cache test stack (tests/e2e/cachestack: ggml's HIP backend from
the llama-cpp-python sdist, the full TU set, compiled by the real HIP compiler through each
compiler cache of --cache-types (sccache, ccache) on the WebDAV store, registry layer cache),
all four conditions, each cache side by side in every repeat (the caches alternate, so a load
change on the machine hits both); then per cache the medians, the ratios to cold against the
aims (rocm_bake.perf.history.AIMS and HIP_HIT_AIM), hits per language (direct: without the
preprocessor), the seconds a warm hit costs per translation unit ((warm - frozen) / hits), the
fixed cost of each build (its wall time outside the RUN steps that ran, cut into cache import
and export, image export, context transfer, definitions, other steps, the gaps between steps
and the client's own time: rocm_bake.perf.fixedcost) apart from the cost per hit (the compile
steps' seconds over their hits), the machine's load averages around each run, and the cold
time per arch (gfx950, gfx1201, gfx1250; the first cache).

Needs the WebDAV store, the HIP toolchain image and the stack's downloads; `inv perf` finds
(or starts) the engine and registry as `inv build` does:

    scripts/webdav.sh start; scripts/cachestack.sh
    scripts/hip-toolchain.sh fetch && scripts/hip-toolchain.sh image
    .venv/bin/python benchmarks/perf.py [--repeat 2] [--archs gfx950,gfx1201,gfx1250] \
        [--cache-types sccache,ccache]

Appends to perf/history.jsonl and rewrites perf/report.html + perf/summary.md; `./inv docs`
then renders the summary into docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import _failed
from tabulate import tabulate

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
    done = _failed.run(argv, cwd=ROOT)       # its progress on stdout, as it goes
    sys.stderr.write(done.stderr)
    return [json.loads(line) for line in HISTORY.read_text().splitlines()[before:]
            if line.strip()]


def _load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def _direct(records: Sequence[Mapping[str, object]], condition: str) -> dict[str, int]:
    """Σ direct hits per language of one condition's records."""
    out: dict[str, int] = {}
    for r in records:
        langs = r.get("sccache_languages") if r.get("condition") == condition else None
        for lang, item in (langs.items() if isinstance(langs, dict) else ()):
            if isinstance(item, dict):
                out[lang] = out.get(lang, 0) + int(item.get("direct") or 0)
    return out


def _hit_cost(records: Sequence[Mapping[str, object]]) -> str:
    """Seconds a warm hit costs per translation unit: (warm - frozen median) / warm hits."""
    summary = perf_history.summarize(records)
    warm, frozen = summary.get("warm"), summary.get("frozen")
    if warm is None or frozen is None or not warm.languages:
        return "n/a"
    hits = sum(h for h, _ in warm.languages.values()) / max(warm.count, 1)
    return f"{(warm.median - frozen.median) / hits:.3f} s" if hits else "n/a (no hits)"


def _report(records: Sequence[Mapping[str, object]]) -> None:
    for condition, item in perf_history.summarize(records).items():
        rate = f", hit rate {item.hit_rate:.1%}" if item.hit_rate is not None else ""
        hip = (f", HIP hit rate {item.hip_hit_rate:.1%}" if item.hip_hit_rate is not None
               else "")
        direct = _direct(records, condition)
        langs = "".join(f", {lang} {h} hits ({direct.get(lang, 0)} direct) / {m} misses"
                        for lang, (h, m) in (item.languages or {}).items())
        print(f"{condition:6} median {item.median:7.1f} s (min {item.minimum:.1f}, "
              f"max {item.maximum:.1f}, n={item.count}){rate}{hip}{langs}")
    for verdict in perf_history.verdicts(records):
        print(f"{verdict}: {'met' if verdict.met else 'NOT met'}")
    print(f"a warm hit costs {_hit_cost(records)} per translation unit")
    rows = perf_history.fixed_rows(records)
    if rows:
        print("the fixed cost per build (outside the RUN steps that ran) and where it goes, "
              "and the cost per hit (the compile steps' seconds over their hits), medians:")
        print(tabulate(rows, headers=perf_history.FIXED_HEADERS, disable_numparse=True))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--conditions", default="frozen,hot,warm,cold")
    parser.add_argument("--archs", default="gfx950,gfx1201,gfx1250",
                        help="archs whose cold build is timed (the first one: all conditions)")
    parser.add_argument("--cache-types", default="sccache,ccache",
                        help="the compiler caches measured side by side (CACHE_TYPE values)")
    args = parser.parse_args()
    archs = [a for a in args.archs.split(",") if a]
    tools = [t for t in args.cache_types.split(",") if t]
    first = [f"GPU_ARCHS={archs[0]}"] if archs else []
    by_tool: dict[str, list[dict[str, object]]] = {t: [] for t in tools}
    loads: list[str] = []
    for number in range(1, args.repeat + 1):
        for tool in tools:
            before = _load()
            by_tool[tool] += _perf(args.conditions, 1, [*first, f"CACHE_TYPE={tool}"])
            loads.append(f"repeat {number} {tool}: load {before} before, {_load()} after")
    records = by_tool[tools[0]] if tools else []
    cold = {archs[0]: perf_history.summarize(records).get("cold")} if archs else {}
    failed = []
    for arch in archs[1:]:
        try:
            cold[arch] = perf_history.summarize(_perf(
                "cold", args.repeat, [f"GPU_ARCHS={arch}", f"CACHE_TYPE={tools[0]}"])
            ).get("cold")
        except _failed.RunError as exc:
            failed.append(arch)
            print(f"error: {exc}", file=sys.stderr)
    _failed.run([INV, "perf-report"], cwd=ROOT, stdout=None)

    for tool, mine in by_tool.items():
        engine = perf_history.engine_text(mine[0]) if mine else "no engine"
        print(f"\nCACHE_TYPE={tool}, GPU_ARCHS={archs[0] if archs else 'default'}, on {engine}:")
        _report(mine)
    print("\nthe machine's load averages (1/5/15 min) around each run:")
    for line in loads:
        print(line)
    print("\ncold build per arch (median):")
    for arch, item in cold.items():
        if item is not None:
            print(f"{arch:8} {item.median:7.1f} s (n={item.count})")
    for arch in failed:
        print(f"{arch:8} the cold build failed (its error line is above)")
    return _failed.EXIT_FAILED if failed else 0


if __name__ == "__main__":
    _failed.main(main)
