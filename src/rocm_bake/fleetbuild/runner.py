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

The loop (:class:`FleetRun`) keeps time by an injected
:class:`~rocm_bake.core.clock.Clock` and hands each cell to a :class:`CellBuilder`:
:class:`BakeBuilder` runs the bakes on the nodes;
``rocm_bake.fleetbuild.plan`` puts a simulated builder on a virtual clock under the very same
loop to predict a run.
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
from typing import Protocol
from urllib.parse import urlparse

from rocm_bake.archaudit import cells as archaudit_cells
from rocm_bake.archaudit.inputs import REGISTRY_SCHEME
from rocm_bake.core import redact
from rocm_bake.core.clock import SYSTEM, Clock
from rocm_bake.core.errors import RocmBakeError
from rocm_bake.docker import bakecommand, connection, engineinfo, process, skopeo
from rocm_bake.fleetbuild import nodes as fleet_nodes
from rocm_bake.fleetbuild.cells import FleetBuildError, FleetCell
from rocm_bake.fleetbuild.config import Fleet, Node
from rocm_bake.fleetbuild.progress import Progress
from rocm_bake.fleetbuild.record import (
    Attempt,
    CellRecord,
    RunRecord,
    count_steps,
    log_facts,
)
from rocm_bake.oci import provenance
from rocm_bake.oci.registry import Reference, Registry

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
    no_cache: bool = False              # every step run anew (the release tier)
    tier: str = "dev"                   # the trust tier (compilercache.tiers), for the record
    retries: int = 2                    # extra attempts after a node is lost
    overrides: list[str] = field(default_factory=list)   # more --set, passed through
    log_root: Path = Path("fleet-logs")
    run_id: str = ""
    docker: str = "docker"
    lane: str = "fleet"                 # fleet | nightly (the report's badge)
    skipped: list[dict[str, str]] = field(default_factory=list)   # cells the bake file skips
    pins: dict[str, str] = field(default_factory=dict)   # the bake file's PINS (provenance)
    commit: str = ""                                     # this checkout's commit (provenance)


def new_run_id(clock: Clock = SYSTEM) -> str:
    return (time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(clock.time())) + "-"
            + secrets.token_hex(2))


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
                  *cell.exports, *request.overrides]
    return bakecommand.BakeCommand(request.files, [cell.name], overrides, push=True,
                                   progress="plain", allow=cell.allow, no_cache=request.no_cache,
                                   connection=connection.Connection.of(node, request.docker)).argv()


def can_build(node: Node, cell: FleetCell) -> bool:
    """Does the node build every platform the cell asks for?"""
    return set(cell.platforms) <= set(node.platforms)


@dataclass
class Finished:
    """A cell's attempt that ended (its ``end``, ``returncode`` and log facts filled in)."""

    cell: str
    attempt: Attempt


class CellBuilder(Protocol):
    """Builds the cells the loop hands it, each on its node, and says when one ended."""

    def probe(self, node: Node) -> str:
        """"" when the node answers, else why not (one line)."""
        ...

    def start(self, cell: FleetCell, node: Node, attempt: Attempt, argv: list[str],
              env: dict[str, str]) -> None:
        """Begin building ``cell`` on ``node`` (``attempt.start`` is set); return at once."""
        ...

    def wait(self, timeout: float) -> Finished | None:
        """The next attempt that ended, or None after ``timeout`` seconds without one."""
        ...

    def stop(self, node: str) -> None:
        """Stop every build running on ``node`` (it stopped answering)."""
        ...


