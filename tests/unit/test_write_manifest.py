"""dockerfiles/scripts/write-manifest.py, the versions manifest of images and wheel exports."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

SCRIPT = ROOT / "dockerfiles" / "scripts" / "write-manifest.py"


def run(out: Path, *dirs: Path,
        pins: str = '{"A_COMMIT": "abc"}') -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), str(out), *map(str, dirs)],
                          env={"ROCM_BAKE_PINS": pins, "ROCM_PATH": "/nonexistent"},
                          capture_output=True, text=True, check=False)


def test_every_pin_and_every_wheel_with_its_sha256(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    wheel = tmp_path / "a" / "rb_core-1.2.3-cp311-cp311-linux_x86_64.whl"
    wheel.write_bytes(b"wheel")
    out = tmp_path / "m" / "versions.json"
    assert run(out, tmp_path / "a", tmp_path / "missing").returncode == 0
    data = json.loads(out.read_text())
    assert data["pins"] == {"A_COMMIT": "abc"} and data["rocm"] is None
    assert data["wheels"] == [{"file": wheel.name, "name": "rb_core", "version": "1.2.3",
                               "sha256": hashlib.sha256(b"wheel").hexdigest()}]


def test_an_existing_manifest_keeps_its_wheels(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}-1.0-py3-none-any.whl").write_bytes(name.encode())
    out = tmp_path / "versions.json"
    run(out, tmp_path / "a")
    run(out, tmp_path / "b", pins='{"B": "1"}')
    data = json.loads(out.read_text())
    assert [w["name"] for w in data["wheels"]] == ["a", "b"] and data["pins"] == {"B": "1"}


def test_pins_that_are_not_json_exit_2(tmp_path: Path) -> None:
    result = run(tmp_path / "v.json", tmp_path, pins="{nope")
    assert result.returncode == 2 and "ROCM_BAKE_PINS is not JSON" in result.stderr


def test_an_abbreviated_pin_gets_the_full_commit_fetch_source_resolved(tmp_path: Path) -> None:
    (tmp_path / "torch").mkdir()
    full = "733fca1" + "0" * 33
    (tmp_path / "torch" / "rocm-bake-resolved.tsv").write_text(
        f"https://github.com/ROCm/pytorch.git\t733fca1\t{full}\n"
        f"https://github.com/other/repo.git\t669b31a\t{'669b31a' + '1' * 33}\n")
    pins = json.dumps({"PYTORCH_REPO": "https://github.com/ROCm/pytorch.git",
                       "PYTORCH_COMMIT": "733fca1", "TRITON_REPO": "https://github.com/ROCm/"
                       "triton.git", "TRITON_COMMIT": "669b31a"})
    out = tmp_path / "versions.json"
    assert run(out, tmp_path / "torch", pins=pins).returncode == 0
    data = json.loads(out.read_text())
    assert data["resolved"] == {"PYTORCH_COMMIT": full}
    assert data["pins"]["PYTORCH_COMMIT"] == "733fca1"


def test_no_abbreviated_pin_no_resolved_key(tmp_path: Path) -> None:
    out = tmp_path / "versions.json"
    assert run(out, tmp_path).returncode == 0
    assert "resolved" not in json.loads(out.read_text())
