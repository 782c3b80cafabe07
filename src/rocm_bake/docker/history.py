"""``docker buildx history``, in one place: the builds the builder remembers (``history ls``),
what one of them was given (``history inspect``: build args, named contexts, the images it
read with their digests, ``--no-cache``) and its steps, each cached or not (``history logs
--progress rawjson``, parsed by :mod:`rocm_bake.docker.progress`).

A build is found by its name: the ``BUILDKIT_BUILD_NAME`` build arg when the bake target sets
it (rocm-bake.hcl's cells do, to their own name), else buildx's own name for it.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.docker import progress as buildx_progress
from rocm_bake.docker.connection import Connection, error_line
from rocm_bake.docker.progress import Step

NAME_ARG = "BUILDKIT_BUILD_NAME"
TIMEOUT = 120.0
COMPLETED = "Completed"
# A Dockerfile instruction's vertex: "[stage 2/5] COPY ...", "[core-gfx950 build 3/4] RUN ...".
_INSTRUCTION = re.compile(r"^\[[^\]]*\b\d+/\d+\] (\w+)")


class HistoryError(RocmBakeError):
    """``docker buildx history`` could not answer: the message names the command and why."""


@dataclass(frozen=True)
class Summary:
    """One line of ``docker buildx history ls --format json``."""

    ref: str             # the full ref, builder/node/id
    name: str
    status: str
    created_at: str      # RFC 3339, as buildx prints it
    cached_steps: int
    total_steps: int

    @property
    def id(self) -> str:
        """The record's own id (what ``history inspect`` and ``logs`` take)."""
        return self.ref.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Material:
    """An image the build read, with the digest it resolved to."""

    uri: str           # pkg:docker/rocm-bake/busybox@test?platform=linux%2Famd64
    digest: str

    @property
    def image(self) -> str:
        """The image reference the user wrote (``rocm-bake/busybox:test``)."""
        body = unquote(self.uri.removeprefix("pkg:docker/").split("?", 1)[0])
        name, at, version = body.rpartition("@")
        if not at:
            return body
        return f"{name}@{version}" if version.startswith("sha256:") else f"{name}:{version}"


@dataclass
class Record:
    """One build as the history holds it."""

    summary: Summary
    build_args: dict[str, str]
    named_contexts: dict[str, str]
    materials: list[Material]
    no_cache: bool = False
    steps: list[Step] = field(default_factory=list)

    @property
    def instructions(self) -> list[Step]:
        """The Dockerfile instructions that build something, in the order they started (the
        FROM of an image is resolved, never cached, and not one of them)."""
        found = [s for s in self.steps if (m := _INSTRUCTION.match(s.name)) and
                 m.group(1).upper() != "FROM"]
        return sorted(found, key=lambda s: (s.started is None, s.started))

    def first_uncached(self) -> Step | None:
        return next((s for s in self.instructions if not s.cached), None)

    def step_names(self, digests: Sequence[str]) -> list[str]:
        by_digest = {s.digest: s.name for s in self.steps}
        return [by_digest.get(d, "") for d in digests]


def _history(connection: Connection, args: Sequence[str],
             env: Mapping[str, str] | None) -> subprocess.CompletedProcess[str]:
    argv = [*connection.argv(), "buildx", "history", *args]
    what = " ".join(["docker", "buildx", "history", *args])
    try:
        proc = subprocess.run(argv, env=connection.env(env), capture_output=True, text=True,
                              timeout=TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HistoryError(f"{what}: {exc}") from None
    if proc.returncode != 0:
        raise HistoryError(f"{what}: {error_line(proc.stderr + proc.stdout)}")
    return proc


def summaries(connection: Connection | None = None,
              env: Mapping[str, str] | None = None) -> list[Summary]:
    """Every build the builder remembers, oldest first."""
    proc = _history(connection or Connection(), ["ls", "--no-trunc", "--format", "json"],
                    env)
    out = [_summary(json.loads(line)) for line in proc.stdout.splitlines() if line.strip()]
    return sorted(out, key=lambda s: s.created_at)


def _summary(raw: dict[str, Any]) -> Summary:
    return Summary(str(raw.get("ref", "")), str(raw.get("name", "")),
                   str(raw.get("status", "")), str(raw.get("created_at", "")),
                   int(raw.get("cached_steps") or 0), int(raw.get("total_steps") or 0))


def builds_named(name: str, connection: Connection | None = None,
                 env: Mapping[str, str] | None = None) -> list[Summary]:
    """The completed builds called ``name``, oldest first."""
    return [s for s in summaries(connection, env) if s.name == name and s.status == COMPLETED]


def record(summary: Summary, connection: Connection | None = None,
           env: Mapping[str, str] | None = None) -> Record:
    """A build's inputs (``history inspect``) and steps (``history logs``)."""
    connection = connection or Connection()
    raw = json.loads(_history(connection, ["inspect", summary.id, "--format", "json"],
                              env).stdout)
    # `history logs` writes the progress stream on stderr, whatever the progress type.
    logs = _history(connection, ["logs", "--progress", "rawjson", summary.id], env)
    config = raw.get("Config") or {}
    return Record(
        summary,
        build_args={str(a["Name"]): str(a.get("Value", "")) for a in raw.get("BuildArgs") or []},
        named_contexts={str(c["Name"]): str(c.get("Value", ""))
                        for c in raw.get("NamedContexts") or []},
        materials=[Material(str(m.get("URI", "")), str(d)) for m in raw.get("Materials") or []
                   for d in (m.get("Digests") or [])[:1]],
        no_cache=bool(config.get("NoCache")),
        steps=buildx_progress.parse_rawjson((logs.stderr + logs.stdout).splitlines()))


def build_ids(metadata: Path) -> dict[str, str]:
    """Target -> history id of each build a ``--metadata-file`` names (none when buildx wrote
    no such file: the bake failed before it)."""
    try:
        raw = json.loads(metadata.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(target): str(entry["buildx.build.ref"]).rsplit("/", 1)[-1]
            for target, entry in raw.items()
            if isinstance(entry, dict) and entry.get("buildx.build.ref")}
