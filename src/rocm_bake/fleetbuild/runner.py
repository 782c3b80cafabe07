"""The fleet scheduler: every cell on some node, dependencies handed over through the registry.

Each cell is one ``docker buildx bake CELL`` on one node. Its ``target:`` contexts are
replaced by the images its dependencies pushed (``--set CELL.contexts.K=docker-image://REF``),
so no link crosses a node; the result is pushed to ``REGISTRY/PREFIX/CELL:TAG``, and the layer
cache is read from (and, when writing, exported to) ``REGISTRY/PREFIX/buildcache:CELL``.
Ready cells start highest priority first (longest path), on any node with a free slot. When a
cell fails, the node is probed: a node that no longer answers is dropped and its cells go back
to the queue for another node (bounded by ``retries``); a failure on a live node is the cell's.
When every cell is done, each built cell's image is arch-audited from the registry
(archaudit.cells: its layers read with skopeo, nothing pulled), its lines in the record.
"""

from __future__ import annotations

import os
import queue
import secrets
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from rocm_bake import buildx, provenance, redact, skopeo
from rocm_bake.archaudit import cells as archaudit_cells
from rocm_bake.archaudit.inputs import REGISTRY_SCHEME
from rocm_bake.errors import RocmBakeError
from rocm_bake.fleet import Fleet, Node
from rocm_bake.fleetbuild import nodes as fleet_nodes
from rocm_bake.fleetbuild.cells import FleetBuildError, FleetCell
from rocm_bake.fleetbuild.progress import Progress
from rocm_bake.fleetbuild.record import (
    Attempt,
    CellRecord,
    RunRecord,
    count_steps,
    log_facts,
)
from rocm_bake.registry import Reference, Registry

EXIT_OK = 0
EXIT_NOT_BUILT = 2
WATCH_SECONDS = 30.0     # how often the nodes with running cells are probed


@dataclass
class FleetRequest:
    files: list[str]
    cells: list[FleetCell]
    prefix: str = "rocm-bake/fleet"
    tag: str = ""                       # default: the run id
    cache_read: bool = True
    cache_write: bool = True
    retries: int = 2                    # extra attempts after a node is lost
    overrides: list[str] = field(default_factory=list)   # more --set, passed through
    log_root: Path = Path("fleet-logs")
    run_id: str = ""
    docker: str = "docker"
    lane: str = "fleet"                 # fleet | nightly (the report's badge)
    skipped: list[dict[str, str]] = field(default_factory=list)   # cells the bake file skips
    pins: dict[str, str] = field(default_factory=dict)   # the bake file's PINS (provenance)
    commit: str = ""                                     # this checkout's commit (provenance)


def new_run_id() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(2)


def registry_host(url: str) -> str:
    """``http://127.0.0.1:5000/`` -> ``127.0.0.1:5000`` (image refs name the host only)."""
    host = urlparse(url).netloc
    if not host:
        raise FleetBuildError(f"registry url {url!r} has no host")
    return host


@dataclass(frozen=True)
class Refs:
    host: str
    prefix: str
    tag: str

    def image(self, cell: str) -> str:
        return f"{self.host}/{self.prefix}/{cell}:{self.tag}"

    def cache(self, cell: str) -> str:
        return f"{self.host}/{self.prefix}/buildcache:{cell}"


def bake_argv(request: FleetRequest, cell: FleetCell, refs: Refs, node: Node) -> list[str]:
    """The ``docker buildx bake`` command that builds one cell on one node: the cell's grants
    (``--allow``), its dependencies as the images they pushed, the registry cache."""
    overrides = [f"{cell.name}.tags={refs.image(cell.name)}",
                 *(f"{cell.name}.contexts.{key}=docker-image://{refs.image(dep)}"
                   for key, dep in sorted(cell.contexts.items()))]
    cache = refs.cache(cell.name)
    overrides += [f"{cell.name}.cache-from="
                  + (f"type=registry,ref={cache}" if request.cache_read else ""),
                  f"{cell.name}.cache-to="
                  + (f"type=registry,ref={cache},mode=max" if request.cache_write else ""),
                  f"{cell.name}.attest={provenance.ATTEST}",
                  *request.overrides]
    return buildx.BakeCommand(request.files, [cell.name], overrides, push=True,
                              progress="plain", allow=cell.allow,
                              connection=buildx.Connection.of(node, request.docker)).argv()


