"""Upstream's files are read, never copied into the repository: no file under tests/ or src/
has the bytes of an upstream file the tests or the recorder read (every member of the release
sdists tests/upstream_sdists.py downloads, and every file lint's recorder read: the sha256 it
records beside what it read), and the recorder's snapshot holds no response body."""

from __future__ import annotations

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
        out.setdefault(answer["value"]["sha256"], key)
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
    """vLLM's docker/Dockerfile.rocm_base where the repository kept it before, and a file whose
    sha256 only the recorder knows: both named."""
    sdist = upstream_sdists.VLLM["0.28.0"]
    kept = tmp_path / "tests/lint/fixtures/upstream/Dockerfile.rocm_base"
    kept.parent.mkdir(parents=True)
    kept.write_bytes(upstream_sdists.member(sdist, "docker/Dockerfile.rocm_base").read_bytes())
    other = tmp_path / "src/setup.py"
    other.parent.mkdir(parents=True)
    other.write_bytes(b"a file the recorder read" * 4)
    recorded = {**upstreams, upstream_sdists.sha256(other): "GET https://example.invalid/setup.py"}
    assert copies(tmp_path, ["src/setup.py", "tests/lint/fixtures/upstream/Dockerfile.rocm_base"],
                  recorded) == [
        "src/setup.py = GET https://example.invalid/setup.py",
        "tests/lint/fixtures/upstream/Dockerfile.rocm_base = "
        "vllm-0.28.0.tar.gz:docker/Dockerfile.rocm_base"]


def test_the_snapshots_hold_no_response_body() -> None:
    """Lint's snapshot holds what was read of each upstream file (facts, with the file's
    sha256), never its text."""
    answers = json.loads(upstream.SNAPSHOT.read_text(encoding="utf-8"))["answers"]
    bodies = [key for key, answer in answers.items() if "body" in answer.get("value", {})]
    assert bodies == []
    assert all(set(answer["value"]) == {"sha256", "value"} for answer in answers.values())
