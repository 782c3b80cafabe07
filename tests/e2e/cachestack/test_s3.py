"""sccache's S3 backend for real: the test stack (real HIP) on the real engine, against the
loopback S3 store (moto's server, scripts/s3.sh; its own bucket and access key per session,
authentication on). What is asserted is what sccache's own statistics say (hits, misses,
writes, write errors) and the bucket's objects, never timings."""

from __future__ import annotations

import uuid

import pytest

from rocm_bake.compilercache import health as cache_health
from rocm_bake.compilercache import store as cache_store
from rocm_bake.perf import runner
from tests.conftest import ROOT, VENV_BIN, run_cli
from tests.e2e.cachestack.conftest import (
    BAKE_FILE,
    COMPILE_STEP,
    HIP_TUS,
    HOST_TUS,
    STACK,
    TARGET,
    Stack,
    downloads,
    ggml,
)
from tests.s3store import S3Store

pytestmark = pytest.mark.engine

CHECK = ".sccache_check"      # what sccache writes at start-up to learn it may write
# What the store (or the machine) answers in each case, as the one line says it.
ANSWER = {"wrong secret key": "(SignatureDoesNotMatch: The request signature we calculated",
          "unknown access key": "(InvalidAccessKeyId: The AWS Access Key Id you provided does "
                                "not exist in our records.)",
          "no such bucket": "(NoSuchBucket: The specified bucket does not exist)",
          "unreachable endpoint": "Connection refused"}


def _objects(stack: Stack, s3: S3Store) -> list[str]:
    """This session's cache objects in the bucket (sccache's start-up probe left out)."""
    return [key for key in s3.keys(stack.s3_prefix) if not key.endswith(CHECK)]


@pytest.fixture(scope="module")
def s3_cold(stack: Stack, s3: S3Store) -> runner.BakeRun:
    """A cold sccache build on the S3 store (a pin never built, an empty prefix): it writes."""
    assert _objects(stack, s3) == []
    return stack.bake("s3-cold", f"s3-cold-{stack.uid}", tool="sccache",
                      secret=stack.s3_secret("s3-cold", s3))


def test_cold_build_writes_every_compile_to_the_bucket(stack: Stack, s3: S3Store,
                                                       s3_cold: runner.BakeRun) -> None:
    assert not s3_cold.step(COMPILE_STEP).cached
    stats = ggml(s3_cold)
    assert stats.language("HIP") == cache_health.LanguageStats(hits=0, misses=HIP_TUS), stats
    assert stats.language("C/C++") == cache_health.LanguageStats(hits=0, misses=HOST_TUS), stats
    assert stats.writes == stats.misses == HIP_TUS + HOST_TUS and stats.write_errors == 0, stats
    # Every write is an object under this session's prefix (the probe's compile one more).
    written = cache_health.total(s3_cold.stats).writes
    assert len(_objects(stack, s3)) == written, (_objects(stack, s3), s3_cold.stats)


def test_warm_build_hits_the_bucket(stack: Stack, s3: S3Store, s3_cold: runner.BakeRun) -> None:
    """Another pin: the compile step runs again and every compile is an S3 hit (sccache's
    own counters), nothing new is written."""
    before = _objects(stack, s3)
    run = stack.bake("s3-warm", f"s3-warm-{stack.uid}", export=False, tool="sccache",
                     secret=stack.s3_secret("s3-warm", s3))
    assert not run.step(COMPILE_STEP).cached
    stats = ggml(run)
    assert stats.language("HIP") == cache_health.LanguageStats(hits=HIP_TUS, misses=0), stats
    assert stats.language("C/C++") == cache_health.LanguageStats(hits=HOST_TUS, misses=0), stats
    assert stats.writes == 0 and stats.write_errors == 0, stats
    assert run.warnings(rebuild=True) == []
    assert _objects(stack, s3) == before


def test_pull_request_build_writes_nothing_to_the_bucket(stack: Stack, s3: S3Store,
                                                         s3_cold: runner.BakeRun) -> None:
    """CACHE_READ_ONLY (SCCACHE_S3_RW_MODE=READ_ONLY): hits are served, a miss (the probe,
    a define never compiled) is not written: the bucket's objects are the same after."""
    before = s3.keys()
    run = stack.bake("s3-pr", f"s3-pr-{stack.uid}", read_only=True, export=False,
                     probe=str(uuid.uuid4().int % 10**9 + 1), tool="sccache",
                     secret=stack.s3_secret("s3-pr", s3, read_only=True))
    assert s3.keys() == before
    assert cache_health.total(run.stats).writes == 0, run.stats
    probe = next(s for s in run.stats if s.name == "probe")
    assert probe.language("HIP").misses == 1 and probe.write_errors >= 1, probe
    assert ggml(run).hit_rate == 1.0, ggml(run)
    assert run.warnings(rebuild=True) == []


@pytest.mark.parametrize("case", ["wrong secret key", "unknown access key", "no such bucket",
                                  "unreachable endpoint"])
def test_an_unusable_bucket_fails_before_the_build(case: str, stack: Stack,
                                                   s3: S3Store) -> None:
    """One line naming the bucket, before any build (none is started), never the secret."""
    name = "s3-bad-" + case.replace(" ", "-")
    secret_key = f"CANARY{uuid.uuid4().hex}"
    credentials = {"wrong secret key": {**s3.credentials(), "AWS_SECRET_ACCESS_KEY": secret_key},
                   "unknown access key": {"AWS_ACCESS_KEY_ID": "AKIAUNKNOWN0000000000",
                                          "AWS_SECRET_ACCESS_KEY": secret_key}}.get(case)
    secret = stack.s3_secret(
        name, s3, credentials=credentials,
        endpoint="http://127.0.0.1:9" if case == "unreachable endpoint" else None,
        bucket=f"nosuch-{stack.uid}" if case == "no such bucket" else None)
    with pytest.raises(cache_store.CacheError) as info:
        stack.bake(name, f"{name}-{stack.uid}", tool="sccache", secret=secret)
    message = str(info.value)
    assert "\n" not in message and message.startswith("sccache backend S3 bucket "), message
    assert "is unusable" in message and secret_key not in message, message
    assert ANSWER[case] in message and "request_id" not in message, message
    assert not (stack.work / name).exists()                      # no build was started
    result = run_cli([str(VENV_BIN / "inv"), "build", "--file", str(STACK / BAKE_FILE),
                      "--target", TARGET, "--set", f"CACHE_SECRET_FILE={secret}",
                      "--set", "CACHE_TYPE=sccache", "--set", f"DOWNLOADS={downloads()}"],
                     cwd=ROOT, env={"DOCKER_HOST": stack.engine}, timeout=120)
    assert result.returncode == 2, result
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == [f"error: {message}"], result.stderr
    assert secret_key not in result.stdout + result.stderr
