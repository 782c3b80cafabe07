"""Fixtures of the cache engine tests: the test stack (docker-bake.hcl here: ggml's HIP backend
from the llama-cpp-python sdist, its small TU set, compiled by the real HIP compiler through
sccache on the real WebDAV store, registry layer cache on the real registry) and ONE cold build
of it per session, shared by the tests that rebuild under the other conditions."""

from __future__ import annotations

import os
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from rocm_bake.builds import request as build
from rocm_bake.compilercache import health as cache_health
from rocm_bake.compilercache import secret as cache_secret
from rocm_bake.compilercache import store as cache_store
from rocm_bake.perf import runner
from tests.conftest import ROOT, missing
from tests.s3store import REGION, S3Store

STACK = Path(__file__).resolve().parent
BAKE_FILE = "docker-bake.hcl"
TARGET = "ggml"
COMPILE_STEP = "COMPILER_CACHE_STATS_NAME=ggml"
ARCH = "gfx950"
SDIST = "llama_cpp_python-0.3.36.tar.gz"
# GGML_TU_SET=small: 3 ggml-cuda/*.cu, 2 host C/C++ TUs
HIP_TUS, HOST_TUS = 3, 2
WEBDAV_PORT = int(os.environ.get("ROCM_BAKE_WEBDAV_PORT", "8080"))
ENGINE_DIR = Path(os.environ.get("ROCM_BAKE_ENGINE_DIR", "/tmp/rocm-bake-engine"))
# The engine's registry (scripts/engine.sh: ROCM_BAKE_REGISTRY_PORT), so a second engine with a
# registry of its own can run these tests beside the suite's.
REGISTRY = f"127.0.0.1:{os.environ.get('ROCM_BAKE_REGISTRY_PORT', '5000')}"


def downloads() -> Path:
    """The setup downloads (scripts/cachestack.sh): fetched at setup, never by a test."""
    path = Path(os.environ.get("ROCM_BAKE_CACHESTACK_DIR", "/var/cache/rocm-bake/cachestack"))
    if not (path / "sccache").is_file() or not (path / SDIST).is_file():
        missing(f"the cache stack's downloads in {path}", "bash scripts/cachestack.sh")
    return path


def ggml(run: runner.BakeRun) -> cache_health.CacheStats:
    """The compile step's cache statistics of a stack build."""
    found = [s for s in run.stats if s.name == "ggml"]
    assert found, f"no ggml statistics recorded ({run.log})"
    return found[0]


def count_lines(path: Path, needle: str) -> int:
    if not path.is_file():
        return 0
    return sum(1 for line in path.read_text(errors="replace").splitlines() if needle in line)


@dataclass
class Stack:
    """The test stack on the real engine with its own registry cache repository and its own
    WebDAV directory (so the session's first build is really cold)."""

    engine: str
    webdav: Path
    work: Path
    uid: str

    @property
    def cache_repo(self) -> str:
        return f"{REGISTRY}/rocm-bake-cachestack-{self.uid}/buildcache"

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{WEBDAV_PORT}"

    def secret(self, name: str, read_only: bool = False, endpoint: str | None = None,
               namespace: str | None = None, tool: str = "sccache") -> Path:
        backend = cache_store.Store("webdav", environment="ci",
                                         endpoint=endpoint or self.endpoint, read_only=read_only,
                                         namespace=namespace or f"cachestack-{self.uid}")
        return cache_secret.write_secret(self.work / f"{name}.secret", backend, tool=tool)

    def s3_secret(self, name: str, store: S3Store, *, read_only: bool = False,
                  credentials: dict[str, str] | None = None, endpoint: str | None = None,
                  bucket: str | None = None) -> Path:
        """sccache's S3 backend on the loopback S3 store (its bucket ``<base>-ci``, objects
        under ``cachestack-<uid>/linux/<arch>/``), with the store's credentials (or
        ``credentials``), mode 0600 in this session's directory."""
        backend = cache_store.Store("s3", environment=store.environment,
                                         endpoint=endpoint or store.endpoint,
                                         bucket=bucket or store.bucket_base, region=REGION,
                                         read_only=read_only,
                                         namespace=f"cachestack-{self.uid}")
        found = store.credentials() if credentials is None else credentials
        return cache_secret.write_secret(self.work / f"{name}.secret", backend, found,
                                         tool="sccache")

    @property
    def s3_prefix(self) -> str:
        return f"cachestack-{self.uid}/"

    def sets(self, name: str, pin: str, secret: Path, export: bool,
             probe: str = "1", tool: str = "sccache") -> list[str]:
        return [f"CACHE_SECRET_FILE={secret}", f"CACHE_EXPORT={str(export).lower()}",
                f"CACHE_TYPE={tool}",
                f"CACHE_REPO={self.cache_repo}", f"GGML_PIN={pin}", "GGML_TU_SET=small",
                f"GPU_ARCHS={ARCH}", f"PROBE_DEFINE={probe}", f"DOWNLOADS={downloads()}",
                f"DIST={self.work / name / 'dist'}"]

    def bake(self, name: str, pin: str, *, read_only: bool = False, export: bool = True,
             probe: str = "1", secret: Path | None = None,
             preflight: bool = True, tool: str = "sccache") -> runner.BakeRun:
        secret = secret or self.secret(name, read_only, tool=tool)
        request = build.BuildRequest(targets=[TARGET], files=[BAKE_FILE],
                                     sets=self.sets(name, pin, secret, export, probe, tool))
        run = runner.bake(request, STACK, self.work / name, self.work / name / "dist",
                          env={**os.environ, "DOCKER_HOST": self.engine}, timeout=900,
                          preflight=preflight)
        if run.returncode != 0:
            lines = [line for s in run.steps for line in s.log][-20:]
            pytest.fail(f"bake {name} failed (exit {run.returncode}, {run.log}):\n"
                        + "".join(lines))
        return run

    def docker(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["docker", *args], env={**os.environ, "DOCKER_HOST": self.engine},
                              capture_output=True, text=True, timeout=300, check=False)

    def webdav_puts(self) -> int:
        return count_lines(self.webdav / "access.log", f"PUT /cachestack-{self.uid}/")

    def registry_puts(self) -> int:
        """PUT requests to this stack's cache repository (other pushes may run meanwhile)."""
        path = ENGINE_DIR / "registry.log"
        if not path.is_file():
            return 0
        repo = self.cache_repo.removeprefix(f"{REGISTRY}/")
        return sum(1 for line in path.read_text(errors="replace").splitlines()
                   if "http.request.method=PUT" in line and f"/v2/{repo}/" in line)


@pytest.fixture(scope="session")
def stack(engine: str, webdav: Path, tmp_path_factory: pytest.TempPathFactory) -> Stack:
    """The real HIP toolchain image (scripts/hip-toolchain.sh image) and a fresh stack."""
    downloads()
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "hip-toolchain.sh"), "image"],
                          capture_output=True, text=True, timeout=1500, check=False)
    if proc.returncode != 0:
        pytest.fail(f"scripts/hip-toolchain.sh image failed: {proc.stderr.strip()[-800:]}")
    return Stack(engine, webdav, tmp_path_factory.mktemp("cachestack"), uuid.uuid4().hex[:10])


@pytest.fixture(scope="session")
def cold(stack: Stack) -> runner.BakeRun:
    """The cold build: empty WebDAV prefix, empty registry cache refs, a pin never built; it
    writes both shared caches (a push/schedule build)."""
    return stack.bake("cold", f"cold-{stack.uid}")
