"""ccache's statistics as with-compiler-cache.sh reports them (no engine): its stats log
counted per language, parsed into the same CacheStats sccache's JSON gives (hits, misses,
writes of the shared store, per language), plus the hits that skipped the preprocessor
(direct); the `cache:` summary line, the health warnings and the perf history record."""

from __future__ import annotations

import json
import socket

import pytest

from rocm_bake.compilercache import health as cache_health
from rocm_bake.compilercache import secret as cache_secret
from rocm_bake.compilercache import settings as cache_settings
from rocm_bake.compilercache import store as cache_store
from rocm_bake.docker.progress import Step
from rocm_bake.perf import history, schema
from tests.drift.webworld import Server, World

# The `rocm-bake-cache-stats ggml ...` lines of the cache test stack's small set (ccache 4.11.2
# of the HIP image, remote storage on the WebDAV store), cold then warm (from an empty local
# cache directory), as `inv perf --set CACHE_TYPE=ccache --set GGML_TU_SET=small` logged them.
COLD = {"ccache": {
    "C/C++": {"local_storage_miss": 2, "remote_storage_read_miss": 4,
              "preprocessed_cache_miss": 2, "local_storage_write": 4, "direct_cache_miss": 2,
              "local_storage_read_miss": 4, "remote_storage_write": 4, "cache_miss": 2,
              "remote_storage_miss": 2},
    "other": {"no_input_file": 3},
    "HIP": {"preprocessed_cache_miss": 3, "local_storage_miss": 3,
            "remote_storage_read_miss": 6, "cache_miss": 3, "local_storage_read_miss": 6,
            "local_storage_write": 6, "direct_cache_miss": 3, "remote_storage_write": 6,
            "remote_storage_miss": 3}}}
WARM = {"ccache": {
    "C/C++": {"local_storage_read_miss": 4, "direct_cache_hit": 2, "remote_storage_read_hit": 4,
              "local_storage_write": 4, "local_storage_miss": 2, "remote_storage_hit": 2},
    "other": {"no_input_file": 3},
    "HIP": {"local_storage_read_miss": 6, "direct_cache_hit": 3, "remote_storage_read_hit": 6,
            "local_storage_write": 6, "local_storage_miss": 3, "remote_storage_hit": 3}}}


def test_cold_and_warm_counters() -> None:
    cold = cache_health.CacheStats.parse("ggml", COLD)
    assert (cold.tool, cold.hits, cold.misses, cold.direct) == ("ccache", 0, 5, 0)
    assert cold.writes == 10 and cold.write_errors == 0     # the remote store's writes
    assert cold.language("HIP") == cache_health.LanguageStats(0, 3)
    assert list(cold.languages) == ["C/C++", "HIP"]          # hipcc's probes are no language
    warm = cache_health.CacheStats.parse("ggml", WARM)
    assert (warm.hits, warm.misses, warm.direct, warm.writes) == (5, 0, 5, 0)
    assert warm.language("HIP") == cache_health.LanguageStats(3, 0, 3)
    assert warm.location == "ccache local + remote storage"
    assert warm.to_json()["tool"] == "ccache" and warm.to_json()["direct"] == 5


def test_the_log_line_and_the_summary() -> None:
    line = f"rocm-bake-cache-stats ggml {json.dumps(WARM)}\n"
    steps = [Step("d", "[ggml build 2/4] RUN make", cached=False, log=[line])]
    stats = cache_health.stats_from_steps(steps)
    assert [s.name for s in stats] == ["ggml"] and stats[0].direct == 5
    summary = cache_health.summary_line("ggml", steps, stats)
    assert summary == ("ggml: 0/1 RUN steps CACHED, ccache 5 hits / 0 misses (100%), 5 direct, "
                       "0 writes; C/C++ 2 hits / 0 misses, HIP 3 hits / 0 misses"), summary


def test_a_remote_that_failed_every_write_warns() -> None:
    broken = {"ccache": {"HIP": {"cache_miss": 3, "remote_storage_error": 3,
                                 "local_storage_write": 6}}}
    stats = cache_health.CacheStats.parse("ggml", broken)
    assert stats.writes == 0 and stats.write_errors == 3
    warnings = cache_health.health_warnings(stats, read_only=False, rebuild=False)
    assert warnings == ["ggml: ccache wrote nothing (3 write errors) in a read-write build: "
                        "the cache silently went read-only"]
    # ccache before 4.6 says "secondary" for "remote".
    old = {"ccache": {"HIP": {"cache_miss": 1, "secondary_storage_write": 2}}}
    assert cache_health.CacheStats.parse("x", old).writes == 2


def test_history_record_keeps_the_direct_hits() -> None:
    warm = cache_health.CacheStats.parse("ggml", WARM)
    record = history.record(run_id="r", repeat=1, condition="warm", target="ggml", seconds=9.0,
                            arch="gfx950", workload=schema.Workload("b.hcl"), steps=[],
                            stats=[warm], commit="c", pins="p", cache_type="ccache")
    assert record["cache_type"] == "ccache"
    assert record["sccache_languages"] == {"C/C++": {"hits": 2, "misses": 0, "direct": 2},
                                           "HIP": {"hits": 3, "misses": 0, "direct": 3}}
    assert record["hip_hit_rate"] == 1.0


def test_ccache_secret_is_the_webdav_store_over_http() -> None:
    backend = cache_store.Store("webdav", environment="ci", endpoint="http://h:8080/",
                                     namespace="perf-1", arch="x86_64")
    assert cache_secret.settings_for(backend, "ccache") == {
        "CCACHE_REMOTE_STORAGE": "http://h:8080/perf-1/ci/linux/x86_64/ccache"}
    with_auth = cache_secret.settings_for(backend, "ccache", {"SCCACHE_WEBDAV_USERNAME": "u",
                                                "SCCACHE_WEBDAV_PASSWORD": "p@ss"})
    assert with_auth["CCACHE_REMOTE_STORAGE"] == \
        "http://u:p%40ss@h:8080/perf-1/ci/linux/x86_64/ccache"
    read_only = cache_store.Store("webdav", endpoint="http://h", read_only=True, arch="a")
    settings = cache_secret.settings_for(read_only, "ccache")
    assert settings["CCACHE_REMOTE_STORAGE"].endswith("/ccache|read-only")
    assert cache_store.is_read_only(settings)
    assert cache_store.describe(with_auth).startswith("ccache HTTP http://")
    assert "p%40ss" not in cache_store.describe(with_auth)
    s3 = cache_store.Store("s3", bucket="b")
    with pytest.raises(cache_store.CacheError,
                       match="CACHE_TYPE=ccache shares its cache only over"):
        cache_secret.settings_for(s3, "ccache")


def test_preflight_needs_an_answer_not_a_collection() -> None:
    """Any HTTP answer will do (a namespace never written is a 404); nothing listening is one
    line naming the store, its credentials masked."""
    world = World()
    with Server(world) as running:
        cache_settings.ccache_preflight(
            {"CCACHE_REMOTE_STORAGE": f"{running.url}/never/written/ccache|read-only"})
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]          # bound, never listening: refused
        with pytest.raises(cache_store.CacheError) as caught:
            cache_settings.ccache_preflight(
                {"CCACHE_REMOTE_STORAGE": f"http://u:secret@127.0.0.1:{port}/x/ccache"}, 5)
    assert "ccache remote storage http://" in str(caught.value)
    assert "secret" not in str(caught.value) and "\n" not in str(caught.value)
