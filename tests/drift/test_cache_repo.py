"""The git cache repository is laid out without a git process, and git takes it as the bare
partial clone it should be."""

from __future__ import annotations

import subprocess
from pathlib import Path

from rocm_bake_checks.drift.fetch import Deadline, Fetcher
from rocm_bake_checks.drift.sources.git import GitSource
from rocm_bake_checks.drift.web import WebSettings

URL = "https://github.com/ROCm/ROCm.git"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True,
                          text=True, check=True).stdout.strip()


def test_cache_repository_is_a_bare_partial_clone_for_git(tmp_path: Path) -> None:
    fetched = WebSettings(rewrites=(("https://github.com/", "git://127.0.0.1:9/"),)).fetched
    source = GitSource(Fetcher(Deadline(60.0)), Deadline(60.0), tmp_path, fetched)
    repo = source._repo(URL)
    assert _git(repo, "rev-parse", "--is-bare-repository") == "true"
    assert _git(repo, "config", "remote.origin.url") == "git://127.0.0.1:9/ROCm/ROCm.git"
    assert _git(repo, "config", "remote.origin.partialclonefilter") == "blob:none"
    assert _git(repo, "for-each-ref") == ""
    assert source._repo(URL) == repo   # the second use writes nothing and runs nothing
