"""Upstream's files are read, never copied into the repository: no file under tests/ or src/
has the bytes of an upstream file the tests or the recorder read (every member of the release
sdists tests/upstream_sdists.py downloads, and every file lint's recorder recorded)."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from rocm_bake_checks.lint import upstream
from tests import upstream_sdists
from tests.conftest import ROOT

# Files this short say too little to be a copy of anything (an empty __init__.py, a newline).
SHORTEST = 64


def repository_files() -> list[str]:
    """Every file of tests/ and src/ git keeps or would keep (tracked, and untracked but not
    ignored)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard", "--", "tests", "src"], cwd=ROOT,
                            check=True, capture_output=True).stdout.decode()
    return sorted({p for p in listed.split("\0") if p and (ROOT / p).is_file()})


def upstream_files() -> dict[str, str]:
    """sha256 -> where upstream has it, for every file the tests and the recorder read."""
    out: dict[str, str] = {}
    for sdist in upstream_sdists.ALL:
        top = upstream_sdists.tree(sdist)
        for path in upstream_sdists.members(sdist):
            if path.stat().st_size >= SHORTEST:
                out[upstream_sdists.sha256(path)] = f"{sdist.filename}:{path.relative_to(top)}"
    answers = json.loads(upstream.SNAPSHOT.read_text(encoding="utf-8"))["answers"]
    for key, answer in answers.items():
        body = answer["value"].get("body")
        if isinstance(body, str) and len(body.encode()) >= SHORTEST:
            out.setdefault(hashlib.sha256(body.encode()).hexdigest(), key)
    return out


def copies(root: Path, paths: list[str], upstreams: dict[str, str]) -> list[str]:
    """``path = where upstream has it`` for each of ``paths`` (under ``root``) that is a copy."""
    return [f"{path} = {upstreams[digest]}" for path in paths
            if (root / path).stat().st_size >= SHORTEST
            and (digest := upstream_sdists.sha256(root / path)) in upstreams]


@pytest.fixture(scope="module")
def upstreams() -> dict[str, str]:
    found = upstream_files()
    assert len(found) > 1000, len(found)       # the sdists were read
    return found


def test_no_file_under_tests_or_src_is_an_upstream_file(upstreams: dict[str, str]) -> None:
    assert copies(ROOT, repository_files(), upstreams) == []


def test_a_copy_is_found(upstreams: dict[str, str], tmp_path: Path) -> None:
    """vLLM's docker/Dockerfile.rocm_base where the repository kept it before, and AITER's
    setup.py as recorded: both named."""
    sdist = upstream_sdists.VLLM["0.28.0"]
    kept = tmp_path / "tests/lint/fixtures/upstream/Dockerfile.rocm_base"
    kept.parent.mkdir(parents=True)
    kept.write_bytes(upstream_sdists.member(sdist, "docker/Dockerfile.rocm_base").read_bytes())
    aiter = tmp_path / "src/setup.py"
    aiter.parent.mkdir(parents=True)
    aiter.write_text(upstream_sdists.recorded()["ROCm/aiter/v0.1.19/setup.py"], encoding="utf-8")
    assert copies(tmp_path, ["src/setup.py", "tests/lint/fixtures/upstream/Dockerfile.rocm_base"],
                  upstreams) == [
        "src/setup.py = GET https://raw.githubusercontent.com/ROCm/aiter/v0.1.19/setup.py "
        "[text/plain]",
        "tests/lint/fixtures/upstream/Dockerfile.rocm_base = "
        "vllm-0.28.0.tar.gz:docker/Dockerfile.rocm_base"]
