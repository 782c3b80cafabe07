"""`--tier` on inv build, inv push and inv fleet.build (and the CACHE_TIER a lane sets in its
environment): a setting beyond the tier is one line naming the setting and the tier, exit 2,
before anything is built or any node asked; the dry run shows what the tier made of the build.
The tiers' effect on the real stores: tests/e2e/cachestack/test_tiers.py."""

from __future__ import annotations

import pytest

from tests.cli.test_errors import assert_one_line_error
from tests.conftest import run_cli

BUILD = ["inv", "build", "--target", "vllm-gfx950", "--dry-run"]
STORE = ["--set", "CACHE_STORE=webdav", "--set", "CACHE_STORE_URL=http://127.0.0.1:9"]


@pytest.mark.parametrize(("args", "env", "line"), [
    (["--tier", "pr", "--set", "CACHE_EXPORT=true"], {},
     "error: CACHE_EXPORT=true: tier pr may only read the registry layer cache (a pull request "
     "from this repository)"),
    (["--tier", "pr", *STORE, "--set", "CACHE_READ_ONLY=false"], {},
     "error: CACHE_READ_ONLY=false: tier pr may only read the compiler cache's shared store (a "
     "pull request from this repository)"),
    (["--tier", "release", "--set", "CACHE_STORE_URL=http://u:secret@127.0.0.1:9"], {},
     "error: CACHE_STORE_URL=http://****@127.0.0.1:9: tier release may not use the compiler "
     "cache's shared store (a release: nothing it ships comes from a cache)"),
    (["--tier", "fork-pr", *STORE], {},
     "error: CACHE_STORE=webdav, CACHE_STORE_URL=http://127.0.0.1:9: tier fork-pr may not use "
     "the compiler cache's shared store (a pull request from a fork: no credentials exist "
     "there)"),
    (["--tier", "pr", "--set", "vllm-gfx950.cache-to=type=registry,ref=127.0.0.1:5000/x"], {},
     "error: --set vllm-gfx950.cache-to=type=registry,ref=127.0.0.1:5000/x: tier pr may only "
     "read the registry layer cache (a pull request from this repository)"),
    (["--set", "CACHE_EXPORT=true"], {"CACHE_TIER": "pr"},          # the lane's environment
     "error: CACHE_EXPORT=true: tier pr may only read the registry layer cache (a pull request "
     "from this repository)"),
    (["--tier", "nightly"], {},
     "error: unknown tier 'nightly': expected dev, pr, fork-pr, trusted, release"),
])
def test_a_setting_beyond_the_tier_is_one_line(args: list[str], env: dict[str, str],
                                               line: str) -> None:
    result = run_cli([*BUILD, *args], env=env)
    assert assert_one_line_error(result) == line
    assert result.stdout == ""                                   # nothing shown, nothing run


@pytest.mark.parametrize("task", ["push", "fleet.build"])
def test_push_and_the_fleet_refuse_the_same(task: str) -> None:
    args = ["inv", task, "--tier", "release", "--set", "CACHE_EXPORT=true"]
    result = run_cli([*args, "--dry-run"] if task == "push" else args)
    assert_one_line_error(result, "CACHE_EXPORT=true: tier release may not use the registry "
                                  "layer cache")


def test_the_dry_run_shows_what_each_tier_makes_of_the_build() -> None:
    pr = run_cli([*BUILD, "--tier", "pr", *STORE])
    assert pr.returncode == 0, pr.stderr
    assert "CACHE_READ_ONLY=true" in pr.stdout and "CACHE_TIER=pr" in pr.stdout
    assert "'*.cache-to='" in pr.stdout and "cache-from=" not in pr.stdout
    release = run_cli([*BUILD, "--tier", "release"])
    assert release.returncode == 0, release.stderr
    assert "--no-cache" in release.stdout
    assert "'*.cache-to=' --set '*.cache-from='" in release.stdout
    trusted = run_cli([*BUILD, "--tier", "trusted"])
    assert "CACHE_EXPORT=true" in trusted.stdout and "--no-cache" not in trusted.stdout
    dev = run_cli(BUILD)
    assert "CACHE_TIER" not in dev.stdout and "cache-to" not in dev.stdout


@pytest.mark.parametrize("task", ["build", "push", "fleet.build"])
def test_help_names_the_tiers(task: str) -> None:
    result = run_cli(["inv", task, "--help"])
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "--tier" in text and "pr, fork-pr, trusted or release" in text
