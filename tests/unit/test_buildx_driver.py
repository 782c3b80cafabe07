"""argv construction, version parsing and secret masking of the buildx driver."""

from __future__ import annotations

import pytest
from packaging.version import Version

from rocm_bake import buildx


def test_bake_argv_is_explicit() -> None:
    argv = buildx.bake_argv(["rocm-bake.hcl"], ["vllm"], ["vllm-gfx950.args.X=1"], push=True,
                            allow=["network.host"], metadata_file="m.json")
    assert argv == ["docker", "buildx", "bake", "--file", "rocm-bake.hcl", "--metadata-file",
                    "m.json", "--allow", "network.host", "--set", "vllm-gfx950.args.X=1",
                    "--push", "vllm"]


@pytest.mark.parametrize(("output", "version"), [
    ("github.com/docker/buildx 0.29.1+ds1 0.29.1+ds1-4", "0.29.1"),
    ("github.com/docker/buildx v0.13.1 788433953af10f2a698f5c07611dddce2e08c7a0", "0.13.1"),
])
def test_parse_version(output: str, version: str) -> None:
    assert buildx.parse_version(output) == Version(version)


def test_unreadable_version_is_a_clear_error() -> None:
    with pytest.raises(buildx.PreflightError, match="cannot read the buildx version"):
        buildx.parse_version("no version here")


def test_display_masks_secrets() -> None:
    invocation = buildx.BakeInvocation(["docker", "buildx", "bake"],
                                       {"GITHUB_TOKEN": "ghp_secret", "AWS_ACCESS_KEY_ID": "AKIA",
                                        "MAX_JOBS": "8"})
    shown = invocation.display()
    assert "ghp_secret" not in shown and "AKIA" not in shown
    assert "GITHUB_TOKEN='****'" in shown and "MAX_JOBS=8" in shown
