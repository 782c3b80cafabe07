"""The scripts the recipes run inside the images (dockerfiles/scripts), run for real on real
files: the constraints file, dropped requirements and the runtime manifest check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "dockerfiles" / "scripts"


def script(name: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPTS / name), *map(str, args)],
                          capture_output=True, text=True, check=False)


def test_constraints_pin_every_built_wheel_and_refuse_two_versions(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for name in ("torch-2.12.0a0+git6bbd260-cp312-cp312-linux_x86_64.whl",
                 "amd_aiter-0.1.19-cp312-cp312-linux_x86_64.whl"):
        (wheels / name).write_bytes(b"")
    out = tmp_path / "constraints.txt"
    assert script("write-constraints.py", out, wheels, tmp_path / "missing").returncode == 0
    assert out.read_text() == "amd-aiter==0.1.19\ntorch==2.12.0a0+git6bbd260\n"
    other = tmp_path / "other"
    other.mkdir()
    (other / "torch-2.11.0-cp312-cp312-linux_x86_64.whl").write_bytes(b"")
    failed = script("write-constraints.py", out, other)
    assert failed.returncode == 1 and "torch is both" in failed.stderr
    assert out.read_text() == "amd-aiter==0.1.19\ntorch==2.12.0a0+git6bbd260\n"


def test_drop_requirement_removes_the_line_and_fails_on_a_name_not_there(tmp_path: Path) -> None:
    reqs = tmp_path / "rocm_core.txt"
    reqs.write_text("# the AMD analogue of cupy-cuda12x\n\ncupy-rocm-7-0\nnumpy<=2.2.6\n")
    assert script("drop-requirement.py", reqs, "cupy_rocm_7_0").returncode == 0
    assert reqs.read_text() == "# the AMD analogue of cupy-cuda12x\n\nnumpy<=2.2.6\n"
    failed = script("drop-requirement.py", reqs, "cupy-rocm-7-0")
    assert failed.returncode == 1 and "does not require cupy-rocm-7-0" in failed.stderr


def test_set_requirement_replaces_exactly_one_line_or_fails(tmp_path: Path) -> None:
    # LMCache's requirements/common.txt, as vLLM v0.33.0's Dockerfile.rocm_72 rewrites it
    reqs = tmp_path / "common.txt"
    reqs.write_text("# nixl uses numba which requires numpy<=2.2.6\nnumpy<=2.2.6\nnumba\n")
    assert script("set-requirement.py", reqs, "numpy<=2.2.6", "numpy<=2.3.5").returncode == 0
    assert reqs.read_text() == ("# nixl uses numba which requires numpy<=2.2.6\n"
                                "numpy<=2.3.5\nnumba\n")
    failed = script("set-requirement.py", reqs, "numpy<=2.2.6", "numpy<=2.3.5")
    assert failed.returncode == 1 and "has 0 lines 'numpy<=2.2.6', not one" in failed.stderr
    assert reqs.read_text().count("numpy<=2.3.5\n") == 1


def dist(site: Path, name: str, files: list[str]) -> None:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    record = [*files, f"{info.name}/METADATA,,", f"{info.name}/RECORD,,"]
    (info / "RECORD").write_text("".join(f"{f.split(',')[0]},,\n" for f in record))


def test_runtime_check_finds_a_file_two_distributions_own(tmp_path: Path) -> None:
    site = tmp_path / "site"
    dist(site, "cupy", ["cupy/__init__.py", "cupy/_core.so"])
    dist(site, "lmcache", ["lmcache/__init__.py"])
    clean = script("check-runtime.py", "--path", site)
    assert clean.returncode == 0, clean.stderr
    assert clean.stdout.startswith("runtime: 2 distributions, 0 file(s) with two owners")
    dist(site, "cupy-rocm-7-0", ["cupy/__init__.py", "cupy/__pycache__/x.pyc"])
    clash = script("check-runtime.py", "--path", site)
    assert clash.returncode == 1
    assert clash.stderr == "check-runtime: cupy/__init__.py is owned by cupy, cupy-rocm-7-0\n"


def test_runtime_check_requires_every_expected_module(tmp_path: Path) -> None:
    site = tmp_path / "site"
    dist(site, "amdsmi", ["amdsmi/__init__.py"])
    ok = script("check-runtime.py", "--path", site, "--expect", "json")
    assert ok.returncode == 0 and "expected modules (json): present" in ok.stdout
    missing = script("check-runtime.py", "--path", site, "--expect", "json",
                     "rocm_bake_no_such_module")
    assert missing.returncode == 1
    assert missing.stderr.startswith("check-runtime: expected module rocm_bake_no_such_module "
                                     "does not import: ModuleNotFoundError")


def test_runtime_check_allows_the_stray_files_pypi_wheels_share(tmp_path: Path) -> None:
    """tests/__init__.py and LICENSE at the top of site-packages may have several owners; any
    other file under tests/ (or a LICENSE inside a package) may not."""
    site = tmp_path / "site"
    dist(site, "alpha", ["alpha/__init__.py", "tests/__init__.py", "LICENSE"])
    dist(site, "beta", ["beta/__init__.py", "tests/__init__.py", "LICENSE"])
    ok = script("check-runtime.py", "--path", site)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith(
        "runtime: 2 distributions, 0 file(s) with two owners; allowed stray LICENSE of alpha, "
        "beta; allowed stray tests/__init__.py of alpha, beta; expected modules (none)")
    dist(site, "gamma", ["gamma/__init__.py", "tests/conftest.py", "alpha/LICENSE"])
    dist(site, "delta", ["tests/conftest.py", "alpha/LICENSE"])
    clash = script("check-runtime.py", "--path", site)
    assert clash.returncode == 1
    assert clash.stderr == ("check-runtime: alpha/LICENSE is owned by delta, gamma\n"
                            "check-runtime: tests/conftest.py is owned by delta, gamma\n")
