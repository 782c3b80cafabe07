"""The perf history: one JSON object per line, appended by the perf lane (issue #5).

Each record is one timed build::

    {"time": "2026-11-29T18:00:00Z", "condition": "warm", "target": "torch-gfx950",
     "seconds": 842.5, "commit": "3e765fd", "cache_hit_rate": 0.97, "arch": "gfx950",
     "workload": {"bake_file": "rocm-bake.hcl"}}

``time``, ``condition`` (frozen | hot | warm | cold), ``target``, ``seconds``, ``arch`` (the
GPU arch(s) the build compiled for, comma-separated) and ``workload`` (what was built: the
``bake_file`` the target is in and, when known, ``units``: per compile step, the translation
units compiled per language, e.g. ``{"ggml": {"HIP": 39, "C/C++": 7}}``) are required;
``commit``, ``cache_hit_rate`` (0..1) and ``cache_type`` (the compiler cache; sccache when
absent) are optional. A malformed line is an error naming
``file:line``: a page must never show numbers it could not read, nor numbers that do not say
what they measured. ``inv perf`` adds more fields, ignored here and read by
:mod:`rocm_bake.perf.history` (``run``, ``repeat``, ``pins_hash``, ``machine``, ``cpus``,
``memory_gib``, ``cached_steps``/``run_steps``, ``steps``, ``sccache``,
``bytes_pulled``/``bytes_pushed``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from rocm_bake.core.errors import RocmBakeError

CONDITIONS = ("frozen", "hot", "warm", "cold")
Units = dict[str, dict[str, int]]       # compile step -> language -> translation units


@dataclass(frozen=True)
class Workload:
    """What a timed build built: the bake file its target is in, and the translation units
    it compiles (per compile step and language; empty when not known)."""

    bake_file: str
    units: Units = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"bake_file": self.bake_file}
        if self.units:
            out["units"] = self.units
        return out


@dataclass(frozen=True)
class Record:
    time: datetime
    condition: str
    target: str
    seconds: float
    arch: str
    workload: Workload
    commit: str = ""
    cache_hit_rate: float | None = None
    run: str = ""
    cache_type: str = "sccache"     # the compiler cache (records before ccache's: sccache)


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


def _units(raw: object, where: str) -> Units:
    bad = RocmBakeError(f"{where}: workload.units must map each compile step to "
                        f"{{language: count}}, got {raw!r}")
    if not isinstance(raw, dict):
        raise bad
    out: Units = {}
    for step, languages in raw.items():
        if not isinstance(languages, dict) or not all(
                isinstance(n, int) and not isinstance(n, bool) and n >= 0
                for n in languages.values()):
            raise bad
        out[str(step)] = {str(lang): int(n) for lang, n in languages.items()}
    return out


def _workload(raw: dict[str, object], where: str) -> Workload:
    value = raw.get("workload")
    if not isinstance(value, dict):
        raise RocmBakeError(f"{where}: workload must be an object naming its bake_file, "
                            f"got {value!r}")
    units = _units(value["units"], where) if "units" in value else {}
    return Workload(_text(value, "bake_file", f"{where}: workload"), units)


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
                  _text(raw, "arch", where), _workload(raw, where),
                  str(raw.get("commit") or ""), rate, str(raw.get("run") or ""),
                  str(raw.get("cache_type") or "sccache"))


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
