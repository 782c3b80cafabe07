"""ARCHITECTURE.md's "A component", followed to the letter in a copy of the repository: the
throwaway component (newcomponent.py) is three hand-edited files -- the bake file, its own
Dockerfile, the consumer Dockerfile -- then ``./inv regen``; after that every check passes:
``inv lint``, ``inv build --print`` (equal to buildx's), ``inv targets``, ``inv docs --check``,
the offline drift check and the consistency tests."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tarfile
from pathlib import Path

import pytest

from tests.buildx.oracle import oracle
from tests.components import newcomponent
from tests.conftest import ROOT, VENV_BIN, Buildx, Result, minimal_env

ARCHES = "gfx950,gfx1201,gfx1250"


def clone(into: Path) -> Path:
    """``git clone`` of this checkout, with its uncommitted files laid over it (what is being
    tested is the working tree)."""
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(into)], check=True)
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                             "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(into.with_suffix(".tar"), "w") as tar:
        for name in listed.decode().split("\0"):
            if name and (ROOT / name).is_file():
                tar.add(ROOT / name, arcname=name)
    with tarfile.open(into.with_suffix(".tar")) as tar:
        tar.extractall(into, filter="data")
    return into


def run(root: Path, *args: str, timeout: float = 900) -> Result:
    env = {"PYTHONPATH": os.pathsep.join([str(root / "src"), str(root)])}
    proc = subprocess.run([str(VENV_BIN / args[0]), *args[1:]], cwd=root, env=minimal_env(env),
                          capture_output=True, text=True, timeout=timeout, check=False)
    return Result(proc.returncode, proc.stdout, proc.stderr)


@pytest.mark.buildx
def test_a_component_is_three_hand_edits_and_one_command(buildx: Buildx,
                                                         tmp_path: Path) -> None:
    root = clone(tmp_path / "checkout")
    touched = newcomponent.apply(root)
    assert sorted(touched) == sorted([newcomponent.BAKE, newcomponent.DOCKERFILE,
                                      newcomponent.CONSUMER])

    regen = run(root, "inv", "regen")
    assert regen.returncode == 0, regen.stderr
    changed = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True,
                             text=True, check=True).stdout.split("\n")
    generated = {line[3:] for line in changed if line} - set(touched)
    assert "tests/buildx/recorded/print.json" in generated, generated
    # Its Python lock, made by regen without an index: sage-attn's inputs are triton's.
    assert "dockerfiles/locks/sage-attn.txt" in generated, generated
    lock = (root / "dockerfiles" / "locks" / "sage-attn.txt").read_text()
    assert lock.startswith("# The lock of component sage-attn "), lock[:200]

    for args in (["inv", "lint"], ["inv", "docs", "--check"], ["inv", "targets"],
                 ["inv", "version-check", "--offline",
                  "src/rocm_bake_checks/drift/snapshots/upstream.json", "--json"]):
        result = run(root, *args)
        assert result.returncode in ((0, 1) if "version-check" in args else (0,)), \
            (args, result.stdout[-2000:], result.stderr[-2000:])
        if args[1] == "targets":
            assert re.search(r"^sage-attn +gfx1250 +- ", result.stdout, re.M), result.stdout
        if "version-check" in args:
            pins = {p["name"]: p for p in json.loads(result.stdout)["pins"]}
            assert "not found" not in json.dumps(pins["SAGE_ATTN_COMMIT"]), \
                pins["SAGE_ATTN_COMMIT"]

    printed = run(root, "inv", "build", "--print", "--target", "all", "--arch", ARCHES)
    assert printed.returncode == 0, printed.stderr
    expected = oracle(buildx, ["-f", "rocm-bake.hcl", "--print", "all"], root,
                      {"GPU_ARCHS": ARCHES})
    assert expected.ok, expected.error
    assert json.loads(printed.stdout) == expected.data
    assert "sage-attn-gfx950" in expected.data["target"]

    tests = run(root, "python", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                "tests/components/test_consistency.py", "tests/lint/test_arch_table.py",
                "tests/buildx/test_recorded_print.py::test_every_case_is_recorded")
    assert tests.returncode == 0, tests.stdout[-3000:]
