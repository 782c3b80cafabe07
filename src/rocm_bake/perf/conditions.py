"""``inv perf``: prepare each cache condition for real, bake, measure, append to the history.

Per repeat, on a builder of its own engine (DOCKER_HOST):

- **cold** — BuildKit's local cache pruned (``docker builder prune --all``), a registry cache
  repository never written (its refs are empty), a compiler-cache namespace never written on
  the WebDAV store (empty; sccache's objects, or ccache's HTTP remote storage with
  ``--set CACHE_TYPE=ccache``), a pin never built; the build writes both shared caches;
- **frozen** — the same build again: nothing changed;
- **warm** — the pin variable touched (a new value): the compile layers are invalidated,
  the compiler cache's shared store is populated (its local level is not: each compile step
  starts with an empty one, as on another machine);
- **hot** — the local layer cache pruned again, the registry cache (written by the cold build)
  available: layers are pulled, nothing is compiled.

The stats are the build's own: CACHED steps from ``--progress=rawjson``, the compiler cache's
statistics from the files with-compiler-cache.sh exports, registry bytes from the registry's
log.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rocm_bake.builds import commit
from rocm_bake.builds import request as build
from rocm_bake.compilercache import secret as cache_secret
from rocm_bake.compilercache import settings as cache_settings
from rocm_bake.compilercache import store as cache_store
from rocm_bake.core.errors import RocmBakeError, UsageError
from rocm_bake.docker import engineinfo, preflight
from rocm_bake.perf import history, runner, schema

ORDER = ("cold", "frozen", "warm", "hot")
STACK_DIR = Path("tests") / "e2e" / "cachestack"


@dataclass
class PerfSetup:
    """What ``inv perf`` measures and where the shared caches are."""

    root: Path
    bake_dir: Path = field(default_factory=lambda: STACK_DIR)
    files: list[str] = field(default_factory=lambda: ["docker-bake.hcl"])
    target: str = "ggml"
    pin_variable: str = "GGML_PIN"
    sets: list[str] = field(default_factory=list)
    webdav: str = "http://127.0.0.1:8080"
    environment: str = "dev"
    cache_repo: str = "127.0.0.1:5000/rocm-bake-perf/buildcache"
    registry_log: Path | None = None
    registry_root: Path | None = None
    workdir: Path = field(default_factory=lambda: Path("perf") / "runs")
    history: Path = field(default_factory=lambda: history.PATH)
    timeout: float = runner.DEFAULT_TIMEOUT


def cache_type(sets: Sequence[str]) -> str:
    """The CACHE_TYPE a perf run's ``--set`` values ask for (the last one), else
    rocm-bake.hcl's default (the cache test stack's too: tests/caches/test_perf.py)."""
    found = [s.split("=", 1)[1] for s in sets if s.startswith("CACHE_TYPE=")]
    return found[-1] if found else cache_settings.default_cache_type()


def parse_conditions(text: str) -> list[str]:
    wanted = [c.strip() for c in text.split(",") if c.strip()]
    bad = [c for c in wanted if c not in ORDER]
    if bad or not wanted:
        raise UsageError(f"--conditions: expected a comma-separated subset of "
                         f"{','.join(ORDER)}, got {text!r}")
    return [c for c in ORDER if c in wanted]


_WRITTEN = re.compile(r"http\.response\.written=(\d+)")
_DIGEST = re.compile(r"digest=sha256%3A([0-9a-f]{64})")


def registry_traffic(log: Path | None, offset: int, repo: str,
                     storage: Path | None) -> tuple[int, int]:
    """(bytes pulled, bytes pushed) of one repository since ``offset`` in the registry's log:
    GET blob responses' sizes, and the stored size of every blob PUT."""
    if log is None or not log.is_file():
        return 0, 0
    with log.open("rb") as handle:
        handle.seek(offset)
        text = handle.read().decode("utf-8", "replace")
    path = repo.split("/", 1)[1] if "/" in repo else repo
    pulled = pushed = 0
    for line in text.splitlines():
        if f"/v2/{path}/blobs/" not in line:
            continue
        if "http.request.method=GET" in line and (m := _WRITTEN.search(line)):
            pulled += int(m.group(1))
        elif "http.request.method=PUT" in line and storage and (d := _DIGEST.search(line)):
            digest = d.group(1)
            blob = storage / "docker/registry/v2/blobs/sha256" / digest[:2] / digest / "data"
            pushed += blob.stat().st_size if blob.is_file() else 0
    return pulled, pushed


def _size(path: Path | None) -> int:
    return path.stat().st_size if path and path.is_file() else 0


