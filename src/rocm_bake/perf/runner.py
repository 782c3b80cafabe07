"""One measured bake: the library's prepared invocation plus ``--progress=rawjson``, under a
watchdog, with the sccache statistics the build exported and the health of its caches."""

from __future__ import annotations

import dataclasses
import os
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from rocm_bake.builds import request as build
from rocm_bake.compilercache import health as cache_health
from rocm_bake.compilercache import sccache
from rocm_bake.compilercache import settings as cache_settings
from rocm_bake.core.errors import RocmBakeError
from rocm_bake.docker import buildx
from rocm_bake.docker.progress import Step, parse_rawjson
from rocm_bake.model import entitlements
from rocm_bake.perf import fixedcost

DEFAULT_TIMEOUT = 1800.0
STATS_SUBDIR = "compiler-cache"


@dataclass
class BakeRun:
    """What one bake did: wall time, its steps (CACHED or run) and its compiler-cache stats
    (only of compile steps that ran in *this* build: a CACHED step's exported stats are an
    earlier build's)."""

    returncode: int
    seconds: float
    steps: list[Step]
    stats: list[cache_health.CacheStats]
    log: Path
    settings: dict[str, str] = field(default_factory=dict)
    archs: list[str] = field(default_factory=list)      # the bake file's GPU_ARCHS, as built
    # The bake client's start and end on the wall clock BuildKit's vertex times use.
    started_at: datetime | None = None
    ended_at: datetime | None = None

    @property
    def run_steps(self) -> list[Step]:
        return [s for s in self.steps if s.is_run]

    @property
    def all_cached(self) -> bool:
        return all(s.cached for s in self.run_steps)

    @property
    def hit_rate(self) -> float | None:
        return cache_health.total(self.stats).hit_rate if self.stats else None

    def step(self, text: str) -> Step:
        """The RUN step whose name contains ``text``."""
        found = [s for s in self.run_steps if text in s.name]
        if not found:
            raise RocmBakeError(f"no RUN step containing {text!r} in {self.log}")
        return found[0]

    @property
    def fixed(self) -> fixedcost.FixedCost | None:
        """The wall time cut into parts: the RUN steps that ran and the fixed cost."""
        if self.started_at is None or self.ended_at is None:
            return None
        return fixedcost.breakdown(self.steps, self.started_at, self.ended_at)

    def summary(self, label: str) -> str:
        return cache_health.summary_line(label, self.steps, self.stats)

    def warnings(self, rebuild: bool) -> list[str]:
        read_only = sccache.is_read_only(self.settings)
        return [w for s in self.stats
                for w in cache_health.health_warnings(s, read_only=read_only, rebuild=rebuild)]


def _stats_ran(dist: Path, steps: Sequence[Step]) -> list[cache_health.CacheStats]:
    """Statistics of the compile steps that ran (COMPILER_CACHE_STATS_NAME=<name> in the step)."""
    directory = next((p for p in (dist / STATS_SUBDIR, *dist.glob(f"*/{STATS_SUBDIR}"))
                      if p.is_dir()), None)
    if directory is None:
        return []
    ran = [s.name for s in steps if s.is_run and not s.cached]
    return [st for st in cache_health.load_stats(directory)
            if any(f"COMPILER_CACHE_STATS_NAME={st.name} " in name for name in ran)]


def bake(request: build.BuildRequest, cwd: Path, workdir: Path, dist: Path,
         env: Mapping[str, str] | None = None, timeout: float = DEFAULT_TIMEOUT,
         preflight: bool = True) -> BakeRun:
    """Bake ``request`` in ``cwd`` (the bake file's directory) with rawjson progress into
    ``workdir``; ``dist`` is where the build exports (emptied first). With ``preflight`` the
    sccache backend of CACHE_SECRET_FILE is checked before the build."""
    base_env = dict(os.environ if env is None else env)
    here = Path.cwd()
    os.chdir(cwd)
    try:
        prepared = build.prepare(request, base_env)
        grants = entitlements.for_plan(prepared.plan, cwd, [dist.parent])
    finally:
        os.chdir(here)
    full_env = {**base_env, **prepared.invocation.env}
    settings = cache_settings.build_settings(prepared.definition)
    if preflight:
        cache_settings.preflight_build(prepared.definition)
    if dist.exists():
        shutil.rmtree(dist)
    command = prepared.command
    argv = dataclasses.replace(command, progress="rawjson",
                               allow=[*command.allow, *grants]).argv()
    workdir.mkdir(parents=True, exist_ok=True)
    log = workdir / f"bake-{time.strftime('%Y%m%dT%H%M%S')}-{time.monotonic_ns()}.jsonl"
    started, started_at = time.monotonic(), datetime.now(UTC)
    with log.open("w") as handle:
        rc = buildx.run_with_watchdog(argv, full_env, timeout, stdout=handle, stderr=handle,
                                      cwd=cwd)
    seconds, ended_at = time.monotonic() - started, datetime.now(UTC)
    steps = parse_rawjson(log.read_text(errors="replace").splitlines())
    stats = (cache_health.stats_from_steps(steps) or _stats_ran(dist, steps)) if rc == 0 else []
    return BakeRun(rc, seconds, steps, stats, log, dict(settings or {}),
                   build.cell_archs(prepared.definition), started_at, ended_at)
