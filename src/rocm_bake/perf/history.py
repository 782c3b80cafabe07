"""The perf history (``perf/history.jsonl``): one JSON object per timed build, appended.

The fields :mod:`rocm_bake.perf.schema` reads (``time``, ``condition``, ``target``,
``seconds``, ``commit``, ``cache_hit_rate``) plus, from ``inv perf``: ``run`` (one invocation
of ``inv perf``), ``repeat``, ``pins_hash``, ``machine``, ``cached_steps``/``run_steps``,
``steps`` (every RUN step: name, seconds, cached), ``sccache`` (hits, misses, writes,
write_errors, per compile step), ``sccache_languages`` (hits and misses per language from
sccache's own per-language counters: ``HIP``, ``C/C++``), ``hip_hit_rate`` (when HIP was
compiled) and ``bytes_pulled``/``bytes_pushed`` (registry traffic).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from tabulate import tabulate

from rocm_bake import cache_health, redact
from rocm_bake.buildx_progress import Step
from rocm_bake.perf import schema

PATH = Path("perf") / "history.jsonl"
CONDITIONS = schema.CONDITIONS
AIMS = {"warm": 0.10, "hot": 0.05, "frozen": 0.02}
SUMMARY_HEADERS = ["condition", "runs", "min", "median", "max", "median / cold", "aim",
                   "sccache hit rate", "HIP hit rate", "HIP hits / misses",
                   "C/C++ hits / misses"]


def pins_hash(values: Mapping[str, object]) -> str:
    """A short hash of the pins (the bake variables) a measurement was taken with."""
    text = json.dumps({k: str(v) for k, v in sorted(values.items())}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def machine() -> str:
    return f"{platform.node()} {platform.machine()} {os.cpu_count()} cpus"


def record(*, run_id: str, repeat: int, condition: str, target: str, seconds: float,
           steps: Sequence[Step], stats: Sequence[cache_health.CacheStats], commit: str,
           pins: str, bytes_pulled: int = 0, bytes_pushed: int = 0,
           when: datetime | None = None) -> dict[str, object]:
    runs = [s for s in steps if s.is_run]
    total = cache_health.total(stats)
    out: dict[str, object] = {
        "time": (when or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "condition": condition, "target": target, "seconds": round(seconds, 3),
        "commit": commit, "run": run_id, "repeat": repeat, "pins_hash": pins,
        "machine": machine(),
        "cached_steps": sum(1 for s in runs if s.cached), "run_steps": len(runs),
        "steps": [s.to_json() for s in runs],
        "sccache": {"hits": total.hits, "misses": total.misses, "writes": total.writes,
                    "write_errors": total.write_errors,
                    "per_step": [s.to_json() for s in stats]},
        "sccache_languages": {lang: {"hits": item.hits, "misses": item.misses}
                              for lang, item in total.languages.items()},
        "bytes_pulled": bytes_pulled, "bytes_pushed": bytes_pushed,
    }
    if total.hit_rate is not None:
        out["cache_hit_rate"] = round(total.hit_rate, 4)
    hip = total.language(cache_health.HIP).hit_rate
    if hip is not None:
        out["hip_hit_rate"] = round(hip, 4)
    return out


def append(path: Path, records: Iterable[Mapping[str, object]]) -> None:
    """Append records to the history, one JSON object per line (``inv perf``, fleet runs)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        for item in records:
            handle.write(json.dumps(redact.data(item), sort_keys=True) + "\n")


def load(path: Path) -> list[dict[str, object]]:
    """Every record as JSON (validated by :func:`rocm_bake.perf.schema.load` first)."""
    schema.load(path)                       # raises on any malformed line, naming file:line
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


@dataclass(frozen=True)
class ConditionSummary:
    condition: str
    count: int
    minimum: float
    median: float
    maximum: float
    hit_rate: float | None
    hip_hit_rate: float | None = None
    languages: dict[str, tuple[int, int]] | None = None   # Σ (hits, misses) per language


def _seconds(item: Mapping[str, object]) -> float:
    value = item.get("seconds")
    return float(value) if isinstance(value, int | float) else 0.0