class BakeBuilder:
    """The real builder: one ``docker buildx bake`` process per cell, watched by a thread."""

    def __init__(self, env: Mapping[str, str], docker: str = "docker",
                 clock: Clock = SYSTEM, attest: Callable[[str], str] | None = None) -> None:
        self.env = dict(env)
        self.docker = docker
        self.clock = clock
        self.attest = attest      # after a cell's push: its provenance line, for the log
        self.done: queue.Queue[Finished] = queue.Queue()
        self.procs: dict[str, tuple[str, subprocess.Popen[bytes]]] = {}   # cell -> node, bake

    def probe(self, node: Node) -> str:
        return fleet_nodes.probe(node, self.env, self.docker)

    def start(self, cell: FleetCell, node: Node, attempt: Attempt, argv: list[str],
              env: dict[str, str]) -> None:
        thread = threading.Thread(target=self._build, args=(cell.name, attempt, argv, env),
                                  name=f"fleet-{cell.name}", daemon=True)
        thread.start()

    def wait(self, timeout: float) -> Finished | None:
        try:
            return self.done.get(timeout=timeout)
        except queue.Empty:
            return None

    def stop(self, node: str) -> None:
        for node_name, proc in list(self.procs.values()):
            if node_name == node and proc.poll() is None:
                proc.terminate()

    def _build(self, cell: str, attempt: Attempt, argv: list[str], env: dict[str, str]
               ) -> None:
        log = Path(attempt.log)
        try:
            with log.open("w", encoding="utf-8") as out:
                out.write(redact.text("$ " + " ".join(argv)) + "\n")
                out.flush()
                proc = process.start(argv, env, out)
                self.procs[cell] = (attempt.node, proc)
                attempt.returncode = proc.wait()
                self.procs.pop(cell, None)
                if attempt.returncode == 0 and self.attest is not None:
                    out.write(self.attest(cell) + "\n")
        except OSError as exc:
            attempt.returncode, attempt.error = 127, str(exc)
        except RocmBakeError as exc:
            attempt.returncode, attempt.error = 2, f"provenance: {exc}"
        attempt.end = self.clock.time()
        attempt.run_steps, attempt.cached_steps = count_steps(log)
        facts = log_facts(log)
        attempt.digest, attempt.sccache = facts.digest, facts.sccache
        attempt.failed_step = "" if attempt.returncode == 0 else facts.failed_step
        self.done.put(Finished(cell, attempt))


