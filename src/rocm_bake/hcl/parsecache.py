"""A content-addressed cache of parsed HCL trees (like Python's ``.pyc`` files).

Parsing with python-hcl2 costs about 0.4 s for rocm-bake.hcl; loading a cached tree costs a
few milliseconds. Entries are keyed by the file's text and the parser's version, written
atomically, and never trusted blindly: an unreadable entry is parsed again and replaced.
The cache is an optimisation only — with no writable cache directory everything still works.
Set ``ROCM_BAKE_CACHE_DIR`` to move it, or to ``off`` to disable it.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

from hcl2 import version as hcl2_version
from hcl2.rules.tokens import StaticStringToken, StringToken

FORMAT = "1"


def cache_dir() -> Path | None:
    configured = os.environ.get("ROCM_BAKE_CACHE_DIR")
    if configured == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rocm-bake" / "parse"


def _key(text: str) -> str:
    return hashlib.sha256(f"{FORMAT}\0{hcl2_version.__version__}\0{text}".encode()).hexdigest()


def load(text: str) -> Any | None:
    """The cached tree for this text, or None."""
    directory = cache_dir()
    if directory is None:
        return None
    try:
        data = (directory / f"{_key(text)}.pickle").read_bytes()
        return pickle.loads(data)
    except Exception:  # a missing or damaged entry is simply parsed again
        return None


def store(text: str, tree: Any) -> None:
    """Write the tree for this text, atomically; a failure to write is not an error."""
    directory = cache_dir()
    if directory is None:
        return
    buffer = io.BytesIO()
    try:
        _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(tree)
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            handle.write(buffer.getvalue())
        os.replace(tmp, directory / f"{_key(text)}.pickle")
    except (OSError, pickle.PicklingError, RecursionError):
        with contextlib.suppress(Exception):
            os.unlink(tmp)


class _Pickler(pickle.Pickler):
    """python-hcl2 makes its token classes at run time; pickle them by grammar name."""

    def reducer_override(self, obj: Any) -> Any:
        cls = type(obj)
        if not isinstance(obj, StringToken) or cls in (StringToken, StaticStringToken):
            return NotImplemented
        if isinstance(obj, StaticStringToken):
            key: tuple[str, ...] = ("static", cls.lark_name(), cls._default_value)
        else:
            key = ("string", cls.lark_name())
        return _new_token, (key,), dict(obj.__dict__)


def _new_token(key: tuple[str, ...]) -> Any:
    if key[0] == "static":
        cls = StaticStringToken.__class_getitem__((key[1], key[2]))
    else:
        cls = StringToken.__class_getitem__(key[1])
    return cls.__new__(cls)
