"""The machine a benchmark ran on, for the line every figure is printed with: its CPUs and how
busy they were (the load averages before and after the run)."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def line(load_before: tuple[float, float, float], load_after: tuple[float, float, float]) -> str:
    cpu = next((ln.split(":", 1)[1].strip() for ln in
                Path("/proc/cpuinfo").read_text().splitlines() if ln.startswith("model name")),
               platform.processor())
    return (f"machine: {os.cpu_count()} CPU(s), {cpu}; load average before "
            f"{' '.join(f'{x:.2f}' for x in load_before)}, after "
            f"{' '.join(f'{x:.2f}' for x in load_after)}")
