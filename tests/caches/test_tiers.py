"""The trust tiers (compilercache.tiers): what each may do with the shared caches, the values it
gives the cache variables a build does not set, the one-line refusal of a setting beyond it,
and what rocm-bake.hcl's plan becomes under each (the model, tested against buildx elsewhere)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rocm_bake.builds import request as build
from rocm_bake.compilercache import tiers
from rocm_bake.compilercache.store import CacheError
from rocm_bake.core.errors import UsageError
from rocm_bake.model.bake import blocks, declarations
from tests.caches.definition import Definition
from tests.conftest import ROOT

# The tier table: the compiler cache's store, the registry layer cache, --no-cache.
TABLE = {"dev": ("read-write", "read-write", False), "pr": ("read", "read", False),
         "fork-pr": ("none", "none", False), "trusted": ("read-write", "read-write", False),
         "release": ("none", "none", True)}


def test_each_tier_may_do_exactly_what_the_table_says() -> None:
    assert list(tiers.TIERS) == list(TABLE)
    for name, (store, layers, no_cache) in TABLE.items():
        tier = tiers.named(name)
        assert (tier.store, tier.layers, tier.no_cache) == (store, layers, no_cache), name
    assert tiers.overrides(tiers.named("pr")) == ["*.cache-to="]
    assert tiers.overrides(tiers.named("release")) == ["*.cache-to=", "*.cache-from="]
    assert tiers.overrides(tiers.named("fork-pr")) == ["*.cache-to=", "*.cache-from="]
    assert tiers.overrides(tiers.named("trusted")) == tiers.overrides(tiers.named("dev")) == []
    with pytest.raises(UsageError, match=r"^unknown tier 'nightly': expected dev, pr, fork-pr, "
                       r"trusted, release$"):
        tiers.named("nightly")


def test_the_tier_is_the_flag_else_the_bake_files_else_dev() -> None:
    assert tiers.of(Definition()).name == "dev"
    assert tiers.of(Definition(CACHE_TIER="pr")).name == "pr"
    assert tiers.of(Definition(CACHE_TIER="pr"), "trusted").name == "trusted"


def test_a_tier_gives_only_the_variables_the_build_did_not_set() -> None:
    declared = {"CACHE_EXPORT": False, "CACHE_READ_ONLY": False}
    assert tiers.settings(tiers.named("trusted"), Definition(**declared)) == {
        "CACHE_EXPORT": "true"}
    assert tiers.settings(tiers.named("pr"), Definition(**declared)) == {
        "CACHE_EXPORT": "false", "CACHE_READ_ONLY": "true"}
    # set by the build (--set or the environment): kept, and check() judges it
    assert tiers.settings(tiers.named("trusted"), Definition(
        {"CACHE_EXPORT": "false"}, **declared)) == {}
    # a bake file that declares neither: nothing to give
    assert tiers.settings(tiers.named("pr"), Definition()) == {}
    assert tiers.settings(tiers.named("dev"), Definition(**declared)) == {}


@pytest.mark.parametrize(("tier", "values", "message"), [
    ("pr", {"CACHE_EXPORT": True},
     "CACHE_EXPORT=true: tier pr may only read the registry layer cache"),
    ("pr", {"CACHE_READ_ONLY": False, "env": {"CACHE_READ_ONLY": "false"}},
     "CACHE_READ_ONLY=false: tier pr may only read the compiler cache's shared store"),
    ("fork-pr", {"CACHE_STORE": "webdav", "CACHE_STORE_URL": "http://dav:8080"},
     "CACHE_STORE=webdav, CACHE_STORE_URL=http://dav:8080: tier fork-pr may not use the "
     "compiler cache's shared store"),
    ("release", {"CACHE_STORE": "none", "CACHE_STORE_URL": "http://user:pw@dav:8080"},
     "CACHE_STORE_URL=http://****@dav:8080: tier release may not use the compiler cache's "
     "shared store"),
    ("release", {"SCCACHE_S3_BUCKET": "b"},
     "SCCACHE_S3_BUCKET=b: tier release may not use the compiler cache's shared store"),
    ("release", {"SCCACHE_WEBDAV_URL": "http://dav"},      # a bake file with only the old name
     "CACHE_STORE_URL=http://dav: tier release may not use the compiler cache's shared store"),
    ("release", {"CACHE_EXPORT": True},
     "CACHE_EXPORT=true: tier release may not use the registry layer cache"),
    ("fork-pr", {"CACHE_SECRET_FILE": "/run/s.secret"},
     "CACHE_SECRET_FILE=/run/s.secret: tier fork-pr may not use the compiler cache's shared "
     "store"),
])
def test_a_setting_beyond_the_tier_is_one_line_naming_it_and_the_tier(
        tier: str, values: dict[str, object], message: str) -> None:
    env = values.pop("env", {})
    assert isinstance(env, dict)
    with pytest.raises(CacheError) as raised:
        tiers.check(tiers.named(tier), Definition(env, **values))
    assert str(raised.value).startswith(message + " ("), str(raised.value)
    assert "\n" not in str(raised.value)


def test_within_the_tier_nothing_is_refused() -> None:
    store = {"CACHE_STORE": "webdav", "CACHE_STORE_URL": "http://dav:8080"}
    tiers.check(tiers.named("pr"), Definition(CACHE_READ_ONLY=False, **store))  # the default
    tiers.check(tiers.named("trusted"), Definition(CACHE_EXPORT=True, **store))
    tiers.check(tiers.named("trusted"), Definition({"CACHE_READ_ONLY": "true"},
                                                    CACHE_READ_ONLY=True))   # may only read
    tiers.check(tiers.named("release"), Definition(CACHE_STORE="none", CACHE_EXPORT=False))
    tiers.check(tiers.named("pr"), Definition(), ["app.cache-from=type=registry,ref=r",
                                                   "app.cache-to="])


@pytest.mark.parametrize(("tier", "override"), [
    ("pr", "app.cache-to=type=registry,ref=r"), ("fork-pr", "*.cache-to=type=registry,ref=r"),
    ("release", "app.cache-from=type=registry,ref=r")])
def test_a_target_override_beyond_the_tier_is_refused(tier: str, override: str) -> None:
    with pytest.raises(CacheError, match=rf"^--set {re.escape(override)}: tier {tier} may "):
        tiers.check(tiers.named(tier), Definition(), [override])


def test_a_pull_request_refuses_a_hand_written_secret_that_writes(tmp_path: Path) -> None:
    secret = tmp_path / "s.secret"
    secret.write_text("SCCACHE_WEBDAV_ENDPOINT=http://dav\nSCCACHE_WEBDAV_RW_MODE=READ_WRITE\n")
    with pytest.raises(CacheError, match=rf"^CACHE_SECRET_FILE={secret} \(its settings write "
                       r"the store\): tier pr may only read"):
        tiers.check(tiers.named("pr"), Definition(CACHE_SECRET_FILE=str(secret)))
    secret.write_text("CCACHE_REMOTE_STORAGE=http://dav/x|read-only\n")
    tiers.check(tiers.named("pr"), Definition(CACHE_SECRET_FILE=str(secret)))


def _prepare(tier: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
             *sets: str) -> build.PreparedBuild:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    return build.prepare(build.BuildRequest(targets=["vllm-gfx950"], sets=list(sets), tier=tier),
                         {"PATH": "/usr/bin"})


@pytest.mark.parametrize("tier", list(TABLE))
def test_rocm_bake_plan_under_each_tier(tier: str, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every target of the plan (dependencies too) reads and writes the registry layer cache
    only as far as its tier lets it; a release builds with --no-cache; the store's secret is
    read-only for a pull request."""
    prepared = _prepare(tier, tmp_path, monkeypatch,
                        *(["CACHE_STORE=webdav", "CACHE_STORE_URL=http://127.0.0.1:9"]
                          if TABLE[tier][0] != "none" else []))
    _, layers, no_cache = TABLE[tier]
    assert len(prepared.plan.targets) > 1
    for name, target in prepared.plan.targets.items():
        assert bool(target.get("cache-from")) == (layers != "none"), name
        # trusted writes by default (CACHE_EXPORT), dev only when CACHE_EXPORT=true
        assert bool(target.get("cache-to")) == (tier == "trusted"), name
    assert ("--no-cache" in prepared.invocation.argv) == no_cache
    assert prepared.tier.name == tier
    if prepared.store is not None:
        assert prepared.store.read_only == (tier == "pr")
    if tier != "dev":
        assert prepared.invocation.env["CACHE_TIER"] == tier      # the dry run shows it


