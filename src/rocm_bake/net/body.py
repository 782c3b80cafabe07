"""One answer's body, read as it streams in: every read within the answer's deadline (on an
injected clock, so a body that trickles in is cut off however it trickles), the whole of it
within its size cap (counted after gzip decoding too, which is streamed with a bound on each
step's output: a small gzip body never inflates past the cap in memory)."""

from __future__ import annotations

import http.client
import zlib
from collections.abc import Callable, Iterator

from rocm_bake.core.clock import SYSTEM, Clock
from rocm_bake.net.errors import (
    ConnectionFailedError,
    TimeoutExceededError,
    TooLargeError,
    short_reason,
)

CHUNK = 65536
MAX_BYTES = 64 * 1024 * 1024   # one answer, unless its reader says otherwise

Read = Callable[[int], bytes]


class Window:
    """The time one request may take: ``seconds`` from now on ``clock`` (the request's own
    limit, or what is left of the run's when that ends first; ``seconds`` is what messages
    name). ``expire`` marks it passed from elsewhere (a watchdog on the real clock)."""

    def __init__(self, seconds: float, clock: Clock = SYSTEM) -> None:
        self.seconds = seconds
        self.clock = clock
        self.end = clock.monotonic() + seconds
        self.expired = False

    def expire(self) -> None:
        self.expired = True

    def left(self) -> float:
        return self.end - self.clock.monotonic()

    def passed(self) -> bool:
        return self.expired or self.left() <= 0


class Reader:
    """The body behind ``read`` (a ``read1``: whatever is there, at most N bytes; b"" at
    the end) for ``url``: decoded from gzip when ``gzip``, at most ``max_bytes`` after
    decoding, every read within ``window``."""

    def __init__(self, read: Read, url: str, window: Window, max_bytes: int = MAX_BYTES,
                 gzip: bool = False) -> None:
        self._read = read
        self.url = url
        self.window = window
        self.max_bytes = max_bytes
        self._inflate = _Gunzip(url) if gzip else None
        self.count = 0      # bytes given out so far (decoded)

    def chunks(self) -> Iterator[bytes]:
        for raw in self._raw():
            for chunk in (self._inflate.feed(raw, self.max_bytes - self.count + 1)
                          if self._inflate else (raw,)):
                self._take(chunk)
                yield chunk
        if self._inflate:
            self._inflate.finish()

    def read(self) -> bytes:
        return b"".join(self.chunks())

    def _raw(self) -> Iterator[bytes]:
        raw_count = 0
        while True:
            self._check()
            try:
                chunk = self._read(CHUNK)
            except (http.client.HTTPException, OSError, ValueError) as exc:
                self._check()   # a watchdog's shutdown is the deadline's, not the server's
                raise ConnectionFailedError(short_reason(exc)) from None
            self._check()
            if not chunk:
                return
            raw_count += len(chunk)
            if raw_count > self.max_bytes:
                raise TooLargeError(self.max_bytes, self.url)
            yield chunk

    def _take(self, chunk: bytes) -> None:
        self.count += len(chunk)
        if self.count > self.max_bytes:
            raise TooLargeError(self.max_bytes, self.url)

    def _check(self) -> None:
        if self.window.passed():
            raise TimeoutExceededError(self.window.seconds, self.url)


class _Gunzip:
    """gzip decoding in bounded steps (concatenated members too)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._inflater = zlib.decompressobj(wbits=31)
        self._open = False     # a member begun and not ended

    def feed(self, data: bytes, room: int) -> Iterator[bytes]:
        """The decoded bytes of ``data``; stops (the caller raises) once past ``room``."""
        given = 0
        full = False    # the last step filled its output: more may be pending without input
        while (data or full) and given <= room:
            self._open = True
            try:
                out = self._inflater.decompress(data, CHUNK)
            except zlib.error as exc:
                raise ConnectionFailedError(f"bad gzip body ({exc})") from None
            given += len(out)
            full = len(out) == CHUNK
            if out:
                yield out
            if self._inflater.eof:
                self._open = full = False
                data = self._inflater.unused_data
                self._inflater = zlib.decompressobj(wbits=31)
            else:
                data = self._inflater.unconsumed_tail

    def finish(self) -> None:
        if self._open:
            raise ConnectionFailedError("bad gzip body (cut short)")
