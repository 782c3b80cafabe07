"""scripts/hip-toolchain.lock pins every .deb of the HIP image by content, and `fetch` takes a
.deb only when its sha256 is the lock's (a real HTTP server on loopback as the Debian mirror,
found through an apt configuration of the test's own)."""

from __future__ import annotations

import functools
import hashlib
import http.server
import os
import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "hip-toolchain.sh"
LOCK = ROOT / "scripts" / "hip-toolchain.lock"
RELOCK = ("re-lock: scripts/hip-toolchain.sh lock (then rebuild, and record the test variant's "
          "new expectation: inv verify-repro --record)")
LINE = re.compile(r"^(install|unpack) [0-9a-f]{64} [0-9]+ pool/main/\S+\.deb$")


def test_the_committed_lock_pins_every_deb_by_sha256() -> None:
    lines = [x for x in LOCK.read_text().splitlines() if x and not x.startswith("#")]
    assert all(LINE.match(x) for x in lines), [x for x in lines if not LINE.match(x)]
    names = {x.split()[3].rsplit("/", 1)[1].split("_", 1)[0]: x.split()[0] for x in lines}
    # The toolchain and ROCm's HIP parts, each exactly once.
    for package in ("clang-22", "lld-22", "llvm-22", "cmake", "python3-pip", "gcc"):
        assert names[package] == "install"
    for package in ("rocm-device-libs-22", "libamdhip64-dev", "libamdhip64-7", "hipcc"):
        assert names[package] == "unpack"
    assert len(names) == len(lines)


@pytest.fixture
def mirror(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An HTTP server on loopback serving tmp_path/www, and an apt configuration naming it as
    this release's mirror."""
    www = tmp_path / "www"
    www.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(www))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    codename = next(line.split("=", 1)[1].strip().strip('"')
                    for line in Path("/etc/os-release").read_text().splitlines()
                    if line.startswith("VERSION_CODENAME="))
    etc = tmp_path / "etc"
    etc.mkdir()
    url = f"http://127.0.0.1:{server.server_address[1]}/debian"
    (etc / "sources.list").write_text(f"deb {url} {codename} main\n")
    try:
        yield url, www
    finally:
        server.shutdown()
        server.server_close()


def fetch(tmp_path: Path, lock: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test.lock").write_text(lock)
    env = {**os.environ, "ROCM_BAKE_APT_ETC": str(tmp_path / "etc"),
           "ROCM_BAKE_HIP_LOCK": str(tmp_path / "test.lock"),
           "ROCM_BAKE_ROOTFS_DIR": str(tmp_path / "cache")}
    return subprocess.run(["bash", str(SCRIPT), "fetch"], env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def test_fetch_keeps_a_deb_only_with_the_locks_sha256(mirror: tuple[str, Path],
                                                      tmp_path: Path) -> None:
    _, www = mirror
    deb = www / "debian" / "pool" / "main" / "x" / "x" / "x_1.0_amd64.deb"
    deb.parent.mkdir(parents=True)
    deb.write_bytes(b"the archive's x 1.0")
    sha = hashlib.sha256(deb.read_bytes()).hexdigest()
    path = "pool/main/x/x/x_1.0_amd64.deb"
    good = fetch(tmp_path, f"# a lock\ninstall {sha} 19 {path}\n")
    assert good.returncode == 0, good.stderr
    assert (tmp_path / "cache" / "debs" / f"{sha}.deb").read_bytes() == deb.read_bytes()
    assert "1 .debs of test.lock verified by sha256 (1 downloaded)" in good.stderr
    # Kept by content: the second run downloads nothing.
    assert "(0 downloaded)" in fetch(tmp_path, f"install {sha} 19 {path}\n").stderr
    # The archive changed under the same name: refused, one line, nothing kept.
    other = "ab" * 32
    bad = fetch(tmp_path, f"install {other} 19 {path}\n")
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines()[-1].endswith(
        f"does not have the sha256 of {tmp_path / 'test.lock'} ({other}): the archive "
        f"changed; {RELOCK}")
    assert not (tmp_path / "cache" / "debs" / f"{other}.deb").exists()
    assert sorted(p.name for p in (tmp_path / "cache" / "debs").iterdir()) == [f"{sha}.deb"]


def test_a_lock_line_without_a_sha256_is_refused(mirror: tuple[str, Path],
                                                 tmp_path: Path) -> None:
    result = fetch(tmp_path, "install deadbeef 1 pool/main/x/x/x_1.0_amd64.deb\n")
    assert result.returncode == 2
    assert "has no sha256" in result.stderr


def test_a_pin_the_mirror_dropped_says_to_re_lock(mirror: tuple[str, Path],
                                                 tmp_path: Path) -> None:
    """Debian drops superseded versions from its mirror: a vanished pin is one line naming
    the .deb and the command that re-locks, not a download error."""
    path = "pool/main/x/x/x_0.9_amd64.deb"
    result = fetch(tmp_path, f"install {'cd' * 32} 19 {path}\n")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        f"hip-toolchain.sh: error: fetch: the mirror no longer has {path} (pinned in "
        f"{tmp_path / 'test.lock'}; Debian drops superseded versions): {RELOCK}")
    assert not list((tmp_path / "cache" / "debs").iterdir())


def test_the_cache_stack_headers_are_pinned_at_the_hip_images_rocm_version() -> None:
    """scripts/cachestack.lock pins the three header .debs by sha256, at the ROCm version of
    the HIP image's lock (what `cachestack.sh --lock` checks when it writes it)."""
    def versions(lock: Path) -> dict[str, str]:
        rows = [x.split() for x in lock.read_text().splitlines() if x and not x.startswith("#")]
        assert all(LINE.match(" ".join(r)) and r[0] == "unpack" for r in rows if r[0] != "install")
        return {r[3].rsplit("/", 1)[1].split("_")[0]: r[3].rsplit("/", 1)[1].split("_")[1]
                for r in rows if r[0] == "unpack"}

    def rocm(version: str) -> str:
        return version.replace("%2b", "+").split("-")[0].split("+")[0]

    stack = versions(ROOT / "scripts" / "cachestack.lock")
    assert sorted(stack) == ["libhipblas-common-dev", "libhipblas-dev", "librocblas-dev"]
    assert {rocm(v) for v in stack.values()} == {rocm(v) for v in versions(LOCK).values()}
