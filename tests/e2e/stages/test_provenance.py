"""Provenance on push, read back from the registry (issue 26): the test variant's app image
pushed by `inv push` carries SLSA provenance (mode=max) and the versions statement; `inv
inspect` reads them from the registry after the engine forgot the image; `inv version-check
--images` tells an image built from an older pin (stale, exit 1) from one built from the bake
file's pins (current, exit 0), against the bake file and against upstream (a loopback PyPI)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from rocm_bake.model import bakefile
from rocm_bake.oci import provenance
from tests.conftest import Result, run_cli
from tests.e2e.stages.conftest import ARCH, BAKE_FILE, STAGES, inv_push
from tests.hip.conftest import Rocm
from tests.loopback import http_server

REGISTRY = "127.0.0.1:5000"
CELL = f"app-{ARCH}"
OLD_APP_VERSION = "2.0.0"          # the bake file pins 2.0.1


@dataclass(frozen=True)
class Pushed:
    prefix: str                    # every repository of this test's pushes is under it
    current: str                   # built from the bake file's pins
    old: str                       # built with APP_VERSION=OLD_APP_VERSION
    rocm: str
    push_log: str


@pytest.fixture(scope="module")
def pushed(engine: str, rocm: Rocm) -> Iterator[Pushed]:
    prefix = f"rocm-bake-prov-{uuid.uuid4().hex[:8]}"
    current = f"{REGISTRY}/{prefix}/current/app:{ARCH}"
    old = f"{REGISTRY}/{prefix}/old/app:{ARCH}"
    first = inv_push(engine, current, rocm.version)
    assert first.returncode == 0, first.stderr[-3000:]
    second = inv_push(engine, old, rocm.version, f"APP_VERSION={OLD_APP_VERSION}")
    assert second.returncode == 0, second.stderr[-3000:]
    # The engine holds neither (a push stores nothing: rocm_bake.docker.exporters): everything
    # below reads the registry alone.
    for image in (current, old):
        held = subprocess.run(["docker", "image", "inspect", image], env={**os.environ,
                              "DOCKER_HOST": engine}, capture_output=True, timeout=120,
                              check=False)
        assert held.returncode != 0, f"the engine holds the pushed {image}"
    yield Pushed(prefix, current, old, rocm.version, first.stderr)


def bake_pins(rocm: str) -> dict[str, str]:
    return provenance.bake_pins(bakefile.load([STAGES / BAKE_FILE], {"ROCM_VERSION": rocm}))


@pytest.mark.engine
def test_push_attaches_provenance_and_versions(pushed: Pushed) -> None:
    lines = [ln for ln in pushed.push_log.splitlines() if ln.startswith("provenance: ")]
    assert len(lines) == 1 and lines[0].startswith(f"provenance: {pushed.current}: "
                                                   "provenance (mode=max) and versions"), lines


@pytest.mark.engine
def test_inspect_reads_what_made_the_image_from_the_registry(pushed: Pushed,
                                                             engine: str) -> None:
    result = run_cli(["inv", "inspect", pushed.current, "--json"],
                     env={"DOCKER_HOST": engine})
    assert result.returncode == 0, result.stderr
    [made] = json.loads(result.stdout)
    assert made["pins"] == bake_pins(pushed.rocm)               # the bake file's, exactly
    assert made["cell"] == CELL and made["pins_from"] == "/opt/rocm-bake/versions.json"
    assert made["provenance"] and made["versions"]
    assert {w["name"]: w["version"] for w in made["wheels"]} == {
        "rb_core": "1.2.3", "rb_plugin": "0.4.0", "rb_app": "2.0.1"}
    # mode=max: the build args, the base image's digest, the Dockerfile's digest
    assert made["args"]["APP_VERSION"] == "2.0.1" and made["target"] == "runtime"
    # The build stages' HIP toolchain image and the runtime stage's image, by digest.
    assert sorted(b.split("@sha256:")[0] for b in made["base"]) == [
        "rocm-bake/hip-runtime:test", "rocm-bake/hip:test"], made["base"]
    app = (STAGES / "app.Dockerfile").read_bytes()
    assert made["dockerfile"] == f"app.Dockerfile sha256:{hashlib.sha256(app).hexdigest()}"
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=STAGES, capture_output=True,
                          text=True, check=True).stdout.strip()
    assert made["commit"].removesuffix("-dirty") == head
    assert made["audit"] and f"{CELL}: expected {ARCH}: ok" in made["audit"][0]
    text = run_cli(["inv", "inspect", pushed.current], env={"DOCKER_HOST": engine})
    assert text.returncode == 0, text.stderr
    assert "  APP_VERSION = 2.0.1" in text.stdout and f"arch audit:\n  {CELL}" in text.stdout


@pytest.mark.engine
def test_inspect_without_provenance_is_one_line(engine: str) -> None:
    result = run_cli(["inv", "inspect", f"{REGISTRY}/no-such/repo:tag"],
                     env={"DOCKER_HOST": engine})
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "manifest unknown" in result.stderr


class _PyPI(BaseHTTPRequestHandler):
    """rb-app on a loopback PyPI: releases 2.0.0 and 2.0.1, each with its sdist (a release with
    no file does not count, as pip takes none)."""

    def do_GET(self) -> None:
        if self.path != "/pypi/rb-app/json":
            self.send_error(404)
            return
        body = json.dumps({"releases": {
            version: [{"filename": f"rb_app-{version}.tar.gz", "packagetype": "sdist",
                       "yanked": False}] for version in ("2.0.0", "2.0.1")}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def _images(registry: str, engine: str, tmp_path: Path, pypi: str) -> Result:
    sources = tmp_path / "sources.hcl"
    sources.write_text('APP_VERSION_SOURCE = {\n  pypi = "rb-app"\n}\n')
    return run_cli(["inv", "version-check", "--file", BAKE_FILE, "--file", str(sources),
                    "--images", registry, "--pypi", pypi, "--cache-dir", "off", "--json"],
                   cwd=STAGES, env={"DOCKER_HOST": engine})


@pytest.mark.engine
def test_version_check_images_stale_and_current(pushed: Pushed, engine: str,
                                                tmp_path: Path) -> None:
    with http_server(_PyPI) as pypi:
        old = _images(f"{REGISTRY}/{pushed.prefix}/old", engine, tmp_path, pypi)
        current = _images(f"{REGISTRY}/{pushed.prefix}/current", engine, tmp_path, pypi)
    assert old.returncode == 1, old.stderr
    [image] = json.loads(old.stdout)["images"]
    assert image["verdict"] == "stale" and image["reference"] == pushed.old
    app = next(p for p in image["pins"] if p["name"] == "APP_VERSION")
    assert (app["built"], app["bake"], app["differs"]) == (OLD_APP_VERSION, "2.0.1", True)
    assert app["upstream"]["status"] == "behind" and app["upstream"]["newest"] == "2.0.1"
    assert current.returncode == 0, current.stderr
    [image] = json.loads(current.stdout)["images"]
    assert image["verdict"] == "current" and not any(p["differs"] for p in image["pins"])
    app = next(p for p in image["pins"] if p["name"] == "APP_VERSION")
    assert app["upstream"]["status"] == "up to date"
    with http_server(_PyPI) as pypi:
        sources = tmp_path / "sources.hcl"
        text = run_cli(["inv", "version-check", "--file", BAKE_FILE, "--file", str(sources),
                        "--images", f"{REGISTRY}/{pushed.prefix}", "--pypi", pypi,
                        "--cache-dir", "off"], cwd=STAGES, env={"DOCKER_HOST": engine})
    assert text.returncode == 1, text.stderr
    assert f"built from APP_VERSION {OLD_APP_VERSION}; bake file pins 2.0.1" in text.stdout
    assert "2 image(s) in" in text.stdout and "1 current, 1 stale" in text.stdout
