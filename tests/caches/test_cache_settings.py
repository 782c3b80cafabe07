"""The cache settings a build takes from its bake file, and the secret inv build writes from
them."""

from __future__ import annotations

import json
import platform
from pathlib import Path

import pytest

from rocm_bake.compilercache import secret as cache_secret
from rocm_bake.compilercache import settings as cache_settings
from rocm_bake.compilercache import store as cache_store
from tests.caches.definition import Definition


def test_backend_from_bake_variables() -> None:
    assert cache_settings.backend_from_definition(Definition(CACHE_STORE="none")) is None
    assert cache_settings.backend_from_definition(Definition()) is None
    backend = cache_settings.backend_from_definition(Definition(
        CACHE_STORE="webdav", CACHE_STORE_URL="http://dav:8080", CACHE_ENV="ci",
        CACHE_READ_ONLY=True, CACHE_EXPORT=False, CACHE_TYPE="sccache"))
    assert backend is not None and backend.read_only and backend.environment == "ci"
    # The store read-only because the build's tier may only read it (compilercache.tiers).
    forced = cache_settings.backend_from_definition(Definition(
        CACHE_STORE="webdav", CACHE_STORE_URL="http://dav:8080"), read_only=True)
    assert forced is not None and forced.read_only
    with pytest.raises(cache_store.CacheError, match="ccache shares its cache only over HTTP"):
        cache_settings.backend_from_definition(Definition(
            CACHE_STORE="s3", SCCACHE_S3_BUCKET="b", CACHE_TYPE="ccache"))
    with pytest.raises(cache_store.CacheError, match="CACHE_TYPE=none"):
        cache_settings.backend_from_definition(Definition(
            CACHE_STORE="webdav", CACHE_STORE_URL="http://dav", CACHE_TYPE="none"))
    # ccache's HTTP remote storage on the same WebDAV store.
    shared = cache_settings.backend_from_definition(Definition(
        CACHE_STORE="webdav", CACHE_STORE_URL="http://dav:8080", CACHE_TYPE="ccache"))
    assert shared is not None
    assert "CCACHE_REMOTE_STORAGE" in cache_secret.settings_for(shared, "ccache")
    assert cache_secret.credentials({"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "",
                                "HOME": "/"}) == {"AWS_ACCESS_KEY_ID": "a"}


