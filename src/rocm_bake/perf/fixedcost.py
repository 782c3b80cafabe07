"""Where a build's time goes outside its RUN steps: the fixed cost of a build.

A bake's wall time is cut into parts along its own timeline (the vertex times BuildKit
reports, as ``--progress=rawjson`` and ``docker buildx history logs`` show them): every moment
goes to the most specific thing running then -- a RUN step that ran, else a cache import or
export, the image export, a context transfer, the definitions, another instruction (COPY,
WORKDIR, FROM) -- or, with nothing running, to the client (before the first vertex: bake
evaluation and session set-up; after the last: the client's own end) or to the gaps between
vertices. The parts add up to the wall time; everything but ``run`` is the build's fixed
cost, paid whatever the compiler cache does.

The cost of a hit is apart: the seconds of the compile steps that ran, over the compiler
cache's hits in them.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from rocm_bake.compilercache import health as cache_health
from rocm_bake.docker.progress import Step

RUN = "run"
# Most specific first: a moment two vertices share goes to the first part in this order.
PARTS = (RUN, "cache import", "cache export", "image export", "context transfer",
         "definitions", "other steps", "between steps", "client")
_CACHE_IMPORT = ("importing cache manifest",)
_CACHE_EXPORT = ("exporting cache", "preparing build cache for export", "writing layer",
                 "writing config", "writing cache manifest")
_IMAGE_EXPORT = ("exporting to ", "exporting layers", "exporting manifest", "exporting config",
                 "exporting attestation", "naming to ", "copying files", "sending tarball",
                 "unpacking to ", "pushing layers", "pushing manifest", "resolving provenance")
_CONTEXT = ("load build context", "load from client", "load .dockerignore")
_DEFINITIONS = ("load build definition", "load metadata for", "load local bake definitions",
                "resolve image config", "[auth]")


def part(step: Step) -> str:
    """Which part of the timeline a vertex's time is."""
    name = step.name
    if step.is_run:
        return "other steps" if step.cached else RUN
    for words, label in ((_CACHE_IMPORT, "cache import"), (_CACHE_EXPORT, "cache export"),
                         (_IMAGE_EXPORT, "image export"), (_CONTEXT, "context transfer"),
                         (_DEFINITIONS, "definitions")):
        if any(w in name for w in words):
            return label
    return "other steps"


@dataclass(frozen=True)
class FixedCost:
    """A build's wall time cut into :data:`PARTS` (seconds each, summing to the wall)."""

    parts: dict[str, float]

    @property
    def wall(self) -> float:
        return sum(self.parts.values())

    @property
    def fixed(self) -> float:
        """Seconds outside the RUN steps that ran."""
        return self.wall - self.parts.get(RUN, 0.0)

    def to_json(self) -> dict[str, float]:
        return {name: round(self.parts.get(name, 0.0), 3) for name in PARTS}

    def line(self) -> str:
        """``fixed 2.31 s: context transfer 1.20, ...`` (the non-zero parts, largest first)."""
        items = sorted(((s, n) for n, s in self.parts.items() if n != RUN and s >= 0.005),
                       reverse=True)
        return (f"fixed {self.fixed:.2f} s of {self.wall:.2f} s: "
                + ", ".join(f"{n} {s:.2f}" for s, n in items))


def breakdown(steps: Sequence[Step], started: datetime, ended: datetime) -> FixedCost:
    """The wall time from ``started`` to ``ended`` (the bake client's own start and end), cut
    into parts by the vertices that ran in it."""
    rank = {name: i for i, name in enumerate(PARTS)}
    spans = [(max(s.started, started), min(s.completed, ended), rank[part(s)])
             for s in steps if s.started is not None and s.completed is not None]
    spans = [(a, b, r) for a, b, r in spans if b > a]
    edges = sorted({started, ended, *(a for a, _, _ in spans), *(b for _, b, _ in spans)})
    first = min((a for a, _, _ in spans), default=ended)
    last = max((b for _, b, _ in spans), default=started)
    parts = dict.fromkeys(PARTS, 0.0)
    for left, right in itertools.pairwise(edges):
        active = [r for a, b, r in spans if a <= left and b >= right]
        if active:
            name = PARTS[min(active)]
        else:
            name = "client" if right <= first or left >= last else "between steps"
        parts[name] += (right - left).total_seconds()
    return FixedCost(parts)


def hit_cost(steps: Sequence[Step], stats: Sequence[cache_health.CacheStats]
             ) -> tuple[float, int] | None:
    """(seconds of the compile steps that ran, compiler-cache hits in them); None without a
    hit. A compile step is found by its ``COMPILER_CACHE_STATS_NAME=<name>``."""
    seconds, hits = 0.0, 0
    for item in stats:
        mark = f"COMPILER_CACHE_STATS_NAME={item.name} "
        ran = [s for s in steps if s.is_run and not s.cached and mark in s.name]
        if ran and item.hits:
            seconds += sum(s.seconds for s in ran)
            hits += item.hits
    return (seconds, hits) if hits else None
