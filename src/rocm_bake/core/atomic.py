"""Write a file atomically: a temporary file in the same directory, then ``os.replace``.

A reader sees the old content or the new one, never a torn file, and a failed write leaves no
temporary file behind. The file gets ``mode`` (0644 unless told: what a plain write would give,
not the 0600 of the temporary file). The one atomic write of the project: every module that
replaces a file it owns (generated pages, snapshots, run records, caches, locks, reports) goes
through here.

Whatever is at the path stays what it is:

- a symlink is followed (the whole chain): its target is replaced atomically, the link stays;
- a character device or a FIFO (``/dev/null``, a named pipe) is written in place, as a
  shell's ``>`` would: there is no file to replace;
- a path naming one of this process's descriptors (``/dev/stdout``, ``/proc/self/fd/2``) is
  written through that descriptor, whatever it is open on (a terminal, a pipe, a file);
- a directory, a socket or a block device is refused;

and a write that fails (a full device, a missing permission, a directory that cannot be made)
is an ``OutputError``: one line naming the path, exit status 2.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
import tempfile
from pathlib import Path

from rocm_bake.core.errors import RocmBakeError


class OutputError(RocmBakeError, OSError):
    """An output could not be written; the message names it. An OSError too: a caller for
    whom the write is best-effort (a cache) goes on as it did."""


def write_bytes(path: Path, data: bytes, *, mode: int = 0o644) -> None:
    try:
        target = _target(path)
        if target is None:
            _in_place(path, data)
        elif isinstance(target, int):
            _through(target, data)
        else:
            _replace(target, data, mode)
    except OutputError:
        raise
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None


def write_text(path: Path, text: str, *, mode: int = 0o644) -> None:
    """``text`` as UTF-8 into ``path`` (its directory is created if missing)."""
    write_bytes(path, text.encode("utf-8"), mode=mode)


def _target(path: Path) -> Path | int | None:
    """The regular file to replace for ``path`` (a symlink's final target); or the open
    descriptor it names (``/dev/stdout``), or None when what is there is written in place
    (a device, a pipe); refuses what can be neither."""
    descriptor = _descriptor(path)
    if descriptor is not None:
        return descriptor
    try:
        found = os.stat(path)   # through the symlinks
    except FileNotFoundError:   # nothing there yet (or a link to nothing): create its target
        return Path(os.path.realpath(path)) if path.is_symlink() else path
    kind = found.st_mode
    if stat.S_ISCHR(kind) or stat.S_ISFIFO(kind):
        return None
    if stat.S_ISREG(kind):
        return Path(os.path.realpath(path)) if path.is_symlink() else path
    what = "a directory" if stat.S_ISDIR(kind) else "a socket" if stat.S_ISSOCK(kind) else \
        "a block device" if stat.S_ISBLK(kind) else "not a regular file"
    raise OutputError(f"cannot write {path}: it is {what}, not a file (left as it is)")


_DESCRIPTOR = re.compile(r"^/(?:proc/(?:self|thread-self|(?P<pid>\d+))|dev)/fd/(?P<fd>\d+)$")


def _descriptor(path: Path) -> int | None:
    """The descriptor of this process that ``path`` or a link on its way names
    (``/dev/stdout`` -> ``/proc/self/fd/1``): that file is shared with whoever opened it, so
    it is written through that descriptor (its offset, no truncation), never replaced."""
    current = os.path.abspath(path)
    for _ in range(40):
        found = _DESCRIPTOR.match(current)
        if found and found["pid"] in (None, str(os.getpid())):
            return int(found["fd"])
        if not os.path.islink(current):
            return None
        current = os.path.normpath(os.path.join(os.path.dirname(current),
                                                os.readlink(current)))
    return None


def _in_place(path: Path, data: bytes) -> None:
    """A device or a pipe: opened and written, nothing to truncate or replace."""
    with open(path, "wb") as handle:
        handle.write(data)


def _through(descriptor: int, data: bytes) -> None:
    """Written after what this process's own streams hold, at the descriptor's offset."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view):]


def _replace(target: Path, data: bytes, mode: int) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