def test_inv_build_evaluates_the_bake_file_once(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A build with a store, a tier and the secret inv build writes reads the bake file and
    evaluates its targets once (issue 42): the tier's settings and the secret's path are
    decided from the variables, then everything is evaluated with them."""
    calls = {"read": 0, "evaluate": 0}

    def counted(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return real(*args, **kwargs)
        return call

    monkeypatch.setattr(declarations, "read", counted("read", declarations.read))
    monkeypatch.setattr(blocks, "evaluate", counted("evaluate", blocks.evaluate))
    prepared = _prepare("trusted", tmp_path, monkeypatch, "CACHE_STORE=webdav",
                        "CACHE_STORE_URL=http://127.0.0.1:9")
    assert calls == {"read": 1, "evaluate": 1}
    # Every addition reached the one evaluation: the tier's, and the secret's path.
    secret = prepared.invocation.env["CACHE_SECRET_FILE"]
    assert prepared.invocation.env["CACHE_TIER"] == "trusted"
    assert prepared.definition.value("CACHE_SECRET_FILE") == secret
    assert Path(secret).parent == tmp_path and Path(secret).is_file()
    target = prepared.plan.targets["vllm-gfx950"]
    assert target.get("cache-to")                                   # CACHE_EXPORT=true
    assert [s["src"] for s in target.get("secret") or []] == [secret]


def test_an_unknown_target_is_said_before_the_tier_and_writes_no_secret(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tier and the secret are decided before the targets are evaluated, yet an unknown
    target is still the error said (as when the files were evaluated at each step), and the
    store's secret is not written for a build that cannot start."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    store = ["CACHE_STORE=webdav", "CACHE_STORE_URL=http://127.0.0.1:9"]
    for tier in ("release", "dev", "nightly"):
        with pytest.raises(UsageError, match=r"^unknown target 'nope'; valid targets"):
            build.prepare(build.BuildRequest(targets=["nope"], sets=store, tier=tier),
                          {"PATH": "/usr/bin"})
    assert list(tmp_path.iterdir()) == []


def test_the_environments_cache_tier_names_the_tier(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A lane names its tier once, in its environment: CACHE_TIER is a bake variable."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    prepared = build.prepare(build.BuildRequest(targets=["vllm-gfx950"]),
                             {"PATH": "/usr/bin", "CACHE_TIER": "pr"})
    assert prepared.tier.name == "pr"
    assert not prepared.plan.targets["vllm-gfx950"].get("cache-to")
    with pytest.raises(CacheError, match=r"^CACHE_EXPORT=true: tier pr may only read"):
        build.prepare(build.BuildRequest(targets=["vllm-gfx950"], sets=["CACHE_EXPORT=true"]),
                      {"PATH": "/usr/bin", "CACHE_TIER": "pr"})


def test_verify_repro_builds_as_a_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """inv verify-repro's builds (twice from no cache, a published image rebuilt, the cache
    cells) read no shared cache: a store named in the environment is refused, not used."""
    from rocm_bake.reproducible import verify  # noqa: PLC0415

    monkeypatch.chdir(ROOT)
    prepared, _ = verify.prepare("vllm-gfx950", ["rocm-bake.hcl"], env={"PATH": "/usr/bin"})
    assert prepared.tier.name == "release" and prepared.store is None
    assert prepared.target_overrides[-2:] == ["*.cache-to=", "*.cache-from="]
    assert all(not t.get("cache-from") for t in prepared.plan.targets.values())
    with pytest.raises(CacheError, match=r"^CACHE_STORE=webdav, CACHE_STORE_URL=http://dav: "
                       r"tier release may not use"):
        verify.prepare("vllm-gfx950", ["rocm-bake.hcl"],
                       env={"PATH": "/usr/bin", "CACHE_STORE": "webdav",
                            "CACHE_STORE_URL": "http://dav"})
