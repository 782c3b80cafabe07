"""The compiler-cache store's credentials have tool-neutral names, CACHE_STORE_USER,
CACHE_STORE_PASSWORD and CACHE_STORE_TOKEN, which drive ccache and sccache alike; the
sccache-named SCCACHE_WEBDAV_USERNAME/PASSWORD/TOKEN still work, deprecated, each use one
warning. What is checked is the secret the build receives (written by builds.request.build_secret,
as run() writes it before the bake), and that no output holds a credential."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

from rocm_bake.builds import request as build
from rocm_bake.compilercache import secret as cache_secret
from rocm_bake.compilercache import settings as cache_settings
from rocm_bake.compilercache.store import CacheError, Store, describe
from tests.conftest import ROOT

URL = "http://127.0.0.1:9/"
PASSWORD = "CANARY-p@ss/w:rd"
TOKEN = "CANARY-token"
NEW = {"user": "CACHE_STORE_USER", "password": "CACHE_STORE_PASSWORD",
       "token": "CACHE_STORE_TOKEN"}
OLD = {"user": "SCCACHE_WEBDAV_USERNAME", "password": "SCCACHE_WEBDAV_PASSWORD",
       "token": "SCCACHE_WEBDAV_TOKEN"}
CREDENTIALS = {"basic": {"user": "builder", "password": PASSWORD}, "token": {"token": TOKEN}}
STORAGE = f"http://127.0.0.1:9/dev/linux/{platform.machine()}/ccache"
# What each tool reads, per kind of credentials.
EXPECTED = {
    ("ccache", "basic"): {"CCACHE_REMOTE_STORAGE": STORAGE.replace(
        "http://", "http://builder:CANARY-p%40ss%2Fw%3Ard@")},
    ("ccache", "token"): {"CCACHE_REMOTE_STORAGE": f"{STORAGE}|bearer-token={TOKEN}"},
    ("sccache", "basic"): {"SCCACHE_WEBDAV_USERNAME": "builder",
                           "SCCACHE_WEBDAV_PASSWORD": PASSWORD},
    ("sccache", "token"): {"SCCACHE_WEBDAV_TOKEN": TOKEN},
}


def _prepared(tool: str, env: dict[str, str], tmp_path: Path,
              monkeypatch: pytest.MonkeyPatch) -> build.PreparedBuild:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    sets = [f"CACHE_TYPE={tool}", "CACHE_STORE=webdav", f"CACHE_STORE_URL={URL}"]
    return build.prepare(build.BuildRequest(targets=["torch-gfx950"], sets=sets),
                         {"PATH": "/usr/bin", **env})


@pytest.mark.parametrize("kind", ["basic", "token"])
@pytest.mark.parametrize("names", [NEW, OLD], ids=["new", "old"])
@pytest.mark.parametrize("tool", ["ccache", "sccache"])
def test_both_tools_receive_the_credentials(tool: str, names: dict[str, str], kind: str,
                                            tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    env = {names[k]: v for k, v in CREDENTIALS[kind].items()}
    prepared = _prepared(tool, env, tmp_path, monkeypatch)
    written = Path(prepared.invocation.env["CACHE_SECRET_FILE"])
    assert TOKEN not in written.read_text() and PASSWORD not in written.read_text()
    secret = build.build_secret(prepared, {"PATH": "/usr/bin", **env})
    assert secret == written and secret.stat().st_mode & 0o777 == 0o600
    settings = cache_secret.read_secret(secret)
    expected = EXPECTED[tool, kind]
    assert {k: settings[k] for k in expected if k in settings} == expected, settings
    if tool == "ccache":
        assert not any(k.startswith("SCCACHE_") for k in settings), settings
    # The old names warn, one line each, naming the new name; the new names do not.
    warnings = cache_settings.definition_deprecations(prepared.definition)
    assert warnings == ([f"{names[k]} is deprecated: use {NEW[k]} (the old name is still "
                         "read, for one release)" for k in OLD if k in CREDENTIALS[kind]]
                        if names is OLD else []), warnings
    shown = prepared.invocation.display() + describe(settings) + "".join(warnings)
    assert PASSWORD not in shown and TOKEN not in shown and "CANARY" not in shown


def test_a_new_name_wins_and_an_old_one_beside_it_to_another_value_is_one_line() -> None:
    env = {"CACHE_STORE_PASSWORD": "new", "SCCACHE_WEBDAV_PASSWORD": "new",
           "SCCACHE_WEBDAV_USERNAME": "old-user"}
    assert cache_secret.credentials(env) == {"CACHE_STORE_PASSWORD": "new",
                                             "CACHE_STORE_USER": "old-user"}
    with pytest.raises(CacheError) as raised:
        cache_settings.deprecations({"CACHE_STORE_TOKEN": "CANARY-a",
                                     "SCCACHE_WEBDAV_TOKEN": "CANARY-b"})
    assert str(raised.value) == ("SCCACHE_WEBDAV_TOKEN (deprecated) and CACHE_STORE_TOKEN are "
                                 "both set, to different values: set only CACHE_STORE_TOKEN")


def test_a_credential_alias_warns_whatever_the_bake_file_declares() -> None:
    """Credentials are read from the environment, never declared by a bake file: their aliases
    warn even where a bake variable's alias would not (another bake file's own variable)."""
    assert cache_settings.deprecations({"SCCACHE_WEBDAV_USERNAME": "u",
                                        "SCCACHE_BACKEND": "webdav"}, {"CACHE_TYPE"}) == [
        "SCCACHE_WEBDAV_USERNAME is deprecated: use CACHE_STORE_USER (the old name is still "
        "read, for one release)"]


def test_the_secret_of_an_s3_store_keeps_aws_names() -> None:
    store = Store("s3", bucket="b", arch="x86_64")
    settings = cache_secret.settings_for(store, "sccache", {"AWS_ACCESS_KEY_ID": "AKIA",
                                                            "AWS_SECRET_ACCESS_KEY": "CANARY"})
    assert settings["AWS_ACCESS_KEY_ID"] == "AKIA"
    assert settings["AWS_SECRET_ACCESS_KEY"] == "CANARY"
    assert "CANARY" not in describe(settings)
