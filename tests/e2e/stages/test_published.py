"""What is published is what reproduces (issue 34), on either engine (issue 39): `inv push` of
the test variant's runtime image exports as `inv verify-repro` does, so the image the registry
holds is the committed reproducible one (expected/app-gfx950.json: its identity, and the
manifest digest the pushing engine encodes it as), read back with the registry's API, its
provenance naming that engine; `inv verify-repro --image` on the same engine and on the other
one (the floor, Docker 26.1.5, and the current one) rebuilds a published image from its
provenance and agrees -- on the other engine with another manifest digest, its own encoding --
and an image that is not what its provenance says (its app wheel built from another version
than its pins name) disagrees on both, the first differing layer and its files named."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from rocm_bake.oci import provenance
from rocm_bake.oci.registry import Reference, Registry, platform_images
from rocm_bake.reproducible import diff as reprodiff
from rocm_bake.reproducible import verify as repro
from tests.conftest import RELEASES, Result, run_cli, suite_release
from tests.e2e.stages.conftest import ARCH, BAKE_FILE, STAGES, engine_of, inv_push
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
    engine: str           # the DOCKER_HOST that pushed them (the suite's engine)


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
    yield Pushed(good, tampered, first.stderr, engine)


def test_the_pushed_image_is_the_reproducible_one(pushed: Pushed, engine: str) -> None:
    expected = reprodiff.load(EXPECTED)
    reference = Reference.parse(pushed.good)
    registry = Registry(reference.host)
    digest = platform_digest(pushed.good)
    assert repro.published_identity(registry, reference.repository, digest) == expected.identity
    # Its manifest: the pushing engine's encoding, which the expectation records; its
    # provenance names that engine.
    this = engine_of(engine)
    assert digest == expected.encodings[str(this)]["manifest"]
    [made] = provenance.read(registry, reference)
    assert made.engine == this.to_json()
    # The push exported with rewrite-timestamp and did not store the image in the engine
    # (the docker driver's image store would unpack it, which BuildKit refuses with it).
    assert "rewriting layers with source-date-epoch 1767225600" in pushed.log
    held = subprocess.run(["docker", "image", "inspect", pushed.good], capture_output=True,
                          env={**os.environ, "DOCKER_HOST": engine}, timeout=120, check=False)
    assert held.returncode != 0


@pytest.mark.parametrize("release", RELEASES)
def test_verify_repro_rebuilds_a_published_image_and_agrees(
        pushed: Pushed, release: str, stage_engines: dict[str, str], tmp_path: Path) -> None:
    """--image on the engine that pushed it, and on the other engine."""
    engine = stage_engines[release]
    result = verify_image(pushed.good, engine, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    expected = reprodiff.load(EXPECTED)
    identity = expected.identity
    pusher, here = engine_of(pushed.engine), engine_of(engine)
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{pushed.good}: cell {CELL}, pins APP_VERSION=2.0.1 "), lines
    assert (f"published: {identity} (manifest {expected.encodings[str(pusher)]['manifest']}, "
            f"{pusher})") in lines, lines
    assert (f"rebuilt:   {identity} (manifest {expected.encodings[str(here)]['manifest']}, "
            f"{here})") in lines, lines
    if release == suite_release():       # the same engine: the same manifest too
        assert lines[-1] == f"agrees: {identity}"
    else:
        assert lines[-1] == (f"agrees: {identity} (the manifests differ: each is its engine's "
                             "encoding of the same image)")


@pytest.mark.parametrize("release", RELEASES)
def test_an_image_that_is_not_what_its_provenance_says_disagrees(
        pushed: Pushed, release: str, stage_engines: dict[str, str], tmp_path: Path) -> None:
    result = verify_image(pushed.tampered, stage_engines[release], tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.strip() == (f"verify-repro: {pushed.tampered} is not what its "
                                     "provenance rebuilds"), result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("published: sha256:") and
               f"(manifest {platform_digest(pushed.tampered)}, " in line for line in lines), lines
    assert any(line.startswith(f"rebuilt:   {reprodiff.load(EXPECTED).identity} ")
               for line in lines), lines
    # The first layer that differs is the one that installed the app wheel; its files name
    # the version the image was really built from.
    head = next(line for line in lines if line.startswith("first differing layer: "))
    assert "python3 -m venv --system-site-packages /opt/venv && pip install" in head, head
    site = "/opt/venv/lib/python3.13/site-packages"
    assert (f"  only in the published image: {site}/rb_app-{TAMPERED_APP_VERSION}.dist-info"
            in lines), lines
    assert f"  only in the rebuild: {site}/rb_app-2.0.1.dist-info" in lines, lines
