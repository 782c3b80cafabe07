"""buildx's progress output, parsed in one place: ``--progress=rawjson`` (each vertex with its
times, CACHED flag, error and logs) and ``--progress=plain`` (``#N [target stage] RUN ...``,
``#N CACHED``, ``#N ERROR: ...``, ``#N 1.23 <log line>``), both into the same :class:`Step`
list; and what the steps say: the digest pushed, the step that failed, sccache's hits and
misses."""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

_PLAIN = re.compile(r"^#(\d+) (.*)$")
_PLAIN_TIME = re.compile(r"^(?:\d+\.\d+ )?(.*)$")
_DIGEST = re.compile(r"pushing manifest for \S+@(sha256:[0-9a-f]{64})")
_SCCACHE = re.compile(r"^Cache (hits|misses) \(([^)]+)\)\s+(\d+)\s*$")


@dataclass
class Step:
    """One BuildKit vertex of a build."""

    digest: str
    name: str
    started: datetime | None = None
    completed: datetime | None = None
    cached: bool = False
    error: str = ""
    log: list[str] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)   # digests of the vertices it reads (rawjson)

    @property
    def seconds(self) -> float:
        if self.started is None or self.completed is None:
            return 0.0
        return max(0.0, (self.completed - self.started).total_seconds())

    @property
    def is_run(self) -> bool:
        """A Dockerfile RUN step (``[stage n/m] RUN ...``)."""
        return "] RUN " in self.name or self.name.startswith("RUN ")

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "seconds": round(self.seconds, 3), "cached": self.cached,
                "started": self.started.isoformat() if self.started else None,
                "error": self.error or None}


def _time(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    text = value.rstrip("Z")
    head, dot, frac = text.partition(".")
    text = f"{head}.{frac[:6]}" if dot else head
    try:
        parsed = datetime.fromisoformat(text + "+00:00")
    except ValueError:
        return None
    return None if parsed.year < 2000 else parsed


def _status(line: str) -> dict[str, Any] | None:
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        status = json.loads(line)
    except json.JSONDecodeError:
        return None
    return status if isinstance(status, dict) else None


def parse_rawjson(lines: Iterable[str]) -> list[Step]:
    """The steps of a ``--progress=rawjson`` stream, in the order they first appeared."""
    steps: dict[str, Step] = {}
    for raw in lines:
        status = _status(raw)
        if status is None:
            continue
        for vertex in status.get("vertexes") or []:
            digest = str(vertex.get("digest", ""))
            step = steps.setdefault(digest, Step(digest, str(vertex.get("name", ""))))
            step.name = str(vertex.get("name") or step.name)
            step.started = _time(vertex.get("started")) or step.started
            step.completed = _time(vertex.get("completed")) or step.completed
            step.cached = step.cached or bool(vertex.get("cached"))
            step.error = str(vertex.get("error") or step.error)
            step.inputs = [str(d) for d in vertex.get("inputs") or []] or step.inputs
        for entry in status.get("logs") or []:
            owner = steps.get(str(entry.get("vertex", "")))
            if owner is not None:
                try:
                    owner.log.append(base64.b64decode(str(entry.get("data", ""))).decode(
                        "utf-8", "replace"))
                except (binascii.Error, ValueError):
                    continue
    return list(steps.values())


def parse_plain(lines: Iterable[str]) -> list[Step]:
    """The steps of a ``--progress=plain`` stream; a step's name is its first line."""
    steps: dict[str, Step] = {}
    for raw in lines:
        match = _PLAIN.match(raw.rstrip("\n"))
        if not match:
            continue
        number, text = match.groups()
        step = steps.get(number)
        if step is None:
            steps[number] = Step(number, text)
            continue
        if text.strip() == "CACHED":
            step.cached = True
        elif text.startswith("ERROR: "):
            step.error = step.error or text.removeprefix("ERROR: ").strip()
        elif text.startswith(("DONE", "ERROR", "CANCELED")):
            continue
        else:
            step.log.append(_PLAIN_TIME.match(text).group(1) + "\n")  # type: ignore[union-attr]
    return list(steps.values())


def target_of(step: Step) -> str:
    """The bake target a step belongs to (``[lightgbm build 2/5] RUN`` -> lightgbm)."""
    return step.name[1:].split(" ", 1)[0].rstrip("]") if step.name.startswith("[") else ""


def run_counts(steps: Sequence[Step]) -> tuple[int, int]:
    """(RUN steps executed, RUN steps served from a cache)."""
    runs = [s for s in steps if s.is_run]
    cached = sum(1 for s in runs if s.cached)
    return len(runs) - cached, cached


def pushed_digest(steps: Sequence[Step]) -> str:
    """The image digest the build pushed (``pushing manifest for REF@sha256:...``), or ""."""
    digest = ""
    for step in steps:
        for line in (step.name, *step.log):
            if m := _DIGEST.search(line):
                digest = m.group(1)
    return digest


def failed_step(steps: Sequence[Step]) -> str:
    """The first step that failed, as the log names it (``[stage 4/4] RUN ...``), or ""."""
    for step in steps:
        if step.error:
            name = step.name.rstrip()
            return name if name.startswith("[") else f"step #{step.digest}"
    return ""


def sccache_counts(steps: Sequence[Step]) -> dict[str, dict[str, int]]:
    """sccache's hits and misses per language (``sccache --show-stats`` in a step's log): the
    last stats of each step, summed over the steps."""
    counts: dict[str, dict[str, int]] = {}
    for step in steps:
        last: dict[tuple[str, str], int] = {}
        for line in step.log:
            if m := _SCCACHE.match(line):
                last[(m.group(2), m.group(1))] = int(m.group(3))
        for (language, kind), count in last.items():
            counts.setdefault(language, {"hits": 0, "misses": 0})[kind] += count
    return counts
