"""The commit a measurement or a fleet run is recorded with: the checkout's HEAD (gitpython)."""

from __future__ import annotations

from pathlib import Path

import git

SHORT = 12


def head(cwd: Path | None = None, length: int = SHORT) -> str:
    """HEAD's commit id, shortened to ``length``; "" outside a git checkout or before the first
    commit."""
    try:
        repo = git.Repo(cwd or Path.cwd(), search_parent_directories=True)
        return str(repo.head.commit.hexsha)[:length]
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, ValueError):
        return ""
