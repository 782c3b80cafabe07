"""The four caches end to end on the real engine, registry and WebDAV store (nginx), through
the test stack: they assert the statistics the build recorded (CACHED steps, sccache hits,
writes, PUT requests), never timings. One cold build (session fixture) is shared."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from rocm_bake import build, cache_health, entitlements, sccache
from rocm_bake.buildx_progress import parse_rawjson
from rocm_bake.perf import runner
from tests.conftest import ROOT, VENV_BIN, run_cli
from tests.e2e.cachestack.conftest import (
    BAKE_FILE,
    COMPILE_STEP,
    STACK,
    TARGET,
    Stack,
    downloads,
)

pytestmark = pytest.mark.engine


def lightgbm(run: runner.BakeRun) -> cache_health.CacheStats:
    found = [s for s in run.stats if s.name == "lightgbm"]
    assert found, f"no lightgbm statistics recorded ({run.log})"
    return found[0]


def test_cold_build_fills_both_shared_caches(stack: Stack, cold: runner.BakeRun) -> None:
    assert not cold.step(COMPILE_STEP).cached
    stats = lightgbm(cold)
    assert stats.misses >= 30 and (stats.hit_rate or 0) < 0.05, stats   # (a TU built twice)
    assert stats.writes == stats.misses and stats.write_errors == 0, stats
    assert stack.webdav_puts() >= stats.writes
    assert cold.warnings(rebuild=False) == []


def test_frozen_rebuild_is_all_cached(stack: Stack, cold: runner.BakeRun) -> None:
    run = stack.bake("frozen", f"cold-{stack.uid}")
    assert run.run_steps and run.all_cached, [s.name for s in run.run_steps if not s.cached]
    assert run.stats == []


def test_warm_rebuild_hits_sccache(stack: Stack, cold: runner.BakeRun) -> None:
    run = stack.bake("warm", f"warm-{stack.uid}", export=False)
    assert not run.step(COMPILE_STEP).cached
    stats = lightgbm(run)
    assert stats.hit_rate is not None and stats.hit_rate >= 0.95, stats
    assert stats.misses == 0 or stats.hit_rate >= 0.95
    assert run.warnings(rebuild=True) == []
    assert "sccache" in run.summary("lightgbm") and "hits" in run.summary("lightgbm")


def test_pull_request_build_writes_nothing(stack: Stack, cold: runner.BakeRun) -> None:
    webdav_before, registry_before = stack.webdav_puts(), stack.registry_puts()
    run = stack.bake("pr", f"pr-{stack.uid}", read_only=True, export=False,
                     probe=str(int(time.time())))
    assert stack.webdav_puts() == webdav_before
    assert stack.registry_puts() == registry_before
    stats = cache_health.total(run.stats)
    assert stats.writes == 0, run.stats
    probe = next(s for s in run.stats if s.name == "hip")
    assert probe.misses == 1 and probe.write_errors >= 1, probe   # a miss, not written
    assert lightgbm(run).hit_rate is not None
    assert (lightgbm(run).hit_rate or 0) >= 0.95                  # reads are served
    assert run.warnings(rebuild=True) == []                        # expected in read-only


def test_hot_rebuild_pulls_layers_and_compiles_nothing(stack: Stack,
                                                       cold: runner.BakeRun) -> None:
    pruned = stack.docker("builder", "prune", "--all", "--force")
    assert pruned.returncode == 0, pruned.stderr
    webdav_gets = _webdav_gets(stack)
    run = stack.bake("hot", f"cold-{stack.uid}", export=False)
    assert run.step(COMPILE_STEP).cached and run.step("STATS_NAME=hip").cached
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
    with pytest.raises(sccache.CacheError) as info:
        stack.bake("dead", f"dead-{stack.uid}", secret=secret)
    message = str(info.value)
    assert "\n" not in message and "127.0.0.1:9" in message and "unusable" in message
    assert not (stack.work / "dead").exists()                      # no build was started
    # The same through the CLI: one line on stderr, exit status 2, no bake.
    result = run_cli([str(VENV_BIN / "inv"), "build", "--file", str(STACK / BAKE_FILE),
                      "--target", TARGET, "--set", f"SCCACHE_SECRET_FILE={secret}",
                      "--set", f"DOWNLOADS={downloads()}"],
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
    with log.open("w") as handle:
        proc = subprocess.Popen(argv, cwd=STACK, env={**env, **prepared.invocation.env},
                                stdout=handle, stderr=handle, start_new_session=True)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            steps = parse_rawjson(log.read_text(errors="replace").splitlines())
            compile_ = [s for s in steps if COMPILE_STEP in s.name and s.started and s.log]
            if compile_ and any("Building" in line for line in compile_[0].log):
                break
            time.sleep(0.5)
        assert proc.poll() is None, "the bake ended before the compile step could be killed"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    # Nothing half-written: nginx's upload temp directory is empty again.
    time.sleep(2)
    leftovers = [p for p in (stack.webdav / "tmp").rglob("*") if p.is_file()]
    assert leftovers == []
    run = stack.bake(name, pin)
    assert not run.step(COMPILE_STEP).cached
    stats = lightgbm(run)
    assert (stats.hit_rate or 0) >= 0.95, stats
    assert run.warnings(rebuild=True) == []
