"""``inv bump`` against hostile upstreams (issue 41): an sdist that trickles in, one that never
ends, a 2 MB sdist holding a 2 GiB member, a PyPI answer naming the sdist on another host (the
mirror's credentials stay home), and a registry whose manifest is not one or trickles in. Each
is exit 2 with one line naming what happened, within its bounds; time is the server's clock
(tests/hostile.py), memory is bounded by the test (a byte count, or RLIMIT_AS in a child)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from rocm_bake_checks.bump import recipe
from tests import hostile
from tests.bump.conftest import Checkout
from tests.bump.world import BASE_IMAGE, RELEASE, World
from tests.conftest import ROOT
from tests.hostile import MB, Server

SDIST = f"vllm-{RELEASE}.tar.gz"
MANIFEST = f"/v2/{BASE_IMAGE[0]}/manifests/{BASE_IMAGE[1]}"


@pytest.fixture
def pypi() -> Iterator[Server]:
    with hostile.serving() as server:
        yield server


def _publish(server: Server, answer: hostile.Answer, data: bytes, base: str = "",
             url: str = "") -> None:
    """``server`` as PyPI (under ``base``): vLLM's JSON naming the sdist (sha256 of ``data``)
    at ``url`` (by default its own /files/), answered by ``answer``."""
    url = url or f"{server.url}/files/{SDIST}"
    server.routes[f"{base}/pypi/vllm/json"] = hostile.body(
        hostile.pypi_json("vllm", RELEASE, data, url))
    server.routes[f"/files/{SDIST}"] = answer


def _rewrites(world: World, **replaced: str) -> list[str]:
    """The world's rewrites, those of the prefixes given replaced (``pypi=...``)."""
    prefixes = {"pypi": "https://pypi.org", "registry": "docker.io/"}
    drop = {prefixes[k] for k in replaced}
    kept = [r for r in world.rewrites() if r.partition("=")[0] not in drop]
    return kept + [f"{prefixes[k]}={v}" for k, v in replaced.items()]


def _one_line_exit_2(checkout: Checkout, **options: object) -> str:
    result = checkout.bump(dry_run=True, **options)
    assert result.code == 2, result
    assert result.out == "" and result.err.count("\n") == 1, result
    return result.err.removeprefix("error: ").rstrip("\n")


def test_a_trickling_sdist_times_out_at_the_timeout(checkout: Checkout, pypi: Server) -> None:
    _publish(pypi, hostile.trickle(b"x" * 200), b"x" * 200)   # a byte per 0.5 s: 100 s
    error = _one_line_exit_2(checkout, rewrites=_rewrites(checkout.world, pypi=pypi.url),
                             timeout=5.0, clock=pypi.clock)
    assert error.endswith(f": timed out after 5 s reading {pypi.url}/files/{SDIST}"), error


def test_an_endless_sdist_stops_at_its_cap(checkout: Checkout, pypi: Server,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recipe, "SDIST_BYTES", MB)
    _publish(pypi, hostile.endless(limit=256 * MB), b"")
    error = _one_line_exit_2(checkout, rewrites=_rewrites(checkout.world, pypi=pypi.url))
    assert error.endswith(f": answer over 1 MB reading {pypi.url}/files/{SDIST}"), error


CHILD = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[3]), int(sys.argv[3])))
from rocm_bake_checks.bump import recipe
from rocm_bake_checks.drift import run
from rocm_bake_checks.drift.settings import DriftSettings
from rocm_bake_checks.drift.session import Session
session = Session(run.prepare(DriftSettings(pypi=sys.argv[1], timeout=60.0), {}))
try:
    recipe.sdist(session.web, "vllm", sys.argv[2])
except recipe.RecipeError as exc:
    print(exc)
finally:
    session.close()
status = open("/proc/self/status").read().split("VmHWM:")[1]
print(status.split()[0])   # KiB: this process's peak RSS since its exec (ru_maxrss would
                           # count the RSS of the process it was spawned from)