class FleetRun:
    """One run of ``inv fleet.build``; ``run()`` returns the exit status. ``builder`` builds
    the cells (default: bakes on the nodes), ``clock`` stamps the record; ``save`` writes
    ``run.json`` at every state change."""

    def __init__(self, fleet: Fleet, request: FleetRequest,
                 env: Mapping[str, str] | None = None, progress: Progress | None = None,
                 on_start: Callable[[str, str], None] | None = None,
                 builder: CellBuilder | None = None, clock: Clock = SYSTEM,
                 save: bool = True) -> None:
        self.fleet = fleet
        self.request = request
        self.env = dict(os.environ if env is None else env)
        self.clock = clock
        self.progress = progress or Progress(live=False, clock=clock)
        self.on_start = on_start
        # The real builder pushes: each image gets its versions statement, and the run ends
        # with the arch audit from the registry; a simulated one (fleet.plan) does neither.
        self.real = builder is None
        self.builder = builder or BakeBuilder(self.env, request.docker, clock, self._attest)
        self.save = save
        run_id = request.run_id or new_run_id(clock)
        self.refs = Refs(registry_host(fleet.registry), request.prefix, request.tag or run_id)
        self.log_dir = request.log_root / run_id
        self.cells = {c.name: c for c in request.cells}
        self.record = RunRecord(
            run_id, clock.time(), str(self.log_dir),
            {n.name: {"endpoint": n.endpoint, "capacity": n.capacity, "lost": None}
             for n in fleet.nodes},
            {c.name: CellRecord(c.name, list(c.depends), c.estimate, self.refs.image(c.name),
                                c.component, c.arch)
             for c in request.cells},
            tag=self.refs.tag, lane=request.lane, tier=request.tier,
            skipped=list(request.skipped))
        self.alive = {n.name: n for n in fleet.nodes}
        self.busy = {n.name: 0 for n in fleet.nodes}
        self.running = 0
        self.watch_every = WATCH_SECONDS
        self._watched = clock.time()
        self.audits: list[archaudit_cells.CellAudit] = []

    @property
    def json_path(self) -> Path:
        return self.log_dir / "run.json"

    def _save(self) -> None:
        if self.save:
            self.record.write(self.json_path)

    # ------------------------------------------------------------------ the loop

    def run(self) -> int:
        if self.real:
            skopeo.require(self.env)          # the arch audit at the end reads the registry
        insecure = [n.name for n in self.fleet.nodes if fleet_nodes.insecure_tcp(n)]
        if insecure:
            raise FleetBuildError(f"node(s) {', '.join(insecure)}: {fleet_nodes.INSECURE_TCP}")
        if self.save:
            self.log_dir.mkdir(parents=True, exist_ok=True)
        why = {name: self.builder.probe(node) for name, node in self.alive.items()}
        if all(why.values()):               # nothing answers: one line, nothing else
            raise FleetBuildError("no node of the fleet answers: " + "; ".join(
                f"{name} ({reason})" for name, reason in why.items()))
        for name, reason in why.items():
            if reason:
                self._lose(name, f"unreachable at the start: {reason}")
        self._save()
        while True:
            self._block_unbuildable()
            self._start_ready()
            if self.running == 0:
                break
            done = self.builder.wait(0.5)
            if done is None:
                self.progress.draw(self.record)
                self._watch()
                continue
            self._finish(done)
            self._save()
        if self.real:
            self._audit()
        self.record.finished = self.clock.time()
        failed = [r for r in self.record.cells.values() if r.status != "built"]
        self.record.exit_status = (EXIT_NOT_BUILT if failed
                                   else archaudit_cells.exit_code(self.audits))
        self._save()
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
            self._save()

    def _attest(self, cell: str) -> str:
        """The versions statement beside the provenance the bake pushed (provenance.attach),
        with the engine of the node that built it (its last attempt's)."""
        reference = Reference.parse(self.refs.image(cell))
        name = self.record.cells[cell].attempts[-1].node
        node = next(n for n in self.fleet.nodes if n.name == name)
        reach = connection.Connection.of(node, self.request.docker)
        engine = engineinfo.engine_version(reach.env(self.env), reach.argv())
        digest = provenance.attach(Registry(reference.host), reference, cell,
                                   self.request.pins, self.request.commit,
                                   engine=engine.to_json())
        return f"provenance: {reference}: provenance (mode=max) and versions attested ({digest})"

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
        attempt = Attempt(node.name, self.clock.time(), log=str(log))
        rec.attempts.append(attempt)
        rec.status = "running"
        self.busy[node.name] += 1
        self.running += 1
        self._save()                            # every state change, atomically
        argv = bake_argv(self.request, cell, self.refs, node)
        env = connection.Connection.of(node, self.request.docker).env(self.env)
        self.builder.start(cell, node, attempt, argv, env)
        self.progress.event(self.record, f"{cell.name}: started on {node.name}"
                            + (f" (attempt {number})" if number > 1 else ""))
        if self.on_start is not None:
            self.on_start(cell.name, node.name)

    def _finish(self, done: Finished) -> None:
        rec = self.record.cells[done.cell]
        attempt = done.attempt
        self.running -= 1
        self.busy[attempt.node] -= 1
        if attempt.returncode == 0:
            rec.status, rec.reason = "built", ("" if len(rec.attempts) == 1 else
                                               f"retried after losing {rec.attempts[0].node}")
            self.progress.event(self.record, f"{rec.cell}: built on {attempt.node} in "
                                f"{attempt.seconds:.1f}s")
            return
        node = self.alive.get(attempt.node)
        lost = node is None or self.builder.probe(node) != ""
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
        if self.clock.time() - self._watched < self.watch_every:
            return
        self._watched = self.clock.time()
        for name, node in list(self.alive.items()):
            if self.busy[name] and self.builder.probe(node) != "":
                self.builder.stop(name)

    def _lose(self, name: str, why: str) -> None:
        if name in self.alive:
            del self.alive[name]
            self.record.nodes[name]["lost"] = {"time": self.clock.time(), "why": why}
            self.progress.event(self.record, f"node {name}: {why}")


def run(fleet: Fleet, request: FleetRequest, env: Mapping[str, str] | None = None,
        progress: Progress | None = None, builder: CellBuilder | None = None,
        clock: Clock = SYSTEM, save: bool = True) -> FleetRun:
    """Build the request's cells over the fleet; the returned run has the record."""
    if not request.cells:
        raise FleetBuildError("nothing to build: no cell selected")
    fleet_run = FleetRun(fleet, request, env, progress, builder=builder, clock=clock,
                         save=save)
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
