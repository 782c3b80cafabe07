"""The four caches end to end on the real engine, registry and WebDAV store (nginx), through
the test stack (real HIP: ggml's HIP backend compiled by clang-22 for gfx950): they assert the
statistics the build recorded (CACHED steps, sccache hits per language, writes, PUT
requests) and the archs of its objects, never timings. One cold build (session fixture) is
shared."""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import IO

import pytest

from rocm_bake.archaudit.audit import audit
from rocm_bake.builds import request as build
from rocm_bake.compilercache import health as cache_health
from rocm_bake.compilercache import store as cache_store
from rocm_bake.docker.progress import parse_rawjson
from rocm_bake.model import entitlements
from rocm_bake.perf import runner
from tests.conftest import ROOT, VENV_BIN, run_cli
from tests.e2e.cachestack.conftest import (
    ARCH,
    BAKE_FILE,
    COMPILE_STEP,
    HIP_TUS,
    HOST_TUS,
    STACK,
    TARGET,
    WEBDAV_PORT,
    Stack,
    downloads,
    ggml,
)

pytestmark = pytest.mark.engine




def test_cold_build_fills_both_shared_caches(stack: Stack, cold: runner.BakeRun) -> None:
    assert not cold.step(COMPILE_STEP).cached
    stats = ggml(cold)
    # sccache's own per-language counters: every TU compiled for real, none found.
    assert stats.language("HIP") == cache_health.LanguageStats(hits=0, misses=HIP_TUS), stats
    assert stats.language("C/C++") == cache_health.LanguageStats(hits=0, misses=HOST_TUS), stats
    assert stats.writes == stats.misses == HIP_TUS + HOST_TUS and stats.write_errors == 0, stats
    assert stack.webdav_puts() >= stats.writes
    assert cold.warnings(rebuild=False) == []


def test_cold_build_objects_carry_exactly_the_cells_arch(stack: Stack,
                                                         cold: runner.BakeRun) -> None:
    """GPU_ARCHS reached the compiler: every HIP object holds a gfx950 code object, nothing
    else; the host C/C++ objects hold none."""
    out = stack.work / "cold" / "dist" / "out"
    result = audit([str(out)], [ARCH])
    assert len(result.reports) == HIP_TUS + 1 and result.host_only == HOST_TUS, result
    assert all(report.archs == [ARCH] for report in result.reports), result.reports
    cli = run_cli([str(VENV_BIN / "inv"), "audit-arch", str(out), "--expect", ARCH], cwd=ROOT,
                  timeout=120)
    assert cli.returncode == 0, cli
    wrong = run_cli([str(VENV_BIN / "inv"), "audit-arch", str(out), "--expect", "gfx1201"],
                    cwd=ROOT, timeout=120)
    assert wrong.returncode == 1, wrong


def test_frozen_rebuild_is_all_cached(stack: Stack, cold: runner.BakeRun) -> None:
    run = stack.bake("frozen", f"cold-{stack.uid}")
    assert run.run_steps and run.all_cached, [s.name for s in run.run_steps if not s.cached]
    assert run.stats == []


def test_warm_rebuild_hits_sccache(stack: Stack, cold: runner.BakeRun) -> None:
    """One pin touched: the compile step runs again and sccache serves >= 99 % of its HIP
    compiles (read from the build's own exported statistics), and every host compile."""
    run = stack.bake("warm", f"warm-{stack.uid}", export=False)
    assert not run.step(COMPILE_STEP).cached
    exported = cache_health.load_stats(stack.work / "warm" / "dist" / "compiler-cache")
    stats = next(s for s in exported if s.name == "ggml")
    assert stats == ggml(run)                       # the log line and the exported file agree
    hip = stats.language("HIP")
    assert hip.requests == HIP_TUS and (hip.hit_rate or 0) >= 0.99, stats
    assert stats.language("C/C++").hits == HOST_TUS, stats
    assert run.warnings(rebuild=True) == []
    summary = run.summary("ggml")                   # both compile steps: ggml and the probe
    assert f"HIP {HIP_TUS + 1} hits / 0 misses" in summary, summary
    assert audit([str(stack.work / "warm" / "dist" / "out")], [ARCH]).problems() == []


