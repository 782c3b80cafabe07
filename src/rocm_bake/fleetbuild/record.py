"""What a fleet run leaves behind: one log per cell attempt, the JSON record, the summary."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rocm_bake.core import atomic, redact
from rocm_bake.docker import progress as buildx_progress
from rocm_bake.perf.schema import duration


@dataclass
class Attempt:
    node: str
    start: float            # seconds since the epoch
    end: float = 0.0
    returncode: int | None = None
    log: str = ""
    error: str = ""
    node_lost: bool = False
    run_steps: int = 0      # RUN steps executed
    cached_steps: int = 0   # RUN steps served from a cache
    digest: str = ""        # the image digest pushed
    failed_step: str = ""   # the build step that failed, as the log names it
    sccache: dict[str, dict[str, int]] = field(default_factory=dict)  # language -> hits/misses

    @property
    def seconds(self) -> float:
        return max(0.0, self.end - self.start)


@dataclass
class CellRecord:
    cell: str
    depends: list[str]
    estimate: float
    ref: str
    component: str = ""
    arch: str = ""
    status: str = "pending"     # pending | running | built | failed | blocked
    reason: str = ""
    attempts: list[Attempt] = field(default_factory=list)
    audit: list[str] = field(default_factory=list)   # the arch audit's lines (built cells)
    audit_exit: int | None = None                     # 0 ok, 1 wrong arch / no GPU code, 2

    @property
    def node(self) -> str:
        return self.attempts[-1].node if self.attempts else ""

    @property
    def seconds(self) -> float:
        return self.attempts[-1].seconds if self.attempts else 0.0


@dataclass
class RunRecord:
    run_id: str
    started: float
    log_dir: str
    nodes: dict[str, dict[str, object]]
    cells: dict[str, CellRecord]
    finished: float = 0.0
    exit_status: int | None = None
    tag: str = ""
    lane: str = "fleet"         # fleet | nightly
    tier: str = "dev"           # the trust tier (compilercache.tiers)
    skipped: list[dict[str, str]] = field(default_factory=list)   # component, arch, reason

    def to_json(self) -> dict[str, object]:
        cells = []
        for rec in self.cells.values():
            data = asdict(rec)
            data["node"] = rec.node
            data["seconds"] = round(rec.seconds, 3)
            for attempt, raw in zip(rec.attempts, data["attempts"], strict=True):
                raw["seconds"] = round(attempt.seconds, 3)
            cells.append(data)
        return {"run_id": self.run_id, "started": self.started, "finished": self.finished,
                "wall_seconds": round(self.finished - self.started, 3),
                "exit_status": self.exit_status, "log_dir": self.log_dir,
                "tag": self.tag, "lane": self.lane, "tier": self.tier,
                "skipped": self.skipped,
                "nodes": self.nodes, "cells": cells}

    def write(self, path: Path) -> None:
        """Atomically (a reader, such as the live report, never sees half a file)."""
        atomic.write_text(path, json.dumps(redact.data(self.to_json()), separators=(",", ":"))
                          + "\n")


def _steps(log: Path) -> list[buildx_progress.Step]:
    """The steps of a ``--progress=plain`` log (none when it cannot be read)."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return buildx_progress.parse_plain(text.splitlines())


def count_steps(log: Path) -> tuple[int, int]:
    """(RUN steps executed, RUN steps cached) from a ``--progress=plain`` log."""
    return buildx_progress.run_counts(_steps(log))


@dataclass(frozen=True)
class LogFacts:
    digest: str = ""
    failed_step: str = ""
    sccache: dict[str, dict[str, int]] = field(default_factory=dict)


def log_facts(log: Path) -> LogFacts:
    """From a ``--progress=plain`` log: the digest pushed, the step that failed, and the
    sccache hits and misses per language (the last stats of each step counted)."""
    steps = _steps(log)
    return LogFacts(buildx_progress.pushed_digest(steps), buildx_progress.failed_step(steps),
                    buildx_progress.sccache_counts(steps))


def summary_rows(run: RunRecord) -> list[list[str]]:
    """One row per cell: cell, status, node, time, attempts, RUN steps run/cached, note."""
    rows = []
    for rec in sorted(run.cells.values(), key=lambda r: (r.attempts[0].start if r.attempts
                                                         else float("inf"), r.cell)):
        last = rec.attempts[-1] if rec.attempts else None
        tried = " → ".join(a.node for a in rec.attempts) or "-"
        rows.append([rec.cell, rec.status, tried, duration(rec.seconds) if last else "-",
                     str(len(rec.attempts)),
                     f"{last.run_steps}/{last.cached_steps}" if last else "-",
                     rec.reason])
    return rows


SUMMARY_HEADERS = ["cell", "status", "node", "time", "attempts", "RUN run/cached", "note"]


def perf_records(run: RunRecord, bake_file: str, commit: str = "", condition: str = "warm"
                 ) -> list[dict[str, object]]:
    """The perf-history lines of a run (perf/schema.py's format; appended by
    :func:`rocm_bake.perf.history.append`): one per built cell, naming its arch and the
    ``bake_file`` (the run's bake files) it was built from, its last attempt's time;
    ``cache_hit_rate`` is the share of RUN steps served cached."""
    out: list[dict[str, object]] = []
    for rec in run.cells.values():
        if rec.status != "built":
            continue
        last = rec.attempts[-1]
        line: dict[str, object] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(last.end)),
            "condition": condition, "target": rec.cell, "seconds": round(last.seconds, 3),
            "arch": rec.arch, "workload": {"bake_file": bake_file}}
        if commit:
            line["commit"] = commit
        steps = last.run_steps + last.cached_steps
        if steps:
            line["cache_hit_rate"] = round(last.cached_steps / steps, 4)
        out.append(line)
    return out

