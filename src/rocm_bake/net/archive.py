"""A gzip'd tar read as a stream, member by member, within bounds: what it expands to in all
(members skipped count too, and at most ``ratio`` times its compressed size: a small archive
that inflates to gigabytes is stopped early), each member kept at most ``member_bytes``, the
members kept at most ``kept_bytes`` together. Nothing is read whole before it is measured: a
2 GiB member in a 2 MB archive costs the time to inflate ``ratio`` times 2 MB, not 2 GiB of
memory."""

from __future__ import annotations

import tarfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO

from rocm_bake.net.body import CHUNK, Window
from rocm_bake.net.errors import NetError, TimeoutExceededError, TooLargeError, megabytes

MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    member_bytes: int = 16 * MB     # one member kept
    kept_bytes: int = 128 * MB      # the members kept, together
    total_bytes: int = 1024 * MB    # everything the archive expands to
    ratio: int = 100                # expanded / compressed, past the first ``ratio_floor``
    ratio_floor: int = 64 * MB


@dataclass
class Members:
    """The members kept (path -> bytes) and the wanted ones over ``member_bytes`` (path ->
    their size: reading one is an error its reader reports)."""

    kept: dict[str, bytes] = field(default_factory=dict)
    oversized: dict[str, int] = field(default_factory=dict)


class ArchiveError(NetError):
    """Not a gzip'd tar, or one that breaks its bounds."""


def read(fileobj: IO[bytes], size: int, where: str, wanted: Callable[[str], bool],
         limits: Limits = Limits(), window: Window | None = None) -> Members:
    """The members of the gzip'd tar ``fileobj`` (``size`` bytes compressed) whose names
    ``wanted`` accepts, regular files only; ``where`` names it in messages."""
    stream = _Inflated(fileobj, where, min(limits.total_bytes,
                                            max(limits.ratio_floor, limits.ratio * size)),
                       limits.ratio, window)
    out = Members()
    kept = 0
    try:
        with tarfile.open(fileobj=stream, mode="r|") as archive:  # type: ignore[call-overload]
            for member in archive:
                if not member.isfile() or not wanted(member.name):
                    continue
                if member.size > limits.member_bytes:
                    out.oversized[member.name] = member.size
                    continue
                kept += member.size
                if kept > limits.kept_bytes:
                    raise TooLargeError(limits.kept_bytes, where, "its files to keep")
                handle = archive.extractfile(member)
                if handle is not None:
                    out.kept[member.name] = handle.read(limits.member_bytes + 1)
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise ArchiveError(f"{where}: not a gzip'd tar ({exc})") from None
    return out


class _Inflated:
    """The decompressed bytes of a gzip stream, counted against ``limit`` and the clock."""

    def __init__(self, raw: IO[bytes], where: str, limit: int, ratio: int,
                 window: Window | None) -> None:
        self._raw = raw
        self.where = where
        self.limit = limit
        self.ratio = ratio
        self.window = window
        self._inflater = zlib.decompressobj(wbits=31)
        self._pending = b""
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        want = CHUNK if size is None or size < 0 else size
        out = bytearray()
        while len(out) < want:
            piece = self._step(want - len(out))
            if not piece:
                break
            out += piece
        self.count += len(out)
        if self.count > self.limit:
            raise ArchiveError(f"{self.where}: expands to over {megabytes(self.limit)} (at "
                               f"most {self.ratio} times its size), not read further")
        if self.window is not None and self.window.passed():
            raise TimeoutExceededError(self.window.seconds, self.where)
        return bytes(out)

    def _step(self, room: int) -> bytes:
        while True:
            if self._inflater.eof:
                rest = self._inflater.unused_data
                if not rest:
                    return b""
                self._inflater = zlib.decompressobj(wbits=31)
                self._pending = rest
            data = self._pending or self._inflater.unconsumed_tail
            self._pending = b""
            if not data:
                data = self._raw.read(CHUNK)
                if not data:
                    piece = self._inflater.flush()
                    if not self._inflater.eof:
                        raise EOFError("compressed file ended before the end-of-stream marker")
                    return piece
            piece = self._inflater.decompress(data, min(room, CHUNK))
            if piece:
                return piece
