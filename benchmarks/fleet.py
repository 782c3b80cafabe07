"""Benchmark: real compiles built by `inv fleet.build` on 1 node vs 2 nodes, cold and warm, side
by side; then `inv fleet.plan`'s prediction for 1 and 2 nodes against each measured run.

The workload is tests/fleet/compile: ggml's HIP backend and host C/C++ units (the cache test
stack's full set, 39 HIP + 7 C/C++) split over eight independent compile cells per arch, after a
base cell and before a link cell, compiled by the real HIP compiler (rocm-bake/hip:test) through
sccache on the WebDAV store, each cell one unit at a time (one core per node). Two loopback
engines share one registry: node 1 from `scripts/engine.sh start`, node 2 with
`ROCM_BAKE_REGISTRY=none` in its own run dir; both get the HIP image. Each engine runs on its
own CPU set (`ROCM_BAKE_ENGINE_CPUS`, taskset on dockerd and all it starts: `--node-cpus`,
default node 1 on CPU 0 and node 2 on CPU 1), so 1 node on 1 core against 2 nodes on 2 cores
is the measurement of two machines; the other processes of the machine (and other users of
its cores) are not pinned, and the load average printed beside each figure says how busy
the cores were. An untimed first build
(one unit per cell) puts the base cell and the unpacked sources on both nodes. Then each round
builds, with a new SALT each time (the compile layers are new, nothing from the registry cache):

- cold: 1 node and 2 nodes, each on an sccache namespace never written;
- warm: 1 node and 2 nodes, each on the namespace its cold build wrote (sccache hits);

1 node first in odd rounds, 2 nodes first in even ones (the machine's other load drifts). The
runs are kept in fleet-logs/ (`inv fleet.plan --record <run-id>`, `inv reports.serve`).

Prints every wall time with the load average, the medians and the 2-node/1-node ratios, and
for every run the plan's prediction (from the 1-node run's cell times, and from the run's own)
against the measured wall time.

    scripts/webdav.sh start; scripts/cachestack.sh; scripts/hip-toolchain.sh fetch
    .venv/bin/python benchmarks/fleet.py [--rounds 1] [--arch gfx950] [--units-per-cell 0]
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
import uuid
from dataclasses import dataclass
from pathlib import Path

import _failed

from rocm_bake.compilercache import secret as cache_secret
from rocm_bake.compilercache import store as cache_store
from rocm_bake.docker import engineinfo

ROOT = Path(__file__).resolve().parent.parent
INV = str(Path(sys.executable).parent / "inv")
SCRIPTS = ROOT / "scripts"
NODE2_DIR = os.environ.get("ROCM_BAKE_FLEET_NODE2_DIR", "/tmp/rocm-bake-fleet-node2")
BAKE_FILE = "tests/fleet/compile/fleet-compile.hcl"
LOGS = ROOT / "fleet-logs"
AIM_COLD = 0.6          # 2-node / 1-node wall time, cold
AIM_PLAN = 0.15         # |predicted - measured| / measured


def _start(run_dir: str | None, registry: str, cpus: str) -> str:
    """Start (or find) one node's engine, on its own CPUs (``cpus``; "" for all)."""
    env = {**os.environ, "ROCM_BAKE_REGISTRY": registry, "ROCM_BAKE_ENGINE_CPUS": cpus}
    where = [run_dir] if run_dir else []
    host = _failed.run(["bash", str(SCRIPTS / "engine.sh"), "start", *where], env=env,
                       stdout=subprocess.PIPE).stdout
    _failed.run(["bash", str(SCRIPTS / "hip-toolchain.sh"), "image", *where], env=env,
                stdout=subprocess.DEVNULL)
    return host.strip().removeprefix("export DOCKER_HOST=")


@dataclass
class Run:
    label: str
    nodes: int
    wall: float                 # the run record's wall time (what fleet.plan predicts)
    record: Path
    per_node: dict[str, int]
    hits: int
    misses: int
    load: tuple[float, float]   # 1-minute load average before and after


def _build(fleet: Path, nodes: list[str], arch: str, secret: Path, logs: Path,
           label: str, units: int) -> Run:
    argv = [INV, "fleet.build", "--file", BAKE_FILE, "--fleet", str(fleet), "--arch", arch,
            "--prefix", "rocm-bake-bench/fleet-compile", "--log-dir", str(logs),
            "--history", "/nonexistent", "--json",
            # the registry cache read, never written (the dev tier; the compiler cache's
            # store is read and written: the cold run fills it)
            "--set", "*.cache-to="]
    for node in nodes:
        argv += ["--node", node]
    env = {**os.environ, "SALT": uuid.uuid4().hex[:12], "CACHE_TYPE": "sccache",
           "CACHE_SECRET_FILE": str(secret), "UNITS_PER_CELL": str(units)}
    before = os.getloadavg()[0]
    proc = _failed.run(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE)
    after = os.getloadavg()[0]
    record = json.loads(proc.stdout)
    per_node: dict[str, int] = {}
    hits = misses = 0
    for cell in record["cells"]:
        per_node[cell["node"]] = per_node.get(cell["node"], 0) + 1
        for counts in cell["attempts"][-1]["sccache"].values():
            hits, misses = hits + counts["hits"], misses + counts["misses"]
    return Run(label, len(nodes), record["wall_seconds"], Path(record["log_dir"]) / "run.json",
               per_node, hits, misses, (before, after))


