"""A clock the test drives: ``sleep`` returns at once, moves time forward and runs the
callbacks registered with ``on_sleep`` (what the world does while the code waits)."""

from __future__ import annotations

import threading
from collections.abc import Callable

EPOCH = 1_767_225_600.0   # 2026-01-01T00:00:00Z: a fixed wall time, so headers are exact


class ManualClock:
    def __init__(self, wall: float = EPOCH) -> None:
        self._lock = threading.Lock()
        self._wall = wall
        self._mono = 1000.0
        self.sleeps: list[float] = []
        self._callbacks: list[Callable[[float], None]] = []

    def time(self) -> float:
        with self._lock:
            return self._wall

    def monotonic(self) -> float:
        with self._lock:
            return self._mono

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self._wall += seconds
            self._mono += seconds
            self.sleeps.append(seconds)
            callbacks = list(self._callbacks)
        for callback in callbacks:
            callback(seconds)

    def on_sleep(self, callback: Callable[[float], None]) -> None:
        with self._lock:
            self._callbacks.append(callback)
