"""Politeness: at most ``PER_HOST`` requests or git operations in flight per upstream host,
whatever the worker count; independent hosts proceed in parallel."""

from __future__ import annotations

import contextlib
import threading
import urllib.parse
from collections.abc import Iterator

PER_HOST = 12


class HostLimits:
    def __init__(self, per_host: int = PER_HOST) -> None:
        self.per_host = per_host
        self._slots: dict[str, threading.BoundedSemaphore] = {}
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def slot(self, url: str) -> Iterator[None]:
        host = urllib.parse.urlsplit(url).netloc.rpartition("@")[2] or url
        with self._lock:
            semaphore = self._slots.setdefault(host, threading.BoundedSemaphore(self.per_host))
        with semaphore:
            yield
