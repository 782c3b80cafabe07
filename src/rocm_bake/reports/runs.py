"""The runs of a ``fleet-logs/`` directory: as raw run.json text (the fleet-run page computes
its own view, critical path included, in fleet.html) and as a summary view for the nightly
page and the docs: attempts with their outcome, wall time, node utilisation, counts."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocm_bake.core.errors import RocmBakeError

RUN_FILE = "run.json"
# `inv version-check --images --images-out LOGS/registry-images.json`: the published images
# against the bake file, which the nightly page shows.
REGISTRY_IMAGES = "registry-images.json"


class ReportError(RocmBakeError):
    """A report cannot be made (a run.json that is not a fleet run record)."""


@dataclass(frozen=True)
class RunFile:
    run_id: str
    path: Path
    version: str        # changes whenever the run is rewritten (a new file: a new inode)


def find(root: Path) -> list[RunFile]:
    """Every run under ``root`` (``<run-id>/run.json``), newest first (run ids start with the
    UTC time they began)."""
    if not root.is_dir():
        return []
    found = []
    for path in root.glob(f"*/{RUN_FILE}"):
        try:
            st = path.stat()
            found.append(RunFile(path.parent.name, path,
                                 f"{st.st_ino}-{st.st_mtime_ns}-{st.st_size}"))
        except FileNotFoundError:       # removed while listing
            continue
    return sorted(found, key=lambda r: r.run_id, reverse=True)


@dataclass(frozen=True)
class RawRun:
    file: RunFile
    text: str           # run.json as the fleet wrote it (JSON; "</" only inside strings)


def raw(root: Path) -> list[RawRun]:
    """Every run's run.json text, newest first (no parsing: the page does that)."""
    out = []
    for found in find(root):
        try:
            out.append(RawRun(found, found.path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            continue
    return out


def load(path: Path) -> dict[str, Any]:
    """One run.json (written atomically by the fleet, so never half a file)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ReportError(f"{path}: not a readable fleet run record ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise ReportError(f"{path}: not a fleet run record (no cells)")
    return data


def outcome(attempt: dict[str, Any]) -> str:
    """built | failed | lost (retried after its node was lost) | running."""
    if attempt.get("node_lost"):
        return "lost"
    if attempt.get("returncode") is None:
        return "running"
    return "built" if attempt.get("returncode") == 0 else "failed"


def _attempt(raw: dict[str, Any]) -> dict[str, Any]:
    return {"node": raw.get("node", ""), "start": float(raw.get("start") or 0),
            "end": float(raw.get("end") or 0), "outcome": outcome(raw),
            "run": int(raw.get("run_steps") or 0), "cached": int(raw.get("cached_steps") or 0),
            "digest": raw.get("digest") or "", "failed_step": raw.get("failed_step") or "",
            "error": raw.get("error") or "", "sccache": raw.get("sccache") or {}}


def _cell(raw: dict[str, Any]) -> dict[str, Any]:
    name = str(raw.get("cell", ""))
    component, _, arch = name.rpartition("-")
    return {"cell": name, "component": raw.get("component") or component,
            "arch": raw.get("arch") or arch, "status": raw.get("status", ""),
            "reason": raw.get("reason", ""), "depends": list(raw.get("depends") or []),
            "ref": raw.get("ref", ""), "audit": [str(line) for line in raw.get("audit") or []],
            "audit_exit": raw.get("audit_exit"),
            "attempts": [_attempt(a) for a in raw.get("attempts") or []]}


def why_command(cell: str, endpoint: str) -> str:
    """The command that explains why a cell rebuilt, on the node that built it (whose buildx
    history holds the build): ``DOCKER_HOST=... inv why-rebuilt CELL``."""
    if endpoint.startswith(("unix://", "tcp://", "ssh://")):
        return f"DOCKER_HOST={endpoint} inv why-rebuilt {cell}"
    if endpoint:
        return f"DOCKER_CONTEXT={endpoint} inv why-rebuilt {cell}"
    return f"inv why-rebuilt {cell}"


def _link_explanations(cells: list[dict[str, Any]], nodes: dict[str, Any]) -> None:
    """Each attempt that built and ran a step (a rebuild) names its explanation (``why``)."""
    for cell in cells:
        for attempt in cell["attempts"]:
            if attempt["outcome"] == "built" and attempt["run"] > 0:
                node = nodes.get(attempt["node"]) or {}
                attempt["why"] = why_command(cell["cell"], str(node.get("endpoint") or ""))


def view(data: dict[str, Any], version: str = "") -> dict[str, Any]:
    """A run record as the page draws it."""
    cells = [_cell(c) for c in data["cells"]]
    _link_explanations(cells, data.get("nodes") or {})
    started = float(data.get("started") or 0)
    ends = [a["end"] or a["start"] for c in cells for a in c["attempts"]]
    finished = float(data.get("finished") or 0)
    last = finished or max([started, *ends])
    wall = max(0.0, last - started)
    nodes = []
    for name, node in (data.get("nodes") or {}).items():
        busy = sum((a["end"] or last) - a["start"] for c in cells for a in c["attempts"]
                   if a["node"] == name)
        capacity = int(node.get("capacity") or 1)
        lost = node.get("lost") or None
        nodes.append({"name": name, "capacity": capacity,
                      "lost": {"time": lost.get("time"), "why": lost.get("why", "")}
                      if isinstance(lost, dict) else None,
                      "utilisation": round(busy / (wall * capacity), 4) if wall else 0.0})
    counts = {s: sum(1 for c in cells if c["status"] == s)
              for s in ("built", "failed", "blocked", "running", "pending")}
    total_capacity = sum(n["capacity"] for n in nodes) or 1
    busy_all = sum(n["utilisation"] * n["capacity"] for n in nodes)
    return {"id": str(data.get("run_id", "")), "version": version, "started": started,
            "finished": finished, "wall": round(wall, 3),
            "exit_status": data.get("exit_status"), "lane": data.get("lane") or "fleet",
            "tag": data.get("tag") or "", "nodes": nodes, "cells": cells,
            "skipped": list(data.get("skipped") or []), "counts": counts,
            "utilisation": round(busy_all / total_capacity, 4)}


def views(root: Path) -> list[dict[str, Any]]:
    """Every run under ``root`` as the page draws it, newest first."""
    return [view(load(r.path), r.version) for r in find(root)]


def registry_images(root: Path) -> dict[str, Any] | None:
    """The last ``version-check --images`` report written into ``root``, or None."""
    path = root / REGISTRY_IMAGES
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ReportError(f"{path}: not JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        raise ReportError(f"{path}: not a version-check --images report")
    return data