def _rates(records: Sequence[Mapping[str, object]], key: str) -> float | None:
    rates = [float(v) for r in records if isinstance(v := r.get(key), int | float)]
    return statistics.median(rates) if rates else None


def _languages(records: Sequence[Mapping[str, object]]) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for r in records:
        langs = r.get("sccache_languages")
        for lang, item in (langs.items() if isinstance(langs, dict) else ()):
            if isinstance(item, dict):
                hits, misses = out.get(lang, (0, 0))
                out[lang] = (hits + int(item.get("hits") or 0),
                             misses + int(item.get("misses") or 0))
    return out


def summarize(records: Sequence[Mapping[str, object]], target: str | None = None,
              run: str | None = None) -> dict[str, ConditionSummary]:
    """Min/median/max seconds and median hit rate per condition (of one run, or all)."""
    out = {}
    for condition in CONDITIONS:
        subset = [r for r in records if r.get("condition") == condition
                  and (target is None or r.get("target") == target)
                  and (run is None or r.get("run") == run)]
        if not subset:
            continue
        secs = [_seconds(r) for r in subset]
        out[condition] = ConditionSummary(condition, len(subset), min(secs),
                                          statistics.median(secs), max(secs),
                                          _rates(subset, "cache_hit_rate"),
                                          _rates(subset, "hip_hit_rate"), _languages(subset))
    return out


def ratios(summary: Mapping[str, ConditionSummary]) -> dict[str, float]:
    """Median of each condition over the median cold build."""
    cold = summary.get("cold")
    if cold is None or cold.median <= 0:
        return {}
    return {c: s.median / cold.median for c, s in summary.items() if c != "cold"}


def _pair(summary: ConditionSummary, language: str) -> str:
    """Σ hits / Σ misses of one language over a condition's runs."""
    pair = (summary.languages or {}).get(language)
    return f"{pair[0]} / {pair[1]}" if pair else "—"


def fullest_run(runs_and_conditions: Iterable[tuple[str, str]]) -> str:
    """Of (run, condition) pairs, oldest first: the newest run that measured the most
    conditions (a cold-only run of another arch does not hide the last run of all four)."""
    conditions: dict[str, set[str]] = {}
    for run, condition in runs_and_conditions:
        conditions.setdefault(run, set()).add(condition)
    most = max(len(c) for c in conditions.values())
    return [run for run, c in conditions.items() if len(c) == most][-1]


def markdown(records: Sequence[Mapping[str, object]]) -> str:
    """The summary for the docs: per target, the medians and ratios to cold of the newest run
    that measured the most conditions."""
    if not records:
        return "No measurements recorded yet.\n"
    lines = []
    targets = list(dict.fromkeys(str(r.get("target")) for r in records))
    for target in targets:
        mine = [r for r in records if r.get("target") == target]
        newest = fullest_run((str(r.get("run") or ""), str(r.get("condition"))) for r in mine)
        subset = [r for r in mine if str(r.get("run") or "") == newest] if newest else mine
        summary = summarize(subset)
        ratio = ratios(summary)
        first = subset[0]
        lines.append(f"### `{target}`\n")
        lines.append(f"Run `{newest or 'n/a'}` at commit `{first.get('commit') or 'n/a'}` on "
                     f"{first.get('machine') or 'an unrecorded machine'}, "
                     f"{max(s.count for s in summary.values())} repeat(s).\n")
        rows = []
        for condition in CONDITIONS:
            s = summary.get(condition)
            if s is None:
                continue
            r = ratio.get(condition)
            aim = AIMS.get(condition)
            rows.append([condition, str(s.count), f"{s.minimum:.1f} s", f"{s.median:.1f} s",
                         f"{s.maximum:.1f} s", f"{r:.3f}" if r is not None else "—",
                         f"≤ {aim:.2f}" if aim else "—",
                         f"{s.hit_rate:.1%}" if s.hit_rate is not None else "—",
                         f"{s.hip_hit_rate:.1%}" if s.hip_hit_rate is not None else "—",
                         _pair(s, cache_health.HIP), _pair(s, "C/C++")])
        lines.append(tabulate(rows, headers=SUMMARY_HEADERS, tablefmt="github",
                              disable_numparse=True))
        lines.append("")
    return "\n".join(lines)
