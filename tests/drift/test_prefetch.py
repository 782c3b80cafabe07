"""A prefetched answer is asked once, and explained to the check that uses it as if that check
had asked: its outcome, or its error."""

from __future__ import annotations

from typing import Any

import pytest

from rocm_bake_checks.drift.fetch import Deadline, Fetcher, UnavailableError
from rocm_bake_checks.drift.model import Explanation
from rocm_bake_checks.drift.snapshot import Snapshot


def counted(answer: Any = "refs", error: str = "") -> tuple[list[int], Any]:
    calls: list[int] = []

    def compute() -> tuple[Any, str]:
        calls.append(1)
        if error:
            raise UnavailableError(error)
        return answer, "git ls-remote"
    return calls, compute


def test_the_first_asker_is_told_how_the_prefetch_was_answered() -> None:
    fetcher = Fetcher(Deadline(60.0))
    calls, compute = counted()
    fetcher.prefetch("git ls-remote u", compute)
    first, second = Explanation(), Explanation()
    assert fetcher.ask("git ls-remote u", compute, first) == "refs"
    assert fetcher.ask("git ls-remote u", compute, second) == "refs"
    assert calls == [1]
    assert [q.outcome for q in first.queries] == ["git ls-remote"]
    assert [q.outcome for q in second.queries] == ["asked earlier in this run"]


def test_a_prefetch_error_reaches_the_asker() -> None:
    fetcher = Fetcher(Deadline(60.0))
    calls, compute = counted(error="git ls-remote failed for u: refused")
    fetcher.prefetch("git ls-remote u", compute)
    log = Explanation()
    with pytest.raises(UnavailableError, match="refused"):
        fetcher.ask("git ls-remote u", compute, log)
    assert calls == [1]
    assert [q.outcome for q in log.queries] == ["failed: git ls-remote failed for u: refused"]


def test_an_offline_run_prefetches_nothing() -> None:
    fetcher = Fetcher(Deadline(60.0), offline=Snapshot("2026-01-01T00:00:00+00:00"))
    calls, compute = counted()
    fetcher.prefetch("git ls-remote u", compute)
    assert calls == []