def _secret(directory: Path, webdav: str) -> Path:
    """The settings of an sccache namespace never written."""
    name = f"fleet-bench-{uuid.uuid4().hex[:10]}"
    backend = cache_store.Store("webdav", endpoint=webdav, namespace=name)
    return cache_secret.write_secret(directory / f"{name}.secret", backend, tool="sccache")


def _plan(record: Path) -> dict[int, float]:
    """fleet.plan's predicted wall time for 1 and 2 nodes from a recorded run's cell times."""
    out = _failed.run([INV, "fleet.plan", "--record", str(record), "--nodes", "1,2", "--json"],
                      cwd=ROOT, stdout=subprocess.PIPE).stdout
    return {p["nodes"]: p["wall_seconds"] for p in json.loads(out)["predictions"]}


def _say(run: Run) -> None:
    print(f"{run.label:14} {run.wall:6.1f} s  {run.record.parent.name}  "
          f"cells per node {run.per_node}  "
          f"sccache {run.hits} hits / {run.misses} misses  "
          f"load {run.load[0]:.1f} -> {run.load[1]:.1f}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--arch", default="gfx950")
    parser.add_argument("--webdav", default="http://127.0.0.1:8080",
                        help="the WebDAV store sccache uses (scripts/webdav.sh start)")
    parser.add_argument("--units-per-cell", type=int, default=0,
                        help="compile only the first N units of each cell (default 0: all 46)")
    parser.add_argument("--node-cpus", default="0:1",
                        help="each node's CPU set, node1:node2 (default 0:1: one core each, "
                             "so 1 node on 1 core against 2 nodes on 2 cores; '' for "
                             "unpinned engines sharing every core)")
    args = parser.parse_args()
    cpus = args.node_cpus.split(":") if args.node_cpus else ["", ""]
    if len(cpus) != 2:
        parser.error(f"--node-cpus: expected node1:node2, e.g. 0:1, got {args.node_cpus!r}")
    node1 = _start(None, "local", cpus[0])
    node2 = _start(NODE2_DIR, "none", cpus[1])
    print(f"{os.cpu_count()} cores; node1 on CPUs {cpus[0] or 'all'}, node2 on CPUs "
          f"{cpus[1] or 'all'} (the registry and WebDAV store unpinned); load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    for name, host in (("node1", node1), ("node2", node2)):
        print(f"{name}: {engineinfo.engine_version({**os.environ, 'DOCKER_HOST': host})}",
              flush=True)
    with tempfile.TemporaryDirectory(prefix="rocm-bake-fleet-bench.") as tmp:
        work = Path(tmp)
        fleet = work / "fleet.toml"
        fleet.write_text(f'[registry]\nurl = "http://127.0.0.1:5000"\n'
                         f'[[nodes]]\nname = "node1"\nendpoint = "{node1}"\n'
                         f'[[nodes]]\nname = "node2"\nendpoint = "{node2}"\n', encoding="utf-8")
        setups = {1: ["node1"], 2: ["node1", "node2"]}
        _say(_build(fleet, setups[2], args.arch, _secret(work, args.webdav), LOGS,
                    "(set-up)", 1))
        runs: list[Run] = []
        for round_ in range(1, args.rounds + 1):
            secrets = {n: _secret(work, args.webdav) for n in setups}
            order = sorted(setups, reverse=round_ % 2 == 0)
            for condition in ("cold", "warm"):
                for n in order:
                    run = _build(fleet, setups[n], args.arch, secrets[n], LOGS,
                                 f"{round_}: {condition} {n} node{'s' if n > 1 else ''}",
                                 args.units_per_cell)
                    _say(run)
                    runs.append(run)
        return _report(runs, args.rounds, args.units_per_cell)


def _report(runs: list[Run], rounds: int, units: int) -> int:
    def median(condition: str, nodes: int) -> float:
        return statistics.median(r.wall for r in runs
                                 if condition in r.label and r.nodes == nodes)

    workload = ("46 units (39 HIP + 7 C/C++)" if units == 0
                else f"the first {units} units of each cell")
    print(f"\n{workload} in 8 compile cells + base + link, median of {rounds}:")
    for condition in ("cold", "warm"):
        one, two = median(condition, 1), median(condition, 2)
        aim = (f"  (aim <= {AIM_COLD}: {'met' if two / one <= AIM_COLD else 'MISSED'})"
               if condition == "cold" else "")
        print(f"  {condition}: 1 node {one:6.1f} s, 2 nodes {two:6.1f} s, "
              f"2 nodes / 1 node {two / one:.2f}{aim}")
    print("\ninv fleet.plan against the measured runs (aim: within "
          f"{AIM_PLAN:.0%}):")
    worst = 0.0
    for i in range(0, len(runs), 2):
        pair = sorted(runs[i:i + 2], key=lambda r: r.nodes)
        for source in pair:
            predicted = _plan(source.record)
            for run in pair:
                error = (predicted[run.nodes] - run.wall) / run.wall
                worst = max(worst, abs(error))
                print(f"  {run.label:14} measured {run.wall:6.1f} s, predicted from the "
                      f"{source.nodes}-node run's cell times {predicted[run.nodes]:6.1f} s "
                      f"({error:+.1%})")
    print(f"  worst: {worst:.1%} ({'met' if worst <= AIM_PLAN else 'MISSED'})")
    print(f"load average now: {' '.join(f'{x:.1f}' for x in os.getloadavg())}; "
          f"at {time.strftime('%H:%M:%S')}")
    return 0


if __name__ == "__main__":
    _failed.main(main)