"""


def test_a_2_gib_member_in_a_2_mb_sdist_is_refused_in_bounded_memory(pypi: Server) -> None:
    bomb = hostile.bomb(f"vllm-{RELEASE}", "docker/Dockerfile.rocm")
    assert len(bomb) < 3 * MB
    _publish(pypi, hostile.body(bomb, "application/gzip"), bomb)
    limit = 1024 * MB   # address space: the member read whole would need twice that
    child = subprocess.run([sys.executable, "-c", CHILD, pypi.url, RELEASE, str(limit)],
                           cwd=ROOT, capture_output=True, text=True, check=False, timeout=600)
    assert child.returncode == 0, child.stderr[-2000:]
    error, peak = child.stdout.splitlines()
    expands = f"{round(100 * len(bomb) / MB, 1):g} MB"   # 100 times the sdist's size
    assert error == (f"{SDIST} ({pypi.url}/files/{SDIST}): expands to over {expands} (at most "
                     "100 times its size), not read further")
    assert int(peak) < 200 * 1024   # KiB: the member never held


def test_the_mirrors_credentials_never_reach_another_origin(checkout: Checkout, pypi: Server,
                                                            ) -> None:
    sdist = checkout.world.sdists[RELEASE]
    with hostile.serving() as files:
        files.routes[f"/files/{SDIST}"] = hostile.body(sdist, "application/gzip")
        _publish(pypi, hostile.body(sdist, "application/gzip"), sdist, base="/auth",
                 url=f"{files.url}/files/{SDIST}")
        mirror = pypi.url.replace("://", "://user:PASS@") + "/auth"
        rewrites = _rewrites(checkout.world)
        result = checkout.bump(dry_run=True, pypi=mirror,
                               rewrites=[r for r in rewrites if "pypi.org" not in r])
    # the dry run went through (1: its summary lists items for a person, as the world's does)
    assert result.code == 1, result
    assert "## Bump to vLLM" in result.out
    assert "PASS" not in result.out + result.err
    assert pypi.requests[0][0] == "/auth/pypi/vllm/json"
    assert pypi.requests[0][1].get("Authorization", "").startswith("Basic ")
    assert [path for path, _ in files.requests] == [f"/files/{SDIST}"]
    assert "Authorization" not in files.requests[0][1]


@pytest.mark.parametrize(("manifest", "says"), [
    (b"<html>not a manifest</html>", "not JSON (27 bytes): not a manifest"),
    (b"[1, 2]", "JSON list, not a manifest object"),
    (json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
                 "manifests": "none"}).encode(),
     "a application/vnd.oci.image.index.v1+json without the form of one"),
])
def test_a_manifest_that_is_not_one_gives_no_digest(checkout: Checkout, manifest: bytes,
                                                    says: str) -> None:
    with hostile.serving() as registry:
        registry.routes[MANIFEST] = hostile.body(manifest)
        host = registry.url.removeprefix("http://")
        error = _one_line_exit_2(checkout, rewrites=_rewrites(checkout.world,
                                                              registry=f"{host}/"))
    assert error.endswith(f": registry {host}: manifest {BASE_IMAGE[0]}:{BASE_IMAGE[1]}: "
                          f"{says}"), error


def test_a_trickling_registry_times_out_at_the_timeout(checkout: Checkout) -> None:
    manifest = json.dumps({"schemaVersion": 2, "padding": "x" * 200}).encode()
    with hostile.serving() as registry:
        registry.routes[MANIFEST] = hostile.trickle(manifest, kind="application/json")
        host = registry.url.removeprefix("http://")
        error = _one_line_exit_2(checkout, rewrites=_rewrites(checkout.world,
                                                              registry=f"{host}/"),
                                 timeout=5.0, clock=registry.clock)
    assert error.endswith(f"registry {host}: GET {MANIFEST}: timed out after 5 s"), error
