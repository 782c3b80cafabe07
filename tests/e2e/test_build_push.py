"""End to end: `inv build --push` on the real engine, then the image read back from the registry."""

from __future__ import annotations

import io
import tarfile
import uuid
from pathlib import Path

import pytest
import requests

from tests.conftest import ROOT, run_cli

STACK = Path(__file__).parent / "stack"
REGISTRY = "127.0.0.1:5000"
ACCEPT = ", ".join([
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
])


def _get(path: str) -> requests.Response:
    response = requests.get(f"http://{REGISTRY}/v2/{path}", headers={"Accept": ACCEPT},
                            timeout=30)
    response.raise_for_status()
    return response


def _image_manifest(repository: str, tag: str) -> dict[str, object]:
    manifest: dict[str, object] = _get(f"{repository}/manifests/{tag}").json()
    if "manifests" in manifest:  # an index: take the linux/amd64 image
        entries = manifest["manifests"]
        assert isinstance(entries, list)
        digest = next(m["digest"] for m in entries
                      if m.get("platform", {}).get("architecture") == "amd64")
        manifest = _get(f"{repository}/manifests/{digest}").json()
    return manifest


def _files_in_layers(repository: str, manifest: dict[str, object]) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    layers = manifest["layers"]
    assert isinstance(layers, list)
    for layer in layers:
        blob = _get(f"{repository}/blobs/{layer['digest']}").content
        with tarfile.open(fileobj=io.BytesIO(blob)) as archive:
            for member in archive.getmembers():
                extracted = archive.extractfile(member) if member.isfile() else None
                if extracted is not None:
                    files[member.name.lstrip("./")] = extracted.read()
    return files


@pytest.mark.engine
def test_build_push_and_read_back(engine: str) -> None:
    tag = f"t{uuid.uuid4().hex[:10]}"
    greeting = f"hi-{tag}"
    result = run_cli(["inv", "build", "--file", "docker-bake.hcl", "--target", "hello", "--push",
                      "--set", f"TAG={tag}", "--set", f"GREETING={greeting}"],
                     cwd=STACK, env={"DOCKER_HOST": engine})
    assert result.returncode == 0, result.stderr[-2000:]
    manifest = _image_manifest("rocm-bake-test/hello", tag)
    files = _files_in_layers("rocm-bake-test/hello", manifest)
    assert files["hello.txt"].decode().strip() == greeting
    assert files["wheels/base.txt"].decode().strip() == "base"


@pytest.mark.engine
def test_dry_run_shows_the_command_and_builds_nothing(engine: str) -> None:
    result = run_cli(["inv", "build", "--file", "docker-bake.hcl", "--target", "hello",
                      "--dry-run", "--set", "TAG=never-pushed"],
                     cwd=STACK, env={"DOCKER_HOST": engine})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ("TAG=never-pushed docker buildx bake --file docker-bake.hcl "
                                     "hello")
    tags = requests.get(f"http://{REGISTRY}/v2/rocm-bake-test/hello/tags/list", timeout=30)
    assert "never-pushed" not in tags.text
    assert ROOT.exists()
