"""Fixtures for the documentation tests: a built site, a scratch copy of the checkout."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, missing

SCREENSHOTS = ROOT / "build" / "docs-screenshots"
_NOT_COPIED = shutil.ignore_patterns(".git", ".venv", ".nox", "site", "build", "dist", "fleet-logs",
                                     "__pycache__", ".mypy_cache", ".ruff_cache",
                                     ".pytest_cache", "*.egg-info")


def require_mkdocs() -> None:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        missing("mkdocs-material", "bash scripts/docs-deps.sh")


def mkdocs_build(root: Path, site: Path,
                 prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of a checkout's mkdocs.yml into ``site``."""
    argv = [*prefix, sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
            str(root / "mkdocs.yml"), "--site-dir", str(site)]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=300,
                          check=False)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The committed docs of this checkout, built with --strict (nothing regenerated)."""
    require_mkdocs()
    site = tmp_path_factory.mktemp("site")
    proc = mkdocs_build(ROOT, site)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return site


@pytest.fixture
def checkout(tmp_path: Path) -> Iterator[Path]:
    """A scratch copy of the checkout (sources, docs, bake file), to change freely."""
    require_mkdocs()
    copy = tmp_path / "checkout"
    shutil.copytree(ROOT, copy, ignore=_NOT_COPIED, symlinks=True)
    yield copy
