"""Write a file atomically: a temporary file in the same directory, then ``os.replace``.

A reader sees the old content or the new one, never a torn file, and a failed write leaves no
temporary file behind. The file gets ``mode`` (0644 unless told: what a plain write would give,
not the 0600 of the temporary file). The one atomic write of the project: every module that
replaces a file it owns (generated pages, snapshots, run records, caches) goes through here.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_bytes(path: Path, data: bytes, *, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_text(path: Path, text: str, *, mode: int = 0o644) -> None:
    """``text`` as UTF-8 into ``path`` (its directory is created if missing)."""
    write_bytes(path, text.encode("utf-8"), mode=mode)
