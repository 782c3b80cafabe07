"""Upstream's recipe change, read from the **real** vLLM sdists of v0.28.0, v0.33.0 and v0.34.0
(downloaded from PyPI by sha256 when the tests set up, kept in the user's cache, never
committed): v0.33.0 adds the from-source ROCm 7.2 pair (``Dockerfile.rocm_72_base``, with
``build_rocm_runtime``); v0.34.0 drops it for TheRock's SDK wheels and prebuilt torch, and
``inv bump --vllm v0.34.0`` stops there, exit 2, naming what replaced it."""

from __future__ import annotations

import pytest

from rocm_bake_checks.bump import recipediff
from tests import upstream_sdists
from tests.bump.conftest import Checkout
from tests.bump.world import BUMP, World

FROM_SOURCE_72 = ("docker/Dockerfile.rocm_72_base", "docker/Dockerfile.rocm_72")
GENERIC = ("docker/Dockerfile.rocm_base", "docker/Dockerfile.rocm")
GFX1250 = ("docker/Dockerfile.rocm_base_gfx1250", "docker/Dockerfile.rocm_gfx1250")


@pytest.fixture(scope="module")
def recipes() -> dict[str, dict[str, str]]:
    """Each release's recipe files (path -> text), read from its real sdist."""
    out: dict[str, dict[str, str]] = {}
    for version, sdist in upstream_sdists.VLLM.items():
        top = upstream_sdists.tree(sdist)
        paths = (str(p.relative_to(top)) for p in upstream_sdists.members(sdist))
        out[version] = {p: (top / p).read_text(encoding="utf-8") for p in paths
                        if recipediff.RECIPE_FILE.match(p)}
    return out


def test_v0_33_0_adds_the_from_source_rocm_7_2_pair(recipes: dict[str, dict[str, str]]) -> None:
    change = recipediff.compare(recipes["0.28.0"], recipes["0.33.0"], GENERIC, FROM_SOURCE_72,
                                ("0.28.0", "0.33.0"))
    assert set(FROM_SOURCE_72) <= set(change.files.added)
    assert "base (Dockerfile.rocm_72_base): build_rocm_runtime" in change.stages.added
    assert "base (Dockerfile.rocm_72_base): PYTORCH_BRANCH: 6bbd260 -> 733fca1" in \
        change.args.changed
    assert "base (Dockerfile.rocm_72_base): AITER_BRANCH: v0.1.19 -> v0.1.26" in \
        change.args.changed
    text = recipediff.render(change)
    assert text.startswith("### Upstream's recipe, v0.28.0 -> v0.33.0\n")
    assert "- followed: `docker/Dockerfile.rocm_base` + `docker/Dockerfile.rocm` -> " \
           "`docker/Dockerfile.rocm_72_base` + `docker/Dockerfile.rocm_72`" in text
    assert not any("09/17" in line for line in change.args.added)   # ARG comments are not ARGs


def test_v0_34_0_drops_it_for_therocks_sdk_and_prebuilt_torch(
        recipes: dict[str, dict[str, str]]) -> None:
    assert recipediff.pairs(recipes["0.33.0"]) == [FROM_SOURCE_72, GENERIC, GFX1250]
    assert recipediff.replacements(recipes["0.34.0"], FROM_SOURCE_72) == [GENERIC, GFX1250]
    change = recipediff.compare(recipes["0.33.0"], recipes["0.34.0"], FROM_SOURCE_72, GENERIC,
                                ("0.33.0", "0.34.0"))
    assert set(FROM_SOURCE_72) <= set(change.files.removed)
    added = "\n".join(change.args.added)
    assert "ROCM_SDK_VERSION=10.0.0" in added and "TORCH_VERSION=2.13.0+rocm10.0.0" in added
    removed = set(change.stages.removed)
    assert {"base (Dockerfile.rocm_base): build_pytorch",
            "base (Dockerfile.rocm_base): build_torchvision"} <= removed
    assert "base (Dockerfile.rocm_base): build_rocm_runtime" not in removed   # kept
    assert any("ROCM_RELEASE_WHEELS_MULTIARCH_URL" in step or "rocm-sdk" in step
               for step in change.installs.added), change.installs.added


def test_a_bump_to_v0_34_0_stops_naming_what_replaced_the_recipe(
        checkout: Checkout, world: World) -> None:
    for version in ("0.28.0", "0.34.0"):
        world.sdists[version] = upstream_sdists.archive(
            upstream_sdists.VLLM[version]).read_bytes()
    try:
        result = checkout.bump(vllm="v0.34.0", dry_run=True)
    finally:
        for version in ("0.28.0", "0.34.0"):
            del world.sdists[version]
    assert result.code == 2, result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0] == (
        "error: vLLM 0.34.0 has no docker/Dockerfile.rocm_72_base, the recipe upstream.toml "
        "follows from 0.33.0; its ROCm recipes now: docker/Dockerfile.rocm_base + "
        "docker/Dockerfile.rocm; docker/Dockerfile.rocm_base_gfx1250 + "
        "docker/Dockerfile.rocm_gfx1250 (follow one with --recipe BASE, after updating "
        "upstream.toml)")
    assert result.out.startswith("### Upstream's recipe, v0.28.0 -> v0.34.0\n"), result.out
    assert "- followed: `docker/Dockerfile.rocm_base` + `docker/Dockerfile.rocm` -> " \
           "`docker/Dockerfile.rocm_base` + `docker/Dockerfile.rocm`" not in result.out
    assert "`base (Dockerfile.rocm_base): build_pytorch`" in result.out   # removed
    assert checkout.file.read_text() == (BUMP / "old.hcl").read_text()
    assert not checkout.repo.is_dirty(untracked_files=True)
