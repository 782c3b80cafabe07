"""Time as a dependency: code that waits or keeps a deadline takes a ``Clock``, so that tests
can drive time by hand instead of racing the real one."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def time(self) -> float:
        """Seconds since the epoch (wall time: compared with server-sent timestamps)."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (deadlines)."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds``."""
        ...


class SystemClock:
    """The real clock."""

    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


SYSTEM: Clock = SystemClock()


class VirtualClock:
    """Time that moves only when told (``sleep``, ``advance_to``): a simulation's clock."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start

    def time(self) -> float:
        return self._now

    def monotonic(self) -> float:
        return self._now

    def sleep(self, seconds: float) -> None:
        self._now += max(0.0, seconds)

    def advance_to(self, when: float) -> None:
        """Move to ``when`` exactly (never back)."""
        self._now = max(self._now, when)