def prune_builder(env: Mapping[str, str]) -> None:
    proc = subprocess.run(["docker", "builder", "prune", "--all", "--force"], env=dict(env),
                          capture_output=True, text=True, timeout=600, check=False)
    if proc.returncode != 0:
        raise RocmBakeError(f"docker builder prune failed: {proc.stderr.strip()[-300:]}")


def measure(setup: PerfSetup, conditions: Sequence[str], repeat: int,
            env: Mapping[str, str] | None = None,
            say: Callable[[str], None] = print) -> list[dict[str, object]]:
    """Run every requested condition ``repeat`` times; append each record to the history as
    soon as it is measured (a report served meanwhile shows the run in flight)."""
    if repeat < 1:
        raise UsageError("--repeat must be at least 1")
    base_env = dict(os.environ if env is None else env)
    base_env.update(preflight.ensure_builder(base_env))   # the engine, as inv build finds it
    engine = engineinfo.engine_version(base_env)
    run_id = uuid.uuid4().hex[:10]
    head = commit.head(setup.root)
    bake_dir = (setup.root / setup.bake_dir).resolve()
    workdir = (setup.root / setup.workdir / run_id).resolve()
    history_path = setup.root / setup.history
    bake_file = ",".join(os.path.relpath(bake_dir / f, setup.root.resolve()) for f in setup.files)
    out: list[dict[str, object]] = []
    tool = cache_type(setup.sets)
    for number in range(1, repeat + 1):
        tag = f"{run_id}-{number}"
        repo = f"{setup.cache_repo.rsplit('/', 1)[0]}-{tag}/{setup.cache_repo.rsplit('/', 1)[1]}"
        backend = cache_store.Store("webdav", environment=setup.environment,
                                        endpoint=setup.webdav, namespace=f"perf-{tag}")
        secret = (cache_secret.write_secret(workdir / f"{tag}.secret", backend, tool=tool)
                  if tool != "none" else None)
        cold_pin = f"perf-{tag}-cold"
        compiled: schema.Units = {}         # what this repeat's cold build compiled

        def bake(condition: str, pin: str, export: bool, number: int = number,
                 repo: str = repo, secret: Path | None = secret,
                 compiled: schema.Units = compiled) -> runner.BakeRun:
            sets = [*setup.sets, f"{setup.pin_variable}={pin}", f"CACHE_REPO={repo}",
                    f"CACHE_EXPORT={str(export).lower()}", f"CACHE_TYPE={tool}",
                    f"CACHE_SECRET_FILE={secret or ''}",
                    f"DIST={workdir / f'{number}-{condition}' / 'dist'}"]
            request = build.BuildRequest(targets=[setup.target], files=list(setup.files),
                                         sets=sets)
            offset = _size(setup.registry_log)
            run = runner.bake(request, bake_dir, workdir / f"{number}-{condition}",
                              workdir / f"{number}-{condition}" / "dist", base_env,
                              setup.timeout)
            if run.returncode != 0:
                raise RocmBakeError(f"the {condition} build failed (exit {run.returncode}); "
                                    f"log: {run.log}")
            pulled, pushed = registry_traffic(setup.registry_log, offset, repo,
                                              setup.registry_root)
            shutil.rmtree(workdir / f"{number}-{condition}" / "dist", ignore_errors=True)
            if condition == "cold":
                compiled.update(history.units(run.stats))
            record = history.record(
                run_id=run_id, repeat=number, condition=condition, target=setup.target,
                seconds=run.seconds, arch=",".join(run.archs),
                workload=schema.Workload(bake_file, dict(compiled)),
                steps=run.steps, stats=run.stats, commit=head,
                pins=history.pins_hash({"pin": pin, "sets": setup.sets}),
                bytes_pulled=pulled, bytes_pushed=pushed, cache_type=tool, fixed=run.fixed,
                engine=engine)
            say(f"[{number}/{repeat}] {condition}: {run.seconds:.1f} s; "
                + run.summary(setup.target).split(": ", 1)[1]
                + f"; registry {pulled} B pulled, {pushed} B pushed")
            if run.fixed is not None:
                say(f"[{number}/{repeat}] {condition}: {run.fixed.line()}")
            for warning in run.warnings(rebuild=condition in ("warm", "hot")):
                say(f"warning: {warning}")
            if condition in conditions:
                history.append(history_path, [record])
                out.append(record)
            return run

        prune_builder(base_env)
        bake("cold", cold_pin, export=True)
        if "frozen" in conditions:
            bake("frozen", cold_pin, export=False)
        if "warm" in conditions:
            bake("warm", f"perf-{tag}-warm", export=False)
        if "hot" in conditions:
            prune_builder(base_env)
            bake("hot", cold_pin, export=False)
    return out
