"""fetch-source.sh with an abbreviated commit, against a local git repository: resolved on
its branch (recorded for the versions manifest), refused when ambiguous or not on the branch."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.bump.world import Commit, build
from tests.conftest import ROOT
from tests.drift.gitworld import git

SCRIPT = ROOT / "dockerfiles" / "scripts" / "fetch-source.sh"


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fetch-source") / "repo.git"
    build(path, [Commit("release/1.0", {"f": str(n)}) for n in range(400)]
          + [Commit("main", {"f": "main"}, "v2.0.0")])
    return path


def _fetch(upstream: Path, tmp: Path, ref: str, commit: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FETCH_SOURCE_RECORD": str(tmp / "record.tsv"),
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}
    return subprocess.run(["bash", str(SCRIPT), f"file://{upstream}", ref, commit,
                           str(tmp / "src")], capture_output=True, text=True, env=env,
                          check=False)


def test_an_abbreviation_on_its_branch_is_resolved_and_recorded(upstream: Path,
                                                                tmp_path: Path) -> None:
    full = git(upstream, "rev-parse", "release/1.0~3").strip()
    done = _fetch(upstream, tmp_path, "release/1.0", full[:9])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"{tmp_path / 'src'} {full}"
    assert (tmp_path / "record.tsv").read_text() == f"file://{upstream}\t{full[:9]}\t{full}\n"
    assert git(tmp_path / "src", "rev-parse", "HEAD").strip() == full


def test_an_ambiguous_abbreviation_fails(upstream: Path, tmp_path: Path) -> None:
    seen: dict[str, str] = {}
    short = ""
    for commit in git(upstream, "rev-list", "release/1.0").split():
        if commit[:4] in seen:
            short = commit[:4]
            break
        seen[commit[:4]] = commit
    assert short
    done = _fetch(upstream, tmp_path, "release/1.0", short)
    assert done.returncode == 1
    assert done.stderr.startswith(f"fetch-source: abbreviated commit {short} is ambiguous in "
                                  f"file://{upstream}: ")
    assert not (tmp_path / "record.tsv").exists()


def test_an_abbreviation_not_on_its_branch_fails(upstream: Path, tmp_path: Path) -> None:
    other = git(upstream, "rev-parse", "v2.0.0").strip()
    done = _fetch(upstream, tmp_path, "release/1.0", other[:10])
    assert done.returncode == 1
    assert done.stderr.strip() == (f"fetch-source: commit {other} ({other[:10]}) is not on "
                                   f"branch release/1.0 of file://{upstream}")
    assert not (tmp_path / "record.tsv").exists()


def test_an_abbreviation_needs_a_branch(upstream: Path, tmp_path: Path) -> None:
    full = git(upstream, "rev-parse", "release/1.0").strip()
    done = _fetch(upstream, tmp_path, "v2.0.0", full[:8])
    assert done.returncode == 1
    assert "'v2.0.0' is not a branch of" in done.stderr