def test_inv_build_turns_backend_variables_into_the_secret(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rocm_bake.builds import request as build  # noqa: PLC0415
    from tests.conftest import ROOT  # noqa: PLC0415

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    request = build.BuildRequest(targets=["torch-gfx950"], sets=[
            "CACHE_STORE=webdav", "CACHE_STORE_URL=http://127.0.0.1:8080", "CACHE_ENV=ci",
        "CACHE_READ_ONLY=true"])
    prepared = build.prepare(request, {"PATH": "/usr/bin", "AWS_SECRET_ACCESS_KEY": "s3cr3t"})
    secret = Path(prepared.invocation.env["CACHE_SECRET_FILE"])
    assert secret.parent == tmp_path and prepared.store is not None
    text = secret.read_text()
    # CACHE_TYPE's default, ccache: its HTTP remote storage on the store, read-only.
    assert text.startswith("CCACHE_REMOTE_STORAGE=http://127.0.0.1:8080/ci/linux/")
    assert text.endswith("/ccache|read-only\n")
    sccache_one = build.prepare(build.BuildRequest(targets=["torch-gfx950"], sets=[
        *request.sets, "CACHE_TYPE=sccache"]), {"PATH": "/usr/bin"})
    text = Path(sccache_one.invocation.env["CACHE_SECRET_FILE"]).read_text()
    assert "SCCACHE_WEBDAV_RW_MODE=READ_ONLY" in text and "ci/linux/" in text
    assert "s3cr3t" not in text                              # credentials only at run time
    assert "s3cr3t" not in prepared.invocation.display()
    target = prepared.plan.targets["torch-gfx950"]
    assert target.get("secret") == [{"id": "sccache", "src": str(secret)}]
    assert "SCCACHE" not in json.dumps(target.get("args"))   # no build arg: no layer changes


def test_a_secret_of_the_other_cache_is_one_line(tmp_path: Path) -> None:
    """CACHE_TYPE=ccache with sccache's settings in the secret (or the other way round) would
    compile with no shared store at all: refused before the build."""
    secret = tmp_path / "s.secret"
    secret.write_text("SCCACHE_WEBDAV_ENDPOINT=http://127.0.0.1:9\n")
    with pytest.raises(cache_store.CacheError, match=r"CACHE_TYPE=ccache, but the secret .* holds "
                       r"the other cache's settings \(SCCACHE_WEBDAV_ENDPOINT\)"):
        cache_settings.preflight_build(Definition(CACHE_TYPE="ccache",
                                                   CACHE_SECRET_FILE=str(secret)))
    secret.write_text("CCACHE_REMOTE_STORAGE=http://127.0.0.1:9/x\n")
    with pytest.raises(cache_store.CacheError, match="CACHE_TYPE=sccache, but"):
        cache_settings.preflight_build(Definition(CACHE_TYPE="sccache",
                                                   CACHE_SECRET_FILE=str(secret)))


def test_a_bake_file_with_only_the_old_names_is_read(tmp_path: Path) -> None:
    """A bake file of one's own that declares only the deprecated sccache-named variables."""
    secret = tmp_path / "s.secret"
    secret.write_text("SCCACHE_WEBDAV_ENDPOINT=http://127.0.0.1:9\n")
    old = Definition(SCCACHE_BACKEND="webdav", SCCACHE_WEBDAV_URL="http://dav:8080",
                      SCCACHE_SECRET_FILE=str(secret), CACHE_TYPE="sccache")
    backend = cache_settings.backend_from_definition(old)
    assert backend is not None and backend.endpoint == "http://dav:8080"
    assert cache_settings.secret_file(old) == str(secret)
    assert cache_settings.secret_variable(old) == "SCCACHE_SECRET_FILE"
    assert cache_settings.secret_variable(Definition(CACHE_SECRET_FILE="")) == \
        "CACHE_SECRET_FILE"


def test_deprecated_names_warn_with_the_new_name() -> None:
    assert cache_settings.deprecations({"SCCACHE_BACKEND": "webdav", "CACHE_STORE": "webdav",
                                        "SCCACHE_SECRET_FILE": "", "HOME": "/"}) == [
        "SCCACHE_BACKEND is deprecated: use CACHE_STORE (the old name is still read, for one "
        "release)"]
    # Only the names the bake file declares: another bake file's variable of that name is its own.
    assert cache_settings.deprecations({"SCCACHE_BACKEND": "webdav"}, {"CACHE_TYPE"}) == []
    with pytest.raises(cache_store.CacheError, match=r"^SCCACHE_WEBDAV_URL \(deprecated\) and "
                       r"CACHE_STORE_URL are both set, to different values: set only "
                       r"CACHE_STORE_URL$"):
        cache_settings.deprecations({"SCCACHE_WEBDAV_URL": "http://a", "CACHE_STORE_URL": "http://b"})


def test_the_default_tool_is_the_bake_files() -> None:
    """One default compiler cache: CACHE_TYPE's default in rocm-bake.hcl, also for a bake file
    that declares no CACHE_TYPE."""
    from rocm_bake.model import bakefile  # noqa: PLC0415
    from tests.conftest import ROOT  # noqa: PLC0415

    default = bakefile.load([ROOT / "rocm-bake.hcl"], {}).value("CACHE_TYPE")
    assert cache_settings.default_cache_type() == default
    assert cache_settings.cache_tool(Definition()) == default
    assert cache_settings.cache_tool(Definition(CACHE_TYPE="sccache")) == "sccache"


def test_an_s3_store_for_a_pull_request_is_read_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CACHE_STORE=s3 with CACHE_READ_ONLY=true (the pull-request mode): the secret inv build
    writes is sccache's S3 backend, READ_ONLY (what tests/e2e/cachestack/test_s3.py builds
    with); the key pair is added only when the build runs."""
    from rocm_bake.builds import request as build  # noqa: PLC0415
    from tests.conftest import ROOT  # noqa: PLC0415

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    prepared = build.prepare(build.BuildRequest(targets=["torch-gfx950"], sets=[
        "CACHE_TYPE=sccache", "CACHE_STORE=s3", "SCCACHE_S3_BUCKET=rocm-bake", "CACHE_ENV=ci",
        "SCCACHE_S3_ENDPOINT=http://127.0.0.1:9000", "SCCACHE_S3_REGION=us-east-1",
        "CACHE_READ_ONLY=true"]), {"PATH": "/usr/bin", "AWS_SECRET_ACCESS_KEY": "s3cr3t"})
    secret = Path(prepared.invocation.env["CACHE_SECRET_FILE"])
    text = secret.read_text()
    assert cache_secret.read_secret(secret) == {
        "SCCACHE_BUCKET": "rocm-bake-ci", "SCCACHE_S3_KEY_PREFIX": f"linux/{platform.machine()}",
        "SCCACHE_S3_RW_MODE": "READ_ONLY", "SCCACHE_REGION": "us-east-1",
        "SCCACHE_ENDPOINT": "http://127.0.0.1:9000", "SCCACHE_S3_USE_SSL": "false"}, text
    assert "s3cr3t" not in text
