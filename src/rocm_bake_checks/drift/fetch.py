"""Every question asked upstream goes through one ``Fetcher``: asked once per run (even by
concurrent pins), logged for ``--explain``, recorded for ``--record``, answered from the
snapshot with ``--offline``, and never past the total deadline."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocm_bake.core import redact
from rocm_bake.net.body import Window
from rocm_bake_checks.drift.cache import DiskCache
from rocm_bake_checks.drift.model import Explanation, Query
from rocm_bake_checks.drift.snapshot import Snapshot


class UnavailableError(Exception):
    """Something could not be checked; the message is the reason, on one line."""


class Deadline(Window):
    """The whole run's time (``--deadline``), a ``Window`` every request's own is cut to."""

    def remaining(self) -> float:
        return self.left()

    def check(self) -> float:
        left = self.remaining()
        if left <= 0:
            raise UnavailableError(f"the --deadline of {self.seconds:g} s (the whole run) "
                                   "was exceeded")
        return left


Compute = Callable[[], tuple[Any, str]]


@dataclass
class _Slot:
    lock: threading.Lock
    done: bool = False
    value: Any = None
    error: str = ""
    unclaimed: str = ""   # the outcome of a prefetch nobody has asked for yet


class Fetcher:
    """Memoised, recorded or replayed answers to queries (``key`` -> JSON-able value)."""

    def __init__(self, deadline: Deadline, offline: Snapshot | None = None,
                 record: Snapshot | None = None, durable_dir: Path | None = None) -> None:
        self.deadline = deadline
        self.offline = offline
        self.record = record
        self.durable = DiskCache(durable_dir)
        self._slots: dict[str, _Slot] = {}
        self._lock = threading.Lock()
        self.cache_hits = 0
        self.requests = 0

    def count(self, from_cache: bool) -> None:
        with self._lock:
            self.requests += 1
            self.cache_hits += from_cache

    def ask(self, key: str, compute: Compute, log: Explanation, durable: bool = False) -> Any:
        """The answer to ``key``; raises UnavailableError with the reason it could not be had.

        ``durable`` answers are functions of immutable objects only (the key names commit
        ids): once computed they are kept on disk and never recomputed. Keys are kept with
        URL user-info masked, so a snapshot never holds a credential."""
        key = redact.text(key)
        if self.offline is not None:
            return self._replay(key, log)
        slot = self._slot(key)
        with slot.lock:
            if slot.done and slot.unclaimed:   # the first asker of a prefetched answer
                log.queries.append(Query(key, slot.unclaimed))
                slot.unclaimed = ""
            elif slot.done:
                log.queries.append(Query(key, "asked earlier in this run"))
            elif durable and self._load_durable(key, slot):
                log.queries.append(Query(key, "answered from the cache (immutable commits)"))
                self._keep(key, slot)
            else:
                self._compute(key, slot, compute, log)
                if durable and not slot.error:
                    self._store_durable(key, slot.value)
        if slot.error:
            raise UnavailableError(slot.error)
        return slot.value

    def prefetch(self, key: str, compute: Compute) -> None:
        """Ask ``key`` now, so that its answer is ready (or on its way) when a check asks for
        it; that check's explanation then shows how it was answered. Errors wait there too."""
        if self.offline is not None:
            return
        key = redact.text(key)
        slot = self._slot(key)
        with slot.lock:
            if not slot.done:
                log = Explanation()
                self._compute(key, slot, compute, log)
                slot.unclaimed = log.queries[-1].outcome if log.queries else ""

    def _slot(self, key: str) -> _Slot:
        with self._lock:
            return self._slots.setdefault(key, _Slot(threading.Lock()))

    def _compute(self, key: str, slot: _Slot, compute: Compute, log: Explanation) -> None:
        try:
            self.deadline.check()
            slot.value, outcome = compute()
            log.queries.append(Query(key, outcome))
        except UnavailableError as exc:
            slot.error = str(exc)
            log.queries.append(Query(key, f"failed: {exc}"))
        slot.done = True
        self._keep(key, slot)

    def _keep(self, key: str, slot: _Slot) -> None:
        if self.record is not None:
            with self._lock:
                self.record.answers[key] = ({"error": slot.error} if slot.error
                                            else {"value": slot.value})

    def _load_durable(self, key: str, slot: _Slot) -> bool:
        value = self.durable.get(key)
        if value is None:
            return False
        slot.value, slot.done = value, True
        return True

    def _store_durable(self, key: str, value: Any) -> None:
        self.durable.put(key, value)

    def _replay(self, key: str, log: Explanation) -> Any:
        assert self.offline is not None
        entry = self.offline.answers.get(key)
        if not isinstance(entry, dict):
            log.queries.append(Query(key, "not in the snapshot"))
            raise UnavailableError(f"offline: the snapshot has no answer for {key}")
        if "error" in entry:
            log.queries.append(Query(key, f"replayed failure: {entry['error']}"))
            raise UnavailableError(str(entry["error"]))
        log.queries.append(Query(key, f"replayed from the snapshot of {self.offline.recorded_at}"))
        return entry.get("value")
