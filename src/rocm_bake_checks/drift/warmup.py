"""The previous run's questions, asked first.

A warm run of the same bake files asks what the last one asked: the same ref listings and
the same HTTP pages. The last run's list of them (the plan, kept in the cache directory) lets
this run put them all in flight before the bake file is even loaded, so loading it and
importing the verdict code overlap the network's round trip. Every answer is still this run's
own; only the order of asking is learnt. A question the bake file no longer needs costs one
request; runs that ask less than everything (``--only``, ``--explain``) or must ask exactly
what they need (``--record``, ``--offline``) neither use nor change the plan. The plan is
kept on disk, so it never holds a URL with credentials: such a URL (user-info in the bake
file) is asked by the check itself, once the bake file has given its credentials again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rocm_bake.core import redact
from rocm_bake_checks.drift.cache import DiskCache


@dataclass
class Plan:
    git: list[str] = field(default_factory=list)              # ref listings (declared URLs)
    http: list[tuple[str, str]] = field(default_factory=list)  # GETs: (declared URL, Accept)


def _key(files: Sequence[Path]) -> str:
    return "plan\0" + "\0".join(str(f.resolve()) for f in files)


def load(cache: DiskCache, files: Sequence[Path]) -> Plan:
    """The plan of the last run of ``files``; an empty plan when there is none."""
    value = cache.get(_key(files))
    if not isinstance(value, dict):
        return Plan()
    git = [u for u in value.get("git", []) if isinstance(u, str)]
    http = [(p[0], p[1]) for p in value.get("http", [])
            if isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)]
    return Plan(git, http)


def save(cache: DiskCache, files: Sequence[Path], plan: Plan) -> None:
    cache.put(_key(files), {
        "git": sorted(u for u in plan.git if not redact.has_credentials(u)),
        "http": [list(p) for p in sorted(plan.http) if not redact.has_credentials(p[0])]})
