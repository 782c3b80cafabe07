"""The live progress table of a fleet run on a terminal; plain event lines elsewhere."""

from __future__ import annotations

import sys
from typing import TextIO

from tabulate import tabulate

from rocm_bake.core.clock import SYSTEM, Clock
from rocm_bake.fleetbuild.record import RunRecord
from rocm_bake.perf.schema import duration


class Progress:
    """Redraws a table of every cell (status, node, elapsed) at most once a second on a TTY;
    otherwise prints one line per event."""

    def __init__(self, stream: TextIO | None = None, live: bool | None = None,
                 clock: Clock = SYSTEM) -> None:
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.clock = clock
        self._lines = 0
        self._last = 0.0

    def event(self, run: RunRecord, message: str) -> None:
        if self.live:
            self.draw(run, force=True)
        else:
            elapsed = self.clock.time() - run.started
            print(f"[{elapsed:7.1f}s] {message}", file=self.stream, flush=True)

    def draw(self, run: RunRecord, force: bool = False) -> None:
        if not self.live or (not force and self.clock.time() - self._last < 1.0):
            return
        self._last = now = self.clock.time()
        rows = []
        for rec in run.cells.values():
            last = rec.attempts[-1] if rec.attempts else None
            elapsed = (now if rec.status == "running" else (last.end if last else now)) - (
                last.start if last else now)
            rows.append([rec.cell, rec.status, rec.node or "-",
                         duration(elapsed) if last else "-", len(rec.attempts)])
        text = tabulate(rows, headers=["cell", "status", "node", "elapsed", "tries"])
        text += f"\n{duration(now - run.started)} elapsed"
        if self._lines:
            self.stream.write(f"\x1b[{self._lines}F\x1b[J")
        self.stream.write(text + "\n")
        self.stream.flush()
        self._lines = text.count("\n") + 1


class Silent(Progress):
    """No output at all (a simulated run)."""

    def event(self, run: RunRecord, message: str) -> None:
        pass

    def draw(self, run: RunRecord, force: bool = False) -> None:
        pass
