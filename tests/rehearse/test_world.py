"""The rehearsal's index and world without an engine: which locked file the mirror takes (the
one pip would install on the real image), the union of two locks' sha256s, the PEP 503 pages
a real pip reads, and a path the world cannot answer recorded."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

from rocm_bake.net.simpleindex import IndexFile
from rocm_bake_checks.rehearse import mirror, world

WHEELS = [
    "numpy-2.3.5-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
    "numpy-2.3.5-cp312-cp312-musllinux_1_2_x86_64.whl",
    "numpy-2.3.5-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
    "numpy-2.3.5-cp312-cp312-manylinux_2_39_x86_64.whl",
    "numpy-2.3.5-cp312-cp312-macosx_14_0_arm64.whl",
    "numpy-2.3.5.tar.gz",
]


def listing(names: list[str]) -> list[IndexFile]:
    return [IndexFile(n, f"https://files.example/{n}", hashlib.sha256(n.encode()).hexdigest())
            for n in names]


def test_the_mirror_takes_the_wheel_pip_takes_on_the_real_image() -> None:
    files = listing(WHEELS)
    chosen = mirror.choose(files, [f.sha256 for f in files])
    # not another Python, not musl, not a glibc newer than Ubuntu 22.04's 2.35, not macOS
    assert chosen is not None
    assert chosen.filename == WHEELS[2]


def test_only_a_file_the_lock_records_is_taken() -> None:
    files = listing(WHEELS)
    assert mirror.choose(files, [files[0].sha256, files[5].sha256]) is None


def test_a_yanked_file_is_taken_only_when_every_locked_file_is_yanked() -> None:
    """PEP 592 as pip applies it to an exact pin: the best wheel for the image is yanked, so
    pip takes the pure one; with that one yanked too, the best again."""
    names = [WHEELS[2], "numpy-2.3.5-py3-none-any.whl"]
    best, pure = listing(names)
    best = IndexFile(best.filename, best.url, best.sha256, "broken build")
    assert mirror.choose([best, pure], [best.sha256, pure.sha256]) == pure
    pure = IndexFile(pure.filename, pure.url, pure.sha256, "")
    assert mirror.choose([best, pure], [best.sha256, pure.sha256]) == best


def test_two_locks_pinning_one_version_give_one_pin_with_both_hashes(tmp_path: Path) -> None:
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    one.write_text("six==1.17.0 \\\n    --hash=sha256:" + "a" * 64 + "\n", encoding="utf-8")
    two.write_text("six==1.17.0 \\\n    --hash=sha256:" + "b" * 64 + "\n", encoding="utf-8")
    (pin,) = mirror.pins_of([one, two])
    assert (pin.name, pin.version, set(pin.hashes)) == ("six", "1.17.0", {"a" * 64, "b" * 64})


def test_pip_installs_from_the_world_and_a_miss_is_recorded(tmp_path: Path) -> None:
    """A real pip resolves a pin against the world's PEP 503 pages and downloads the file by
    its sha256 from the content-addressed cache."""
    wheel = _build_wheel(tmp_path / "build")
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    cache = tmp_path / "cache"
    mirror.cached(cache, digest).parent.mkdir(parents=True)
    mirror.cached(cache, digest).write_bytes(wheel.read_bytes())
    files = (mirror.File("rehearsal-probe", "1.0", wheel.name, digest, "", 0),)
    root = tmp_path / "root"
    mirror.write_index(mirror.Mirror(files, 0, 0), root)
    target = tmp_path / "target"
    wanted = tmp_path / "requirements.txt"
    wanted.write_text(f"rehearsal-probe==1.0 --hash=sha256:{digest}\n", encoding="utf-8")
    with world.serving(root, cache) as (served, missed):
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--no-deps", "--require-hashes",
             "--isolated", "--disable-pip-version-check", "--index-url",
             f"{served.url}/simple/", "--target", str(target), "-r", str(wanted)],
            capture_output=True, text=True, check=False)
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"{served.url}/simple/not-there/", timeout=30)
    assert done.returncode == 0, done.stderr
    assert (target / "rehearsal_probe" / "__init__.py").is_file()
    assert missed == ["404 /simple/not-there/"]


def _build_wheel(out: Path) -> Path:
    """A wheel of one empty module, written as the wheel format says (PEP 427)."""
    name = "rehearsal_probe-1.0-py3-none-any.whl"
    files = {"rehearsal_probe/__init__.py": b"",
             "rehearsal_probe-1.0.dist-info/METADATA":
                 b"Metadata-Version: 2.1\nName: rehearsal-probe\nVersion: 1.0\n",
             "rehearsal_probe-1.0.dist-info/WHEEL":
                 b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                 b"Tag: py3-none-any\n"}
    record = "".join(f"{path},sha256={_b64(data)},{len(data)}\n" for path, data in files.items())
    files["rehearsal_probe-1.0.dist-info/RECORD"] = (
        record + "rehearsal_probe-1.0.dist-info/RECORD,,\n").encode()
    out.mkdir(parents=True)
    with zipfile.ZipFile(out / name, "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return out / name


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
