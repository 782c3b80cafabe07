"""Build or serve the site with MkDocs (the checkout's mkdocs.yml), as ``inv docs`` does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rocm_bake.core import extras
from rocm_bake.core.errors import RocmBakeError, UsageError

DEFAULT_ADDR = "127.0.0.1:8000"
# Material prints a multi-line end-of-life banner on every run unless told not to.
_QUIET = {"NO_MKDOCS_2_WARNING": "1"}


def require() -> None:
    """Building or serving the site needs the docs extra (MkDocs, Material); one line if not."""
    extras.require("docs", "inv docs")


def _mkdocs(root: Path, *args: str) -> list[str]:
    require()
    return [sys.executable, "-m", "mkdocs", *args, "--config-file", str(root / "mkdocs.yml")]


def build(root: Path, site_dir: Path) -> None:
    """``mkdocs build --strict``: any warning (a broken link, a missing page) fails."""
    argv = _mkdocs(root, "build", "--strict", "--site-dir", str(site_dir))
    proc = subprocess.run(argv, cwd=root, env={**os.environ, **_QUIET}, capture_output=True,
                          text=True, check=False)
    if proc.returncode != 0:
        problems = [ln for ln in proc.stderr.splitlines() if "WARNING" in ln or "ERROR" in ln]
        detail = "; ".join(problems[:3]) or (proc.stderr.strip().splitlines() or ["?"])[-1]
        raise RocmBakeError(f"mkdocs build --strict failed: {detail}")


def check_loopback(addr: str) -> None:
    """The preview is for this machine only: refuse any address but loopback."""
    host, _, port = addr.rpartition(":")
    if host not in ("127.0.0.1", "localhost", "[::1]") or not port.isdigit():
        raise UsageError(f"--addr {addr!r}: the preview serves on loopback only "
                         "(e.g. 127.0.0.1:8000)")


def serve(root: Path, addr: str = DEFAULT_ADDR) -> None:
    """``mkdocs serve`` on a loopback address until interrupted."""
    check_loopback(addr)
    subprocess.run(_mkdocs(root, "serve", "--strict", "--dev-addr", addr), cwd=root,
                   env={**os.environ, **_QUIET}, check=False)
