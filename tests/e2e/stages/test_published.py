"""What is published is what reproduces (issue 34): `inv push` of the test variant's runtime
image exports as `inv verify-repro` does, so the image manifest the registry holds is the
committed reproducible digest (expected/app-gfx950.json), read back with the registry's API;
`inv verify-repro --image` rebuilds a published image from its provenance and agrees, and an
image that is not what its provenance says (its app wheel built from another version than its
pins name) disagrees, the first differing layer and its files named."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from rocm_bake.oci.registry import Reference, Registry, platform_images
from rocm_bake.reproducible import diff as reprodiff
from tests.conftest import Result, run_cli
from tests.e2e.stages.conftest import ARCH, BAKE_FILE, STAGES, inv_push
from tests.hip.conftest import Rocm

pytestmark = pytest.mark.engine

REGISTRY = "127.0.0.1:5000"
CELL = f"app-{ARCH}"
EXPECTED = STAGES / "expected" / f"{CELL}.json"
TAMPERED_APP_VERSION = "2.0.2"      # the pins (the image's versions.json) still say 2.0.1


@dataclass(frozen=True)
class Pushed:
    good: str
    tampered: str
    log: str


def verify_image(image: str, engine: str, keep: Path) -> Result:
    """`inv verify-repro --image`: the published image rebuilt from its provenance."""
    return run_cli(["inv", "verify-repro", "--image", image, "--file", BAKE_FILE,
                    "--keep", str(keep)], cwd=STAGES, env={"DOCKER_HOST": engine}, timeout=1800)


def platform_digest(image: str) -> str:
    """The linux/amd64 image manifest the registry's index for ``image`` lists."""
    reference = Reference.parse(image)
    index, _ = Registry(reference.host).manifest(reference.repository, reference.ref)
    [entry] = [e for e in platform_images(index)
               if (e.get("platform") or {}).get("architecture") == "amd64"]
    return str(entry["digest"])


@pytest.fixture(scope="module")
def pushed(engine: str, rocm: Rocm) -> Iterator[Pushed]:
    prefix = f"{REGISTRY}/rocm-bake-published-{uuid.uuid4().hex[:8]}"
    good, tampered = f"{prefix}/good/app:{ARCH}", f"{prefix}/tampered/app:{ARCH}"
    first = inv_push(engine, good, rocm.version)
    assert first.returncode == 0, first.stderr[-3000:]
    second = inv_push(engine, tampered, rocm.version,
                   f"{CELL}.args.APP_VERSION={TAMPERED_APP_VERSION}")
    assert second.returncode == 0, second.stderr[-3000:]
    yield Pushed(good, tampered, first.stderr)


def test_the_pushed_image_is_the_reproducible_one(pushed: Pushed, engine: str) -> None:
    assert platform_digest(pushed.good) == reprodiff.load(EXPECTED).digest
    # The push exported with rewrite-timestamp and did not store the image in the engine
    # (the docker driver's image store would unpack it, which BuildKit refuses with it).
    assert "rewriting layers with source-date-epoch 1767225600" in pushed.log
    held = subprocess.run(["docker", "image", "inspect", pushed.good], capture_output=True,
                          env={**os.environ, "DOCKER_HOST": engine}, timeout=120, check=False)
    assert held.returncode != 0


def test_verify_repro_rebuilds_a_published_image_and_agrees(pushed: Pushed, engine: str,
                                                            tmp_path: Path) -> None:
    result = verify_image(pushed.good, engine, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    digest = reprodiff.load(EXPECTED).digest
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{pushed.good}: cell {CELL}, pins APP_VERSION=2.0.1 "), lines
    assert f"published: {digest}" in lines and f"rebuilt:   {digest}" in lines
    assert lines[-1] == f"agrees: {digest}"


def test_an_image_that_is_not_what_its_provenance_says_disagrees(pushed: Pushed, engine: str,
                                                                 tmp_path: Path) -> None:
    result = verify_image(pushed.tampered, engine, tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.strip() == (f"verify-repro: {pushed.tampered} is not what its "
                                     "provenance rebuilds"), result.stderr
    lines = result.stdout.splitlines()
    assert f"published: {platform_digest(pushed.tampered)}" in lines
    assert f"rebuilt:   {reprodiff.load(EXPECTED).digest}" in lines
    # The first layer that differs is the one that installed the app wheel; its files name
    # the version the image was really built from.
    head = next(line for line in lines if line.startswith("first differing layer: "))
    assert "python3 -m venv --system-site-packages /opt/venv && pip install" in head, head
    site = "/opt/venv/lib/python3.13/site-packages"
    assert (f"  only in the published image: {site}/rb_app-{TAMPERED_APP_VERSION}.dist-info"
            in lines), lines
    assert f"  only in the rebuild: {site}/rb_app-2.0.1.dist-info" in lines, lines