def test_rebuild_without_hip_hits_warns(stack: Stack, cold: runner.BakeRun) -> None:
    """A rebuild against a cache that never saw these compiles (another sccache namespace:
    a cache not shared) gets 0 HIP hits, and the cache-health check says so."""
    secret = stack.secret("unshared", namespace=f"unshared-{stack.uid}")
    run = stack.bake("unshared", f"unshared-{stack.uid}", export=False, secret=secret)
    stats = ggml(run)
    assert stats.language("HIP").hits == 0 and stats.language("HIP").misses == HIP_TUS, stats
    warnings = run.warnings(rebuild=True)
    assert any("0 HIP hits of 3 HIP compiles" in w and w.startswith("ggml: ")
               for w in warnings), warnings


def test_pull_request_build_writes_nothing(stack: Stack, cold: runner.BakeRun) -> None:
    webdav_before, registry_before = stack.webdav_puts(), stack.registry_puts()
    run = stack.bake("pr", f"pr-{stack.uid}", read_only=True, export=False,
                     probe=str(int(time.time())))
    assert stack.webdav_puts() == webdav_before
    assert stack.registry_puts() == registry_before
    stats = cache_health.total(run.stats)
    assert stats.writes == 0, run.stats
    probe = next(s for s in run.stats if s.name == "probe")
    assert probe.misses == 1 and probe.write_errors >= 1, probe   # a miss, not written
    assert probe.language("HIP").misses == 1, probe
    assert ggml(run).hit_rate == 1.0, ggml(run)                   # reads are served
    assert run.warnings(rebuild=True) == []                        # expected in read-only


def test_hot_rebuild_pulls_layers_and_compiles_nothing(stack: Stack,
                                                       cold: runner.BakeRun) -> None:
    pruned = stack.docker("builder", "prune", "--all", "--force")
    assert pruned.returncode == 0, pruned.stderr
    webdav_gets = _webdav_gets(stack)
    run = stack.bake("hot", f"cold-{stack.uid}", export=False)
    assert run.step(COMPILE_STEP).cached and run.step("STATS_NAME=probe").cached
    ran = [s.name for s in run.run_steps if not s.cached]
    assert all("tar -xzf" in name for name in ran), ran     # at most the source unpacking
    assert run.stats == []
    assert _webdav_gets(stack) == webdav_gets                      # no compile looked up
    names = [s.name for s in run.steps]
    assert any("importing cache manifest" in n and stack.cache_repo in n for n in names)


def _webdav_gets(stack: Stack) -> int:
    path = stack.webdav / "access.log"
    needle = f"GET /cachestack-{stack.uid}/"          # object lookups, not the preflight's
    return sum(1 for line in path.read_text().splitlines()   # .sccache_check
               if needle in line and ".sccache_check" not in line)


def test_unreachable_backend_fails_before_the_build(stack: Stack, tmp_path: Path) -> None:
    secret = stack.secret("dead", endpoint="http://127.0.0.1:9")
    with pytest.raises(cache_store.CacheError) as info:
        stack.bake("dead", f"dead-{stack.uid}", secret=secret)
    message = str(info.value)
    assert "\n" not in message and "127.0.0.1:9" in message and "unusable" in message
    assert not (stack.work / "dead").exists()                      # no build was started
    # The same through the CLI: one line on stderr, exit status 2, no bake.
    result = run_cli([str(VENV_BIN / "inv"), "build", "--file", str(STACK / BAKE_FILE),
                      "--target", TARGET, "--set", f"CACHE_SECRET_FILE={secret}",
                      "--set", "CACHE_TYPE=sccache", "--set", f"DOWNLOADS={downloads()}"],
                     cwd=ROOT, env={"DOCKER_HOST": stack.engine}, timeout=120)
    assert result.returncode == 2, result
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "unusable" in lines[0], result.stderr


