"""Benchmark: the same cells built by `inv fleet.build` on 1 node vs 2 nodes, side by side.

Starts (or reuses) two loopback engines sharing one registry — node 1 from
`scripts/engine.sh start`, node 2 with `ROCM_BAKE_REGISTRY=none` in its own run dir — and
builds the test bake file's cells (tests/fleet/bake, busybox stages that sleep) alternately on
one node and on both, each round with a fresh SALT so nothing is cached. Prints every wall
time, the medians and the ratio.

    .venv/bin/python benchmarks/fleet.py [--rounds 1] [--archs a1,a2,a3,a4] [--sleep 3]
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
from pathlib import Path

import _failed

ROOT = Path(__file__).resolve().parent.parent
INV = str(Path(sys.executable).parent / "inv")
ENGINE = ROOT / "scripts" / "engine.sh"
NODE2_DIR = os.environ.get("ROCM_BAKE_FLEET_NODE2_DIR", "/tmp/rocm-bake-fleet-node2")


def _start(run_dir: str | None, registry: str) -> str:
    env = {**os.environ, "ROCM_BAKE_REGISTRY": registry}
    args = ["bash", str(ENGINE), "start", *([run_dir] if run_dir else [])]
    host = _failed.run(args, env=env, stdout=subprocess.PIPE).stdout
    _failed.run(["bash", str(ENGINE), "base-image", *([run_dir] if run_dir else [])], env=env,
                stdout=subprocess.DEVNULL)
    return host.strip().removeprefix("export DOCKER_HOST=")


def _build(fleet: Path, nodes: list[str], archs: str, sleep: str, logs: Path
           ) -> tuple[float, dict[str, int]]:
    argv = [INV, "fleet.build", "--file", "tests/fleet/bake/fleet.hcl", "--fleet", str(fleet),
            "--arch", archs, "--prefix", "rocm-bake-bench/fleet", "--log-dir", str(logs),
            "--history", "/nonexistent", "--read-only", "--json"]
    for node in nodes:
        argv += ["--node", node]
    env = {**os.environ, "SALT": uuid.uuid4().hex[:12], "SLEEP": sleep}
    start = time.perf_counter()
    proc = _failed.run(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE)
    wall = time.perf_counter() - start
    record = json.loads(proc.stdout)
    per_node: dict[str, int] = {}
    for cell in record["cells"]:
        per_node[cell["node"]] = per_node.get(cell["node"], 0) + 1
    return wall, per_node


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--archs", default="a1,a2,a3,a4")
    parser.add_argument("--sleep", default="3", help="seconds each RUN step works")
    args = parser.parse_args()
    node1 = _start(None, "local")
    node2 = _start(NODE2_DIR, "none")
    with tempfile.TemporaryDirectory(prefix="rocm-bake-fleet-bench.") as tmp:
        fleet = Path(tmp) / "fleet.toml"
        fleet.write_text(f'[registry]\nurl = "http://127.0.0.1:5000"\n'
                         f'[[nodes]]\nname = "node1"\nendpoint = "{node1}"\n'
                         f'[[nodes]]\nname = "node2"\nendpoint = "{node2}"\n', encoding="utf-8")
        setups = {"1 node": ["node1"], "2 nodes": ["node1", "node2"]}
        samples: dict[str, list[float]] = {name: [] for name in setups}
        cells = 3 * len(args.archs.split(","))
        for round_ in range(args.rounds):
            for name, nodes in setups.items():
                wall, per_node = _build(fleet, nodes, args.archs, args.sleep,
                                        Path(tmp) / f"{round_}-{len(nodes)}")
                samples[name].append(wall)
                print(f"round {round_ + 1}: {name:8} {wall:6.1f} s  cells per node {per_node}")
    one, two = (statistics.median(samples[n]) for n in setups)
    print(f"\n{cells} cells (busybox, RUN sleep {args.sleep}s, nothing cached), "
          f"median of {args.rounds}:")
    print(f"  1 node  {one:6.1f} s\n  2 nodes {two:6.1f} s\n  ratio 1 node / 2 nodes: "
          f"{one / two:.2f}x")


if __name__ == "__main__":
    _failed.main(main)
