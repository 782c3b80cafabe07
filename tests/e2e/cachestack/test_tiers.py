"""The trust tiers on the real stores (compilercache.tiers): `inv build --tier` of the test stack
(real HIP through sccache), each build counted by the stores' own logs -- a WebDAV store of this
module's own (its access.log holds only these builds' requests), the engine's registry
(registry.log, this session's cache repository), moto's S3 server (server.log, this session's
bucket):

- trusted writes both shared caches;
- pr reads them (every compile a hit from the store) and writes neither: no PUT;
- release makes no request at all to either, builds every step anew, and its objects are the
  ones the pull request took from the store, byte for byte: the same digest with and without
  the store, so a release is comparable with the cached nightly;
- release with a store named, or pr with CACHE_EXPORT=true, stops before the build in one
  line: the store sees nothing, not even the preflight."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from rocm_bake.compilercache import health as cache_health
from tests import loopback
from tests.cli.test_errors import assert_one_line_error
from tests.conftest import Result, run_cli
from tests.e2e.cachestack.conftest import (
    ARCH,
    BAKE_FILE,
    ENGINE_DIR,
    REGISTRY,
    STACK,
    TARGET,
    Stack,
    downloads,
)
from tests.s3store import S3Store

pytestmark = pytest.mark.engine

# One HIP and one host translation unit (and the probe's HIP unit): the tiers, not the volume.
TUS = "ggml-cuda/arange.cu ggml-alloc.c"
COMPILES = 3


@dataclass(frozen=True)
class Log:
    """A log file read from where it ended when the mark was taken."""

    path: Path
    offset: int

    @classmethod
    def mark(cls, path: Path) -> Log:
        return cls(path, path.stat().st_size if path.is_file() else 0)

    def lines(self, needle: str = "") -> list[str]:
        if not self.path.is_file():
            return []
        with self.path.open("rb") as handle:
            handle.seek(self.offset)
            text = handle.read().decode(errors="replace")
        return [line for line in text.splitlines() if needle in line]


@dataclass(frozen=True)
class Store:
    """This module's WebDAV store: its port and its own access log."""

    url: str
    run_dir: Path

    @property
    def log(self) -> Path:
        return self.run_dir / "access.log"


@dataclass(frozen=True)
class Built:
    result: Result
    dist: Path
    store: list[str]         # the store's requests during the build
    registry: list[str]      # the registry's requests for this session's cache repository

    def objects(self) -> dict[str, str]:
        """sha256 of every file the compile stage wrote (the exported /out)."""
        out = self.dist / "out"
        return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(out.rglob("*")) if p.is_file()}

    def stats(self) -> cache_health.CacheStats:
        return cache_health.total(cache_health.load_stats(self.dist / "compiler-cache"))


