"""A content-addressed cache of parsed HCL trees (like Python's ``.pyc`` files).

Parsing with python-hcl2 costs about 0.4 s for rocm-bake.hcl; loading a cached tree costs a
few tens of milliseconds. Entries are keyed by the file's text and the parser's version,
written atomically, and never trusted blindly: an unreadable entry is parsed again and
replaced. The cache is an optimisation only — with no writable cache directory everything
still works. Set ``ROCM_BAKE_CACHE_DIR`` to move it, or to ``off`` to disable it.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import io
import os
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hcl2 import version as hcl2_version
from hcl2.rules.tokens import StaticStringToken, StringToken

from rocm_bake import atomic

# 2: token classes are pickled once each, by grammar name (1 pickled every token by name)
FORMAT = "2"


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
        with _collector_paused():
            return pickle.loads(data)
    except Exception:  # a missing or damaged entry is simply parsed again
        return None


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Unpickling a tree makes tens of thousands of objects that all stay alive; the cyclic
    garbage collector would walk them again and again for nothing while they are made."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def store(text: str, tree: Any) -> None:
    """Write the tree for this text, atomically; a failure to write is not an error."""
    directory = cache_dir()
    if directory is None:
        return
    buffer = io.BytesIO()
    with contextlib.suppress(OSError, pickle.PicklingError, RecursionError):
        _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(tree)
        atomic.write_bytes(directory / f"{_key(text)}.pickle", buffer.getvalue())


class _Pickler(pickle.Pickler):
    """python-hcl2 makes its token classes at run time, so pickle cannot find them by name:
    each such class is pickled once, by grammar name, and the tokens themselves the ordinary
    way (no Python call per token when the tree is loaded)."""

    def reducer_override(self, obj: Any) -> Any:
        if (not isinstance(obj, type) or not issubclass(obj, StringToken)
                or obj in (StringToken, StaticStringToken)):
            return NotImplemented
        if issubclass(obj, StaticStringToken):
            default = obj._default_value  # type: ignore[attr-defined]  # set by python-hcl2
            key: tuple[str, ...] = ("static", obj.lark_name(), default)
        else:
            key = ("string", obj.lark_name())
        return _token_class, (key,)


def _token_class(key: tuple[str, ...]) -> type[StringToken]:
    if key[0] == "static":
        return StaticStringToken.__class_getitem__((key[1], key[2]))
    return StringToken.__class_getitem__(key[1])
