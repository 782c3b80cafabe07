"""A content-addressed cache of parsed HCL trees (like Python's ``.pyc`` files).

Parsing with python-hcl2 costs about 0.4 s for rocm-bake.hcl; loading a cached tree costs a
few milliseconds, and imports neither python-hcl2 nor lark: the cache holds the model's own
tree (``tree``). Entries are named by a checksum of the file's text, this format and the
parser's version, written atomically, and never trusted blindly: an entry holds the text it was
parsed from and serves that text only, and an unreadable entry is parsed again and replaced.
The cache is an optimisation only — with no writable cache directory everything still works.
Set ``ROCM_BAKE_CACHE_DIR`` to move it, or to ``off`` to disable it.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import pickle
import zlib
from collections.abc import Iterator
from importlib.machinery import PathFinder
from pathlib import Path

from rocm_bake.model.hcl.tree import Rule

# 3: the model's own tree (2 pickled python-hcl2's, token classes once each by grammar name)
FORMAT = "3"


def cache_dir() -> Path | None:
    configured = os.environ.get("ROCM_BAKE_CACHE_DIR")
    if configured == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rocm-bake" / "parse"


def _path(directory: Path, text: str) -> Path:
    """A checksum names the entry (a match is checked against the text it holds), so that
    hashlib's loading of OpenSSL is not paid on every load."""
    key = zlib.crc32(text.encode(), zlib.crc32(_stamp()))
    return directory / f"{key:08x}-{len(text)}.pickle"


def _stamp() -> bytes:
    """What an entry must have been made by: this format and this parser."""
    return FORMAT.encode() + b"\0" + _parser_version()


@functools.cache
def _parser_version() -> bytes:
    """python-hcl2's version module, read as text: importing it would import the parser."""
    spec = PathFinder.find_spec("hcl2")
    if spec is None or not spec.submodule_search_locations:
        return b""
    version = Path(next(iter(spec.submodule_search_locations))) / "version.py"
    try:
        return version.read_bytes()
    except OSError:
        return b""


def load(text: str) -> Rule | None:
    """The cached tree for this text, or None."""
    directory = cache_dir()
    if directory is None:
        return None
    try:
        data = _path(directory, text).read_bytes()
        with _collector_paused():
            stamp, source, tree = pickle.loads(data)
    except Exception:  # a missing or damaged entry is simply parsed again
        return None
    if stamp != _stamp() or source != text or not isinstance(tree, Rule):
        return None
    return tree


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Unpickling a tree makes thousands of objects that all stay alive; the cyclic garbage
    collector would walk them again and again for nothing while they are made."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def store(text: str, tree: Rule) -> None:
    """Write the tree for this text, atomically; a failure to write is not an error."""
    directory = cache_dir()
    if directory is None:
        return
    from rocm_bake.core import atomic  # noqa: PLC0415  # tempfile & co. only when writing

    with contextlib.suppress(OSError, pickle.PicklingError, RecursionError):
        data = pickle.dumps((_stamp(), text, tree), protocol=pickle.HIGHEST_PROTOCOL)
        atomic.write_bytes(_path(directory, text), data)
