"""``inv lock``'s metadata recording reads the index through rocm_bake.net: the PEP 503 page,
the PEP 658 file when there is one, else the wheel's METADATA by byte ranges (a server that
ignores ranges, as Python's file server does, is read only up to the range's end), on a real
loopback index (tests/lint/pyindex.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_bake_checks.lint import lockmeta
from rocm_bake_checks.lint.findings import LintError
from tests.lint import pyindex


def _lock(tmp_path: Path, wheel: Path, version: str = "1.0") -> Path:
    lock = tmp_path / "p.txt"
    lock.write_text(f"demo-pkg=={version} \\\n    --hash=sha256:{pyindex.sha256(wheel)}\n")
    return lock


def test_the_metadata_is_read_from_the_wheel_by_ranges(tmp_path: Path) -> None:
    root = tmp_path / "index"
    wheel = pyindex.make_wheel(root / "files", "demo-pkg", "1.0", ["numpy>=2"])
    pyindex.write_index(root, [wheel])
    snapshot = tmp_path / "metadata.json"
    with pyindex.serve(root) as index:
        assert lockmeta.record([_lock(tmp_path, wheel)], snapshot, index) == 1
    dist = lockmeta.load(snapshot)["demo-pkg==1.0"]
    assert dist.requires == ("numpy>=2",)
    assert dist.source.endswith(f"/files/{wheel.name}#METADATA")


def test_a_pep_658_file_is_read_when_there_is_one(tmp_path: Path) -> None:
    root = tmp_path / "index"
    wheel = pyindex.make_wheel(root / "files", "demo-pkg", "1.0")
    pyindex.write_index(root, [wheel])
    (root / "files" / f"{wheel.name}.metadata").write_text(
        "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\nRequires-Dist: six\n")
    snapshot = tmp_path / "metadata.json"
    with pyindex.serve(root) as index:
        lockmeta.record([_lock(tmp_path, wheel)], snapshot, index)
    assert lockmeta.load(snapshot)["demo-pkg==1.0"].requires == ("six",)


def test_a_project_the_index_lacks_is_one_line(tmp_path: Path) -> None:
    root = tmp_path / "index"
    wheel = pyindex.make_wheel(tmp_path / "elsewhere", "demo-pkg", "1.0")
    (root / "simple").mkdir(parents=True)
    with pyindex.serve(root) as index, \
            pytest.raises(LintError, match=r"^http://127\.0\.0\.1:\d+/simple/demo-pkg/: HTTP 404 "):
        lockmeta.record([_lock(tmp_path, wheel)], tmp_path / "metadata.json", index)
