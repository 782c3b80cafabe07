"""The one on-disk JSON cache of the drift checker: ETag'd HTTP answers (``web``) and
answers about immutable commits (``fetch``). One file per key, named by its hash, holding
the key itself (a hash collision or a stray file is a miss, never a wrong answer), written
atomically. It is an optimisation only: an unreadable entry is a miss, a failed write is
ignored."""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

from rocm_bake.core import atomic


class DiskCache:
    def __init__(self, directory: Path | None) -> None:
        self.directory = directory

    def _path(self, key: str) -> Path | None:
        if self.directory is None:
            return None
        return self.directory / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".json")

    def get(self, key: str) -> Any | None:
        """The value stored under ``key``, or None."""
        path = self._path(key)
        if path is None or not path.exists():
            return None
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("key") != key:
            return None
        return entry.get("value")

    def put(self, key: str, value: Any) -> None:
        path = self._path(key)
        if path is not None:
            with contextlib.suppress(OSError):
                atomic.write_text(path, json.dumps({"key": key, "value": value}))