def test_killed_bake_leaves_nothing_behind(stack: Stack, cold: runner.BakeRun) -> None:
    """SIGKILL the bake while the compile RUN is running; the next run works and hits."""
    name, pin = "killed", f"killed-{stack.uid}"
    secret = stack.secret(name)
    request = build.BuildRequest(targets=[TARGET], files=[BAKE_FILE],
                                 sets=stack.sets(name, pin, secret, export=True))
    env = {**os.environ, "DOCKER_HOST": stack.engine}
    cwd = Path.cwd()
    os.chdir(STACK)
    try:
        prepared = build.prepare(request, env)
    finally:
        os.chdir(cwd)
    grants = entitlements.for_plan(prepared.plan, STACK, [stack.work / name])
    argv = [*prepared.invocation.argv[:3], "--progress=rawjson",
            *(f"--allow={g}" for g in grants), *prepared.invocation.argv[3:]]
    log = stack.work / "killed.jsonl"
    with log.open("w") as handle, subprocess.Popen(
            argv, cwd=STACK, env={**env, **prepared.invocation.env}, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, errors="replace",
            start_new_session=True) as proc:
        assert proc.stdout is not None
        compiling = _read_until_compiling(proc.stdout, handle)
        assert compiling, f"the bake ended before its compile step ran hipcc ({log})"
        assert proc.poll() is None, "the bake ended before the compile step could be killed"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    _wait_for_the_engine_to_end_its_builds(stack)
    # Nothing half-written: nginx's upload temp directory is empty again.
    leftovers = [p for p in (stack.webdav / "tmp").rglob("*") if p.is_file()]
    assert leftovers == []
    run = stack.bake(name, pin)
    assert not run.step(COMPILE_STEP).cached
    stats = ggml(run)
    assert (stats.hit_rate or 0) >= 0.95, stats
    assert run.warnings(rebuild=True) == []


def _read_until_compiling(progress: IO[str], copy: IO[str]) -> bool:
    """Read the bake's rawjson progress as it comes, copying it to ``copy``, until the compile
    step's log shows hipcc at work (True) or the stream ends (False). Only the lines that name
    the compile step or one of its vertexes are kept and parsed again."""
    mine: list[str] = []
    digests: set[str] = set()
    for line in progress:
        copy.write(line)
        if COMPILE_STEP not in line and not any(digest in line for digest in digests):
            continue
        mine.append(line)
        steps = [s for s in parse_rawjson(mine) if COMPILE_STEP in s.name]
        digests = {s.digest for s in steps}
        if any(s.started and "hipcc" in "".join(s.log) for s in steps):
            return True
    return False


def _wait_for_the_engine_to_end_its_builds(stack: Stack) -> None:
    """Return once the engine runs no build, then once nginx has answered a request.

    ``docker buildx history logs`` follows a running build until BuildKit ends it, and
    BuildKit ends a cancelled RUN only when its container's processes are gone (their
    sockets closed: an upload cut short is an aborted request now). nginx has one worker
    that handles its connections' events in order, so when it answers a request made after
    that, it has dropped every aborted upload and its temp file."""
    running = stack.docker("buildx", "history", "ls", "--filter", "status=running",
                           "--format", "{{.Ref}}")
    assert running.returncode == 0, running.stderr
    for ref in running.stdout.split():
        followed = stack.docker("buildx", "history", "logs", "--progress", "rawjson", ref)
        assert followed.returncode == 0, followed.stderr
    connection = http.client.HTTPConnection("127.0.0.1", WEBDAV_PORT, timeout=60)
    try:
        connection.request("OPTIONS", "/")
        connection.getresponse().read()
    finally:
        connection.close()