@pytest.fixture(scope="module")
def store(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    run_dir = tmp_path_factory.mktemp("tier-webdav")
    port, env = loopback.start_webdav(run_dir)
    try:
        yield Store(f"http://127.0.0.1:{port}", run_dir)
    finally:
        loopback.stop_webdav(run_dir, env)


def inv_build(stack: Stack, name: str, tier: str, pin: str, *sets: str,
              env: dict[str, str] | None = None) -> tuple[Result, Path]:
    """`inv build --tier TIER` of the test stack's compile target, exported to its own DIST."""
    dist = stack.work / f"tier-{name}" / "dist"
    args = ["inv", "build", "--file", BAKE_FILE, "--target", TARGET, "--tier", tier,
            *(a for s in ["CACHE_TYPE=sccache", f"CACHE_REPO={stack.cache_repo}",
                          f"GGML_PIN={pin}", f"GGML_TUS={TUS}", f"GPU_ARCHS={ARCH}",
                          f"DOWNLOADS={downloads()}", f"DIST={dist}", *sets]
              for a in ("--set", s))]
    return run_cli(args, cwd=STACK, env={"DOCKER_HOST": stack.engine, **(env or {})},
                   timeout=1800), dist


def build(stack: Stack, store: Store, name: str, tier: str, pin: str, *sets: str) -> Built:
    registry_log = ENGINE_DIR / "registry.log"
    marks = Log.mark(store.log), Log.mark(registry_log)
    result, dist = inv_build(stack, name, tier, pin, *sets)
    assert result.returncode == 0, result.stderr[-3000:]
    repository = stack.cache_repo.removeprefix(f"{REGISTRY}/")
    return Built(result, dist, marks[0].lines(), marks[1].lines(f"/v2/{repository}/"))


def _store_sets(store: Store) -> tuple[str, ...]:
    return ("CACHE_STORE=webdav", f"CACHE_STORE_URL={store.url}")


def _method(lines: list[str], method: str) -> list[str]:
    """Requests of one method in nginx's access log, or in the registry's log."""
    return [line for line in lines
            if line.startswith(f"{method} ") or f"http.request.method={method} " in line]


@pytest.fixture(scope="module")
def trusted(stack: Stack, store: Store) -> Built:
    """A trusted build (push, nightly) on an empty store: it fills both shared caches."""
    return build(stack, store, "trusted", "trusted", f"tier-trusted-{stack.uid}",
                 *_store_sets(store))


@pytest.fixture(scope="module")
def pull_request(stack: Stack, store: Store, trusted: Built) -> Built:
    """A pull request's build of another pin (its compile steps run again): every compile
    served by the store the trusted build filled."""
    return build(stack, store, "pr", "pr", f"tier-pr-{stack.uid}", *_store_sets(store))


@pytest.fixture(scope="module")
def release(stack: Stack, store: Store, pull_request: Built) -> Built:
    """A release of the pull request's pin: no shared cache named, every step anew."""
    return build(stack, store, "release", "release", f"tier-pr-{stack.uid}")


def test_a_trusted_build_writes_both_shared_caches(trusted: Built) -> None:
    assert "tier: trusted: compiler cache store read and written, registry layer cache read " \
           "and written" in trusted.result.stderr
    stats = trusted.stats()
    assert stats.writes == stats.misses == COMPILES and stats.hits == 0, stats
    assert len(_method(trusted.store, "PUT")) >= COMPILES, trusted.store
    assert _method(trusted.registry, "PUT"), "no layer cache written"   # CACHE_EXPORT=true


def test_a_pull_request_reads_the_store_and_writes_nothing(pull_request: Built) -> None:
    assert "tier: pr: compiler cache store read only, registry layer cache read only" in \
        pull_request.result.stderr
    stats = pull_request.stats()
    assert stats.hits == COMPILES and stats.misses == 0 and stats.writes == 0, stats
    assert _method(pull_request.store, "GET"), pull_request.store         # it read the store
    assert _method(pull_request.store, "PUT") == [], pull_request.store   # and wrote nothing
    assert _method(pull_request.registry, "GET") or _method(pull_request.registry, "HEAD")
    assert _method(pull_request.registry, "PUT") == [], pull_request.registry


def test_a_release_makes_no_request_to_any_shared_cache(release: Built) -> None:
    assert "tier: release: compiler cache store not used, registry layer cache not used; " \
           "every step run anew (--no-cache)" in release.result.stderr
    assert release.store == [], release.store
    assert release.registry == [], release.registry
    stats = release.stats()
    assert stats.misses == COMPILES and stats.hits == 0, stats          # compiled for real


def test_a_release_is_the_cached_build_byte_for_byte(pull_request: Built,
                                                     release: Built) -> None:
    """The objects a pull request took from the store are the ones the release compiled: the
    same digest with and without the store (what lets a release be checked against the cached
    nightly)."""
    objects = release.objects()
    assert len([name for name in objects if name.endswith(".o")]) == COMPILES, objects
    assert objects == pull_request.objects()


def test_beyond_the_tier_stops_before_the_store_sees_anything(stack: Stack,
                                                              store: Store) -> None:
    before = Log.mark(store.log)
    refused, _ = inv_build(stack, "refused", "release", f"tier-refused-{stack.uid}",
                           *_store_sets(store))
    assert_one_line_error(refused, f"CACHE_STORE=webdav, CACHE_STORE_URL={store.url}: tier "
                                   "release may not use the compiler cache's shared store")
    exported, _ = inv_build(stack, "exported", "pr", f"tier-refused-{stack.uid}",
                            *_store_sets(store), "CACHE_EXPORT=true")
    assert_one_line_error(exported, "CACHE_EXPORT=true: tier pr may only read the registry "
                                    "layer cache")
    assert before.lines() == []                     # not even the preflight's request


def test_a_pull_request_writes_nothing_to_an_s3_bucket(stack: Stack, s3: S3Store) -> None:
    """The same on S3: moto's own log has no PUT into this session's bucket, while the
    build's sccache read it (a miss each: the bucket holds nothing of these compiles)."""
    log = Log.mark(s3.log)
    result, dist = inv_build(stack, "s3-pr", "pr", f"tier-s3-pr-{stack.uid}",
                             "CACHE_STORE=s3", f"CACHE_ENV={s3.environment}",
                             f"SCCACHE_S3_BUCKET={s3.bucket_base}",
                             f"SCCACHE_S3_ENDPOINT={s3.endpoint}", "SCCACHE_S3_REGION=us-east-1",
                             env=s3.credentials())
    assert result.returncode == 0, result.stderr[-3000:]
    requests = log.lines(f" /{s3.bucket}")         # moto colours a 4xx line: no '"GET'
    assert [line for line in requests if f"GET /{s3.bucket}" in line], requests
    assert [line for line in requests if f"PUT /{s3.bucket}" in line] == [], requests
    stats = cache_health.total(cache_health.load_stats(dist / "compiler-cache"))
    assert stats.writes == 0 and stats.misses == COMPILES, stats
