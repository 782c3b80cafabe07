"""What went wrong reading the network, one line each (exit status 2), URLs masked."""

from __future__ import annotations

import http.client

from rocm_bake.core import redact
from rocm_bake.core.errors import RocmBakeError

MB = 1024 * 1024


class NetError(RocmBakeError):
    """An answer could not be had within its bounds; the message says which and where."""


class TimeoutExceededError(NetError):
    """The request's (or the run's) deadline passed before the answer was read whole."""

    def __init__(self, seconds: float, url: str) -> None:
        self.seconds = seconds
        super().__init__(f"timed out after {duration(seconds)} reading {redact.text(url)}")


class TooLargeError(NetError):
    """An answer, or an archive's member, larger than it may be."""

    def __init__(self, limit: int, url: str, what: str = "answer") -> None:
        self.limit = limit
        super().__init__(f"{what} over {megabytes(limit)} reading {redact.text(url)}")


class ConnectionFailedError(NetError):
    """No answer: refused, reset, cut short; the message is the short reason."""


class RedirectLoopError(NetError):
    """More redirects than a request may follow."""


def duration(seconds: float) -> str:
    """``seconds`` as messages say it: ``5 s`` (a limit cut by a few microseconds of a run's
    deadline still reads as the limit), ``0.5 s``, ``120 s``."""
    return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.3g} s"


def megabytes(count: int) -> str:
    """``count`` bytes in MB as messages say it (``64 MB``, ``0.5 MB``)."""
    return f"{round(count / MB, 1):g} MB"


def short_reason(error: object) -> str:
    """Why a connection gave no answer, in a few words: the exception's class name for a
    cut-short answer."""
    if isinstance(error, http.client.IncompleteRead | http.client.RemoteDisconnected):
        return type(error).__name__
    if isinstance(error, ConnectionRefusedError):
        return "Connection refused"
    if isinstance(error, ConnectionResetError):
        return "Connection reset"
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text[:160]
