"""The perf history: one JSON object per line, appended by the perf lane (issue #5).

Each record is one timed build::

    {"time": "2026-11-29T18:00:00Z", "condition": "warm", "target": "torch-gfx950",
     "seconds": 842.5, "commit": "3e765fd", "cache_hit_rate": 0.97}

``time``, ``condition`` (frozen | hot | warm | cold), ``target`` and ``seconds`` are required;
``commit`` and ``cache_hit_rate`` (0..1) are optional. A malformed line is an error naming
``file:line``: a page must never show numbers it could not read. ``inv perf`` adds more
fields, ignored here and read by :mod:`rocm_bake.perf.history` (``run``, ``repeat``,
``pins_hash``, ``machine``, ``cached_steps``/``run_steps``, ``steps``, ``sccache``,
``bytes_pulled``/``bytes_pushed``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from rocm_bake.errors import RocmBakeError

CONDITIONS = ("frozen", "hot", "warm", "cold")


@dataclass(frozen=True)
class Record:
    time: datetime
    condition: str
    target: str
    seconds: float
    commit: str = ""
    cache_hit_rate: float | None = None
    run: str = ""


def _number(raw: dict[str, object], key: str, where: str) -> float:
    value = raw.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise RocmBakeError(f"{where}: {key} must be a non-negative number, got {value!r}")
    return float(value)


def _text(raw: dict[str, object], key: str, where: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value:
        raise RocmBakeError(f"{where}: {key} must be a non-empty string, got {value!r}")
    return value


def parse(line: str, where: str) -> Record:
    """One line of the history as a record."""
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RocmBakeError(f"{where}: not JSON ({exc.msg})") from None
    if not isinstance(raw, dict):
        raise RocmBakeError(f"{where}: a record must be a JSON object")
    condition = _text(raw, "condition", where)
    if condition not in CONDITIONS:
        raise RocmBakeError(f"{where}: condition must be one of {', '.join(CONDITIONS)}, "
                            f"got {condition!r}")
    try:
        time = datetime.fromisoformat(_text(raw, "time", where))
    except ValueError:
        raise RocmBakeError(f"{where}: time must be ISO 8601, got {raw.get('time')!r}") from None
    rate = _number(raw, "cache_hit_rate", where) if "cache_hit_rate" in raw else None
    if rate is not None and rate > 1:
        raise RocmBakeError(f"{where}: cache_hit_rate must be between 0 and 1, got {rate}")
    return Record(time, condition, _text(raw, "target", where), _number(raw, "seconds", where),
                  str(raw.get("commit") or ""), rate, str(raw.get("run") or ""))


def load(path: Path) -> list[Record]:
    """Every record of the history, oldest first; no file means no records."""
    if not path.is_file():
        return []
    records = [parse(line, f"{path}:{number}")
               for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
               if line.strip()]
    return sorted(records, key=lambda r: r.time)


def duration(seconds: float) -> str:
    """A duration for people: 0.4 s, 42 s, 14m 02s, 1h 03m."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 120:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"
