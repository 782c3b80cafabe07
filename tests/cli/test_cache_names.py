"""The tool-neutral cache names (CACHE_STORE, CACHE_STORE_URL, CACHE_SECRET_FILE; the store's
credentials CACHE_STORE_USER, CACHE_STORE_PASSWORD, CACHE_STORE_TOKEN) drive ccache
and sccache alike; their deprecated sccache-named aliases still work, set by --set or the
environment, with a warning of inv build and inv lint naming the new name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocm_bake.builds import request as build
from rocm_bake.compilercache import settings as cache_settings
from tests.conftest import ROOT, Buildx, run_cli

URL = "http://127.0.0.1:9/"
NEW = {"store": "CACHE_STORE", "url": "CACHE_STORE_URL", "secret": "CACHE_SECRET_FILE"}
OLD = {"store": "SCCACHE_BACKEND", "url": "SCCACHE_WEBDAV_URL", "secret": "SCCACHE_SECRET_FILE"}
WARNING = "warning: {old} is deprecated: use {new} (the old name is still read, for one release)"


def _secret_text(prepared: build.PreparedBuild) -> str:
    target = prepared.plan.targets["torch-gfx950"]
    secrets = target.get("secret")
    assert isinstance(secrets, list) and len(secrets) == 1, secrets
    assert secrets[0]["id"] == "sccache"
    return Path(secrets[0]["src"]).read_text()


@pytest.mark.parametrize("names", [NEW, OLD], ids=["new", "old"])
@pytest.mark.parametrize("how", ["set", "env"])
@pytest.mark.parametrize("tool", ["ccache", "sccache"])
def test_the_names_drive_both_tools(names: dict[str, str], how: str, tool: str,
                                    tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    values = {names["store"]: "webdav", names["url"]: URL}
    env = {"PATH": "/usr/bin", **(values if how == "env" else {})}
    sets = [f"CACHE_TYPE={tool}", *(f"{k}={v}" for k, v in values.items() if how == "set")]
    prepared = build.prepare(build.BuildRequest(targets=["torch-gfx950"], sets=sets), env)
    assert prepared.store is not None and prepared.store.endpoint == URL
    text = _secret_text(prepared)
    if tool == "ccache":
        assert text.startswith("CCACHE_REMOTE_STORAGE=http://127.0.0.1:9/dev/linux/"), text
    else:
        assert "SCCACHE_WEBDAV_ENDPOINT=http://127.0.0.1:9\n" in text, text
    # The secret inv build wrote is passed by the new name.
    assert Path(prepared.invocation.env["CACHE_SECRET_FILE"]).read_text() == text
    warnings = cache_settings.definition_deprecations(prepared.definition)
    assert len(warnings) == (2 if names is OLD else 0), warnings


def test_an_old_secret_file_name_reaches_buildx_as_the_new_one(buildx: Buildx,
                                                              tmp_path: Path) -> None:
    """buildx (the oracle) gives CACHE_SECRET_FILE the deprecated SCCACHE_SECRET_FILE's value,
    as the bake model does: a plain `docker buildx bake` with the old name still mounts it."""
    secret = tmp_path / "s.secret"
    secret.write_text("CCACHE_REMOTE_STORAGE=http://127.0.0.1:9/x\n")
    env = {"SCCACHE_SECRET_FILE": str(secret)}
    result = buildx.bake(["--file", "rocm-bake.hcl", "--print", "torch-gfx950"], cwd=ROOT,
                         env=env)
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)["target"]["torch-gfx950"]["secret"]
    assert printed == [{"id": "sccache", "src": str(secret)}]
    from rocm_bake.model import bakefile  # noqa: PLC0415

    plan = bakefile.load([ROOT / "rocm-bake.hcl"], env).plan(["torch-gfx950"])
    assert plan.targets["torch-gfx950"].get("secret") == printed


@pytest.mark.parametrize("how", ["set", "env"])
def test_inv_build_warns_naming_the_new_name(how: str) -> None:
    values = {"SCCACHE_BACKEND": "webdav", "SCCACHE_WEBDAV_URL": URL}
    sets = [a for k, v in values.items() for a in ("--set", f"{k}={v}")] if how == "set" else []
    result = run_cli(["inv", "build", "--target", "torch-gfx950", "--dry-run", *sets],
                     env=values if how == "env" else None)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert WARNING.format(old="SCCACHE_BACKEND", new="CACHE_STORE") in lines, result.stderr
    assert WARNING.format(old="SCCACHE_WEBDAV_URL", new="CACHE_STORE_URL") in lines
    assert "CACHE_SECRET_FILE=" in result.stdout                  # the secret, by its new name
    new = run_cli(["inv", "build", "--target", "torch-gfx950", "--dry-run",
                   "--set", "CACHE_STORE=webdav", "--set", f"CACHE_STORE_URL={URL}"])
    assert new.returncode == 0 and "deprecated" not in new.stderr, new.stderr


def test_an_old_name_beside_its_new_one_is_one_line() -> None:
    result = run_cli(["inv", "build", "--target", "torch-gfx950", "--dry-run",
                      "--set", "CACHE_STORE=webdav", "--set", f"CACHE_STORE_URL={URL}",
                      "--set", "SCCACHE_WEBDAV_URL=http://127.0.0.1:10/"])
    assert result.returncode == 2
    assert result.stderr == ("error: SCCACHE_WEBDAV_URL (deprecated) and CACHE_STORE_URL are "
                             "both set, to different values: set only CACHE_STORE_URL\n")


def test_inv_lint_warns_naming_the_new_name() -> None:
    result = run_cli(["inv", "lint", "--only", "caching"],
                     env={"SCCACHE_SECRET_FILE": "/nowhere"})
    assert WARNING.format(old="SCCACHE_SECRET_FILE", new="CACHE_SECRET_FILE") in \
        result.stderr.splitlines(), result.stderr


def test_inv_build_warns_once_per_old_credential_name_and_prints_none() -> None:
    """The store's credentials by their sccache-named aliases: one warning each, naming the
    new name, and no output holds a credential; by the new names, no warning."""
    sets = ["--set", "CACHE_STORE=webdav", "--set", f"CACHE_STORE_URL={URL}"]
    args = ["inv", "build", "--target", "torch-gfx950", "--dry-run", *sets]
    old = run_cli(args, env={"SCCACHE_WEBDAV_USERNAME": "builder",
                             "SCCACHE_WEBDAV_PASSWORD": "CANARYPASS",
                             "SCCACHE_WEBDAV_TOKEN": "CANARYTOKEN"})
    assert old.returncode == 0, old.stderr
    lines = old.stderr.splitlines()
    for name, renamed in (("USERNAME", "USER"), ("PASSWORD", "PASSWORD"), ("TOKEN", "TOKEN")):
        warning = WARNING.format(old=f"SCCACHE_WEBDAV_{name}", new=f"CACHE_STORE_{renamed}")
        assert lines.count(warning) == 1, old.stderr
    assert "CANARY" not in old.stdout + old.stderr
    new = run_cli(args, env={"CACHE_STORE_USER": "builder", "CACHE_STORE_PASSWORD": "CANARYPASS",
                             "CACHE_STORE_TOKEN": "CANARYTOKEN"})
    assert new.returncode == 0 and "deprecated" not in new.stderr, new.stderr
    assert "CANARY" not in new.stdout + new.stderr