def can_build(node: Node, cell: FleetCell) -> bool:
    """Does the node build every platform the cell asks for?"""
    return set(cell.platforms) <= set(node.platforms)


@dataclass
class _Done:
    cell: str
    attempt: Attempt


class FleetRun:
    """One run of ``inv fleet.build``; ``run()`` returns the exit status."""

    def __init__(self, fleet: Fleet, request: FleetRequest,
                 env: Mapping[str, str] | None = None, progress: Progress | None = None,
                 on_start: Callable[[str, str], None] | None = None) -> None:
        self.fleet = fleet
        self.request = request
        self.env = dict(os.environ if env is None else env)
        self.progress = progress or Progress(live=False)
        self.on_start = on_start
        run_id = request.run_id or new_run_id()
        self.refs = Refs(registry_host(fleet.registry), request.prefix, request.tag or run_id)
        self.log_dir = request.log_root / run_id
        self.cells = {c.name: c for c in request.cells}
        self.record = RunRecord(
            run_id, time.time(), str(self.log_dir),
            {n.name: {"endpoint": n.endpoint, "capacity": n.capacity, "lost": None}
             for n in fleet.nodes},
            {c.name: CellRecord(c.name, list(c.depends), c.estimate, self.refs.image(c.name),
                                c.component, c.arch)
             for c in request.cells},
            tag=self.refs.tag, lane=request.lane, skipped=list(request.skipped))
        self.alive = {n.name: n for n in fleet.nodes}
        self.busy = {n.name: 0 for n in fleet.nodes}
        self.done: queue.Queue[_Done] = queue.Queue()
        self.running = 0
        self.procs: dict[str, tuple[str, subprocess.Popen[bytes]]] = {}   # cell -> node, bake
        self.watch_every = WATCH_SECONDS
        self._watched = time.time()
        self.audits: list[archaudit_cells.CellAudit] = []

    @property
    def json_path(self) -> Path:
        return self.log_dir / "run.json"

    # ------------------------------------------------------------------ the loop

    def run(self) -> int:
        skopeo.require(self.env)              # the arch audit at the end reads the registry
        insecure = [n.name for n in self.fleet.nodes if fleet_nodes.insecure_tcp(n)]
        if insecure:
            raise FleetBuildError(f"node(s) {', '.join(insecure)}: {fleet_nodes.INSECURE_TCP}")
        self.log_dir.mkdir(parents=True, exist_ok=True)
        why = {name: fleet_nodes.probe(node, self.env, self.request.docker)
               for name, node in self.alive.items()}
        if all(why.values()):               # nothing answers: one line, nothing else
            raise FleetBuildError("no node of the fleet answers: " + "; ".join(
                f"{name} ({reason})" for name, reason in why.items()))
        for name, reason in why.items():
            if reason:
                self._lose(name, f"unreachable at the start: {reason}")
        self.record.write(self.json_path)
        while True:
            self._block_unbuildable()
            self._start_ready()
            if self.running == 0:
                break
            try:
                done = self.done.get(timeout=0.5)
            except queue.Empty:
                self.progress.draw(self.record)
                self._watch()
                continue
            self._finish(done)
            self.record.write(self.json_path)
        self._audit()
        self.record.finished = time.time()
        failed = [r for r in self.record.cells.values() if r.status != "built"]
        self.record.exit_status = (EXIT_NOT_BUILT if failed
                                   else archaudit_cells.exit_code(self.audits))
        self.record.write(self.json_path)
        self.progress.draw(self.record, force=True)
        return self.record.exit_status

    def _audit(self) -> None:
        """The arch audit of every built cell's pushed image, read from the registry."""
        for rec in self.record.cells.values():
            if rec.status != "built":
                continue
            cell = self.cells[rec.cell]
            source = REGISTRY_SCHEME + rec.ref
            result = archaudit_cells.audit_artifacts(
                rec.cell, cell.arch or None, archaudit_cells.Artifacts((source,), (source,)),
                self.env, cell.no_gpu_code)
            self.audits.append(result)
            rec.audit, rec.audit_exit = result.lines(), result.exit_code
            self.progress.event(self.record, f"arch: {rec.audit[0]}")
            self.record.write(self.json_path)

    def _ready(self) -> list[FleetCell]:
        cells = self.record.cells
        return [c for c in self.request.cells if cells[c.name].status == "pending"
                and all(cells[d].status == "built" for d in c.depends)]

    def _block_unbuildable(self) -> None:
        changed = True
        while changed:
            changed = False
            for rec in self.record.cells.values():
                if rec.status != "pending":
                    continue
                bad = [d for d in rec.depends
                       if self.record.cells[d].status in ("failed", "blocked")]
                if bad:
                    rec.status, rec.reason = "blocked", f"needs {', '.join(bad)}"
                    changed = True
                elif not self.alive:
                    rec.status, rec.reason = "failed", "no node left"
                    changed = True
                elif not any(can_build(n, self.cells[rec.cell]) for n in self.alive.values()):
                    rec.status = "failed"
                    rec.reason = ("no node left for platform(s) "
                                  + ", ".join(self.cells[rec.cell].platforms))
                    changed = True

    def _start_ready(self) -> None:
        for cell in self._ready():             # highest priority first (request order)
            node = self._free_node(cell)
            if node is None:
                continue
            self._launch(cell, node)

    def _free_node(self, cell: FleetCell) -> Node | None:
        tried = {a.node for a in self.record.cells[cell.name].attempts if a.node_lost}
        free = [n for n in self.alive.values() if self.busy[n.name] < n.capacity
                and can_build(n, cell)]
        # a node this cell was lost on is only used again when nothing else is left
        free.sort(key=lambda n: (n.name in tried, self.busy[n.name] / n.capacity))
        return free[0] if free else None

    def _launch(self, cell: FleetCell, node: Node) -> None:
        rec = self.record.cells[cell.name]
        number = len(rec.attempts) + 1
        log = self.log_dir / (f"{cell.name}.log" if number == 1
                              else f"{cell.name}.attempt{number}.log")
        attempt = Attempt(node.name, time.time(), log=str(log))
        rec.attempts.append(attempt)
        rec.status = "running"
        self.busy[node.name] += 1
        self.running += 1
        self.record.write(self.json_path)      # every state change, atomically
        argv = bake_argv(self.request, cell, self.refs, node)
        env = buildx.Connection.of(node, self.request.docker).env(self.env)
        thread = threading.Thread(target=self._build, args=(cell.name, attempt, argv, env, log),
                                  name=f"fleet-{cell.name}", daemon=True)
        thread.start()
        self.progress.event(self.record, f"{cell.name}: started on {node.name}"
                            + (f" (attempt {number})" if number > 1 else ""))
        if self.on_start is not None:
            self.on_start(cell.name, node.name)

    def _build(self, cell: str, attempt: Attempt, argv: list[str], env: dict[str, str],
               log: Path) -> None:
        try:
            with log.open("w", encoding="utf-8") as out:
                out.write(redact.text("$ " + " ".join(argv)) + "\n")
                out.flush()
                proc = buildx.start(argv, env, out)
                self.procs[cell] = (attempt.node, proc)
                attempt.returncode = proc.wait()
                self.procs.pop(cell, None)
                if attempt.returncode == 0:
                    out.write(self._attest(cell) + "\n")
        except OSError as exc:
            attempt.returncode, attempt.error = 127, str(exc)
        except RocmBakeError as exc:
            attempt.returncode, attempt.error = 2, f"provenance: {exc}"
        attempt.end = time.time()
        self.done.put(_Done(cell, attempt))

    def _attest(self, cell: str) -> str:
        """The versions statement beside the provenance the bake pushed (provenance.attach)."""
        reference = Reference.parse(self.refs.image(cell))
        digest = provenance.attach(Registry(reference.host), reference, cell,
                                   self.request.pins, self.request.commit)
        return f"provenance: {reference}: provenance (mode=max) and versions attested ({digest})"

    def _finish(self, done: _Done) -> None:
        rec = self.record.cells[done.cell]
        attempt = done.attempt
        self.running -= 1
        self.busy[attempt.node] -= 1
        attempt.run_steps, attempt.cached_steps = count_steps(Path(attempt.log))
        facts = log_facts(Path(attempt.log))
        attempt.digest, attempt.sccache = facts.digest, facts.sccache
        attempt.failed_step = "" if attempt.returncode == 0 else facts.failed_step
        if attempt.returncode == 0:
            rec.status, rec.reason = "built", ("" if len(rec.attempts) == 1 else
                                               f"retried after losing {rec.attempts[0].node}")
            self.progress.event(self.record, f"{rec.cell}: built on {attempt.node} in "
                                f"{attempt.seconds:.1f}s")
            return
        node = self.alive.get(attempt.node)
        lost = node is None or not fleet_nodes.reachable(node, self.env, self.request.docker)
        if lost:
            attempt.node_lost = True
            attempt.error = attempt.error or f"node {attempt.node} lost"
            self._lose(attempt.node, f"lost while building {rec.cell}")
            retries = sum(1 for a in rec.attempts if a.node_lost)
            if retries <= self.request.retries and self.alive:
                rec.status, rec.reason = "pending", f"node {attempt.node} lost; retrying"
                self.progress.event(self.record, f"{rec.cell}: node {attempt.node} lost, "
                                    "queued for another node")
                return
            rec.status = "failed"
            rec.reason = (f"node {attempt.node} lost, no retry left" if self.alive
                          else "every node lost")
        else:
            attempt.error = attempt.error or f"docker buildx bake exited {attempt.returncode}"
            rec.status, rec.reason = "failed", f"build failed (see {attempt.log})"
        self.progress.event(self.record, f"{rec.cell}: {rec.reason}")

    def _watch(self) -> None:
        """A node that stops answering while its bakes hang (a network gone, not a closed
        socket): stop its bakes, so their cells are retried elsewhere."""
        if time.time() - self._watched < self.watch_every:
            return
        self._watched = time.time()
        for name, node in list(self.alive.items()):
            if self.busy[name] and not fleet_nodes.reachable(node, self.env,
                                                             self.request.docker):
                for node_name, proc in list(self.procs.values()):
                    if node_name == name and proc.poll() is None:
                        proc.terminate()

    def _lose(self, name: str, why: str) -> None:
        if name in self.alive:
            del self.alive[name]
            self.record.nodes[name]["lost"] = {"time": time.time(), "why": why}
            self.progress.event(self.record, f"node {name}: {why}")


def run(fleet: Fleet, request: FleetRequest, env: Mapping[str, str] | None = None,
        progress: Progress | None = None) -> FleetRun:
    """Build the request's cells over the fleet; the returned run has the record."""
    if not request.cells:
        raise FleetBuildError("nothing to build: no cell selected")
    fleet_run = FleetRun(fleet, request, env, progress)
    fleet_run.run()
    return fleet_run


def select_nodes(fleet: Fleet, names: Sequence[str]) -> Fleet:
    """The fleet restricted to the named nodes (all when empty)."""
    if not names:
        return fleet
    known = {n.name for n in fleet.nodes}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise FleetBuildError(f"no node named {', '.join(unknown)} in the fleet "
                              f"(nodes: {', '.join(sorted(known))})")
    return Fleet(tuple(n for n in fleet.nodes if n.name in names), fleet.registry, fleet.webdav)
