"""rocm-bake.hcl itself: the model's --print and --list=variables equal buildx's, for every
group and arch cell, with and without environment overrides."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest

from rocm_bake.model import bakefile
from tests.buildx.oracle import assert_same_error, model, oracle
from tests.conftest import ROOT, Buildx, run_cli

# Every group block of the bake file, read from it (a new component's group is covered
# unasked; a matrix target's implicit group is not a block).
GROUPS = [b.label for b in bakefile.load([ROOT / "rocm-bake.hcl"], {}).namespace.declared.blocks
          if b.type == "group"]
ARCHES = ["gfx950", "gfx1201", "gfx1250", "gfx950,gfx1201,gfx1250"]
OVERRIDES: list[dict[str, str]] = [
    {},
    {"REGISTRY": "127.0.0.1:5000", "MAX_JOBS": "48", "CACHE_EXPORT": "true"},
    {"GPU_ARCHS_JSON": '["gfx1201","gfx950"]', "PYTHON_VERSION": "3.11"},
]


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the bake file and its Dockerfiles, so buildx and the model read the same."""
    shutil.copy(ROOT / "rocm-bake.hcl", tmp_path / "rocm-bake.hcl")
    shutil.copytree(ROOT / "dockerfiles", tmp_path / "dockerfiles")
    return tmp_path


@pytest.mark.buildx
@pytest.mark.parametrize(("group", "archs"), list(itertools.product(GROUPS, ARCHES)))
def test_print_matches_buildx(group: str, archs: str, buildx: Buildx, checkout: Path) -> None:
    args = ["-f", "rocm-bake.hcl", "--print", group]
    env = {"GPU_ARCHS": archs}
    expected = oracle(buildx, args, checkout, env)
    assert expected.ok, expected.error
    assert model(args, checkout, env).data == expected.data


@pytest.mark.buildx
@pytest.mark.parametrize("env", OVERRIDES, ids=["defaults", "env", "json-env"])
def test_overrides_match_buildx(env: dict[str, str], buildx: Buildx, checkout: Path) -> None:
    for args in (["-f", "rocm-bake.hcl", "--print", "all"],
                 ["-f", "rocm-bake.hcl", "--print", "--push", "vllm"],
                 ["-f", "rocm-bake.hcl", "--list=type=variables,format=json"]):
        expected = oracle(buildx, args, checkout, env)
        assert expected.ok, expected.error
        assert model(args, checkout, env).data == expected.data, args


@pytest.mark.buildx
@pytest.mark.parametrize("env", [{"GPU_ARCHS": "gfx90a"}, {"MAX_JOBS": "auto"},
                                 {"CACHE_TYPE": "distcc"}, {"GPU_ARCHS": ""},
                                 # the toolchain's sha256, and its URL out of step with RUST_VERSION
                                 {"RUST_SHA256": "2e0338f1"}, {"RUST_VERSION": "1.96.0"},
                                 # a NIC no .deb is pinned for, an unknown NIC, a .deb of
                                 # another host
                                 {"NIC_BACKEND": "all"}, {"NIC_BACKEND": "mlx5"},
                                 {"NIC_DEBS": f"bnxt {'0' * 64} https://example.com/b.deb"}])
def test_bad_overrides_fail_in_both(env: dict[str, str], buildx: Buildx, checkout: Path) -> None:
    args = ["-f", "rocm-bake.hcl", "--print", "default"]
    expected = oracle(buildx, args, checkout, env)
    got = model(args, checkout, env)
    assert not expected.ok
    assert not got.ok
    name = " ".join(f"{k}={v}" for k, v in env.items())
    assert_same_error(f"rocm-bake/{name}", got, expected)


@pytest.mark.buildx
def test_rust_toolchain_override_matches_buildx(buildx: Buildx, checkout: Path) -> None:
    """RUST_VERSION, RUST_URL and RUST_SHA256 move together into the vllm cells' args."""
    sha = "0" * 64
    env = {"RUST_VERSION": "1.96.0", "RUST_SHA256": sha,
           "RUST_URL": "https://static.rust-lang.org/dist/rust-1.96.0-x86_64-unknown-linux-gnu.tar.xz"}
    args = ["-f", "rocm-bake.hcl", "--print", "vllm"]
    expected = oracle(buildx, args, checkout, env)
    assert expected.ok, expected.error
    assert model(args, checkout, env).data == expected.data
    vllm_args = expected.data["target"]["vllm-gfx950"]["args"]
    assert (vllm_args["RUST_VERSION"], vllm_args["RUST_URL"], vllm_args["RUST_SHA256"]) == (
        "1.96.0", env["RUST_URL"], sha)


@pytest.mark.buildx
def test_nic_debs_override_matches_buildx(buildx: Buildx, checkout: Path) -> None:
    """NIC_BACKEND with the .debs it needs (NIC_DEBS, a list: comma-separated in the
    environment) reaches the vllm cells' args, the .debs joined by ';'."""
    debs = [f"ainic {'a' * 64} https://repo.radeon.com/amdainic/pensando/ubuntu/1.117.3-hydra/"
            "pool/main/libionic1_1_amd64.deb",
            f"bnxt {'b' * 64} https://packages.broadcom.com/artifactory/"
            "ethernet-nic-debian-public/pool/main/bnxt-rocelib_235.2.86.0_amd64.deb"]
    env = {"NIC_BACKEND": "all", "NIC_DEBS": ",".join(debs)}
    args = ["-f", "rocm-bake.hcl", "--print", "vllm"]
    expected = oracle(buildx, args, checkout, env)
    assert expected.ok, expected.error
    assert model(args, checkout, env).data == expected.data
    vllm_args = expected.data["target"]["vllm-gfx950"]["args"]
    assert (vllm_args["NIC_BACKEND"], vllm_args["NIC_DEBS"]) == ("all", ";".join(debs))


@pytest.mark.buildx
def test_inv_print_and_list_vars_equal_buildx(buildx: Buildx, path_without_docker: str) -> None:
    """The task surface prints the model's result unchanged."""
    expected = oracle(buildx, ["-f", "rocm-bake.hcl", "--print", "vllm"], ROOT, {})
    result = run_cli(["inv", "build", "--target", "vllm", "--print"],
                     env={"PATH": path_without_docker})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == expected.data
    expected_vars = oracle(buildx, ["-f", "rocm-bake.hcl", "--list=type=variables,format=json"],
                           ROOT, {})
    listed = run_cli(["inv", "list-vars", "--json"])
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == expected_vars.data
