"""sccache without an engine: backend settings, the secret, the preflight against a real sccache
server."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from rocm_bake.compilercache import sccache
from rocm_bake.compilercache import secret as cache_secret
from rocm_bake.compilercache import store as cache_store

SCCACHE = str(Path(sys.executable).parent / "sccache")   # the pinned PyPI wheel's


def test_webdav_settings_per_environment_and_read_only() -> None:
    backend = cache_store.Store("webdav", environment="nightly",
                                     endpoint="http://dav.example:8080/", arch="x86_64")
    assert sccache.settings(backend) == {"SCCACHE_WEBDAV_ENDPOINT": "http://dav.example:8080",
                                  "SCCACHE_WEBDAV_KEY_PREFIX": "nightly/linux/x86_64",
                                  "SCCACHE_WEBDAV_RW_MODE": "READ_WRITE"}
    pr = cache_store.Store("webdav", environment="ci", endpoint="http://d", read_only=True,
                                arch="x86_64")
    assert sccache.settings(pr)["SCCACHE_WEBDAV_RW_MODE"] == "READ_ONLY"
    assert cache_store.is_read_only(sccache.settings(pr))


def test_s3_settings_bucket_per_environment() -> None:
    backend = cache_store.Store("s3", environment="prerelease", bucket="rocm-bake-sccache",
                                     region="us-east-2", endpoint="http://127.0.0.1:9000",
                                     arch="aarch64", read_only=True)
    assert sccache.settings(backend) == {"SCCACHE_BUCKET": "rocm-bake-sccache-prerelease",
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
    with pytest.raises(cache_store.CacheError):
        cache_store.Store(**kwargs)  # type: ignore[arg-type]


def test_secret_carries_settings_and_credentials_only(tmp_path: Path) -> None:
    backend = cache_store.Store("s3", bucket="b", arch="x86_64")
    path = cache_secret.write_secret(tmp_path / "s", backend, {"AWS_ACCESS_KEY_ID": "AKIA",
                                                          "AWS_SECRET_ACCESS_KEY": "x"},
                                     tool="sccache")
    assert path.stat().st_mode & 0o777 == 0o600
    settings = cache_secret.read_secret(path)
    assert settings["SCCACHE_BUCKET"] == "b-dev" and settings["AWS_ACCESS_KEY_ID"] == "AKIA"
    with pytest.raises(cache_store.CacheError, match="only SCCACHE_"):
        cache_secret.secret_text({"PATH": "/x"})
    (tmp_path / "bad").write_text("LD_PRELOAD=/x.so\n")
    with pytest.raises(cache_store.CacheError, match="bad:1"):
        cache_secret.read_secret(tmp_path / "bad")


def test_preflight_unreachable_webdav_is_one_line() -> None:
    with socket.socket() as sock:      # bound, not listening: refused, and no one can take it
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        settings = sccache.settings(cache_store.Store("webdav",
                                                      endpoint=f"http://127.0.0.1:{port}"))
        with pytest.raises(cache_store.CacheError) as info:
            sccache.preflight(settings, timeout=600, sccache=SCCACHE)
    message = str(info.value)   # sccache's own answer, not a time limit of the preflight
    assert "\n" not in message and f"127.0.0.1:{port}" in message
    assert "Connection refused" in message, message


def test_preflight_hanging_backend_times_out() -> None:
    with socket.socket() as sock:                      # accepts TCP, never answers
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        port = sock.getsockname()[1]
        settings = {"SCCACHE_WEBDAV_ENDPOINT": f"http://127.0.0.1:{port}"}
        with pytest.raises(cache_store.CacheError) as info:
            sccache.preflight(settings, timeout=3, sccache=SCCACHE)
    message = str(info.value)
    assert "\n" not in message
    # One of the preflight's two limits fired (sccache's start-up timeout, or the run's own
    # a few seconds later: which one first is up to the machine's load).
    assert (message.endswith("did not answer within 3 s (preflight)")
            or message.endswith("is unusable: Timed out waiting for server startup")), message


def test_preflight_local_disk_passes() -> None:
    sccache.preflight({}, timeout=600, sccache=SCCACHE)


# sccache 0.16's stderr when an S3 store refuses its start-up read (moto's answer to a wrong
# secret key, recorded from tests/e2e/cachestack/test_s3.py's store; its first lines).
S3_REFUSED = (
    "sccache: error: Server startup failed: cache storage failed to read: PermissionDenied "
    '(permanent) at read => S3Error { code: "SignatureDoesNotMatch", message: "The request '
    'signature we calculated does not match the signature you provided. Check your key and '
    'signing method.", resource: "", request_id: "GfmkqYJ42TKHd" }\n\nContext:\n   uri: '
    "http://127.0.0.1:9000/b-ci/linux/x86_64/.sccache_check\n")


def test_an_s3_refusal_is_its_code_and_message() -> None:
    assert sccache._error_line(S3_REFUSED) == (
        "Server startup failed: cache storage failed to read: PermissionDenied (permanent) at "
        "read (SignatureDoesNotMatch: The request signature we calculated does not match the "
        "signature you provided. Check your key and signing method.)")
