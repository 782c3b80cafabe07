"""Fleet run records made with the fleet's own record types (fleetbuild/record.py) and written
as the fleet writes them: for the report tests and benchmarks/fleet_report.py."""

from __future__ import annotations

import random
from pathlib import Path

from rocm_bake.fleetbuild.record import Attempt, CellRecord, RunRecord

T0 = 1_790_000_000.0      # a fixed epoch second: the records are the same every time


def run_id(index: int) -> str:
    return f"20260101T{index // 60:02d}{index % 60:02d}00Z-{index:04x}"


def audit_line(cell: str, arch: str, ref: str) -> str:
    """The arch audit's line for a built cell with GPU code for its arch (archaudit.cells)."""
    return (f"{cell}: expected {arch}: ok: 1 ELF file(s) with GPU code carry {arch} "
            f"(3 host-only) in image {ref} (from its registry) (/opt/rocm* left out: ROCm's "
            "own)")


def record(index: int, cells: int = 6, nodes: int = 2, seed: int = 0,
           finished: bool = True, t0: float = T0) -> RunRecord:
    """A run of ``cells`` cells (chains of three: base -> mid -> top per arch) over ``nodes``
    nodes, starting at ``t0`` + ``index`` days; with ``finished`` False the last cell is still
    running (a page draws it up to the browser's clock: pass a ``t0`` of a few minutes ago)."""
    rng = random.Random(seed * 1000 + index)
    start = t0 + index * 86_400
    names = [f"n{i + 1}" for i in range(nodes)]
    free = {n: start for n in names}
    recs: dict[str, CellRecord] = {}
    for i in range(cells):
        level, arch = ("base", "mid", "top")[i % 3], f"a{i // 3 + 1}"
        name = f"{level}-{arch}"
        depends = [] if level == "base" else [f"{('base', 'mid')[i % 3 - 1]}-{arch}"]
        node = min(free, key=lambda n: free[n])
        ready = max([free[node], *(recs[d].attempts[-1].end for d in depends)])
        seconds = rng.uniform(5, 60)
        attempt = Attempt(node, ready, ready + seconds, 0, f"/logs/{name}.log",
                          run_steps=rng.randint(0, 3), cached_steps=rng.randint(0, 3),
                          digest="sha256:" + f"{rng.getrandbits(256):064x}",
                          sccache={"c/c++": {"hits": rng.randint(0, 900),
                                             "misses": rng.randint(0, 90)}})
        free[node] = attempt.end
        ref = f"127.0.0.1:5000/x/{name}:t"
        recs[name] = CellRecord(name, depends, seconds, ref, level, arch, "built", "",
                                [attempt], audit=[audit_line(name, arch, ref)], audit_exit=0)
    last = recs[list(recs)[-1]]
    if not finished:
        last.status = "running"
        last.attempts[-1].end, last.attempts[-1].returncode = 0.0, None
    end = max(a.end for r in recs.values() for a in r.attempts)
    return RunRecord(run_id(index), start, f"/logs/{run_id(index)}",
                     {n: {"endpoint": f"unix:///{n}.sock", "capacity": 1, "lost": None}
                      for n in names}, recs, finished=end if finished else 0.0,
                     exit_status=0 if finished else None, tag=run_id(index))


def write(logs: Path, rec: RunRecord) -> Path:
    path = logs / rec.run_id / "run.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    rec.write(path)
    return path
