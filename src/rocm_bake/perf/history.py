"""The perf history (``perf/history.jsonl``): one JSON object per timed build, appended.

The fields :mod:`rocm_bake.perf.schema` reads (``time``, ``condition``, ``target``,
``seconds``, ``arch``, ``workload``, ``commit``, ``cache_hit_rate``) plus, from ``inv perf``:
``run`` (one invocation of ``inv perf``), ``repeat``, ``pins_hash``, ``machine``, ``cpus`` and
``memory_gib`` (the machine at run time), ``cached_steps``/``run_steps``,
``steps`` (every RUN step: name, seconds, cached), ``cache_type`` (the compiler cache:
sccache, ccache or none; absent in records older than ccache's measurement: sccache),
``sccache`` (the compiler cache's counters, whichever it is: hits, misses, writes,
write_errors, direct -- hits that skipped the preprocessor, ccache's direct mode -- per
compile step), ``sccache_languages`` (hits, misses and direct hits per language: ``HIP``,
``C/C++``), ``hip_hit_rate`` (when HIP was compiled), ``bytes_pulled``/``bytes_pushed``
(registry traffic), ``fixed`` and ``fixed_seconds`` (the wall time cut into parts and the
seconds outside the RUN steps that ran: :mod:`rocm_bake.perf.fixedcost`) and ``hit_cost``
(the seconds of the compile steps that ran and the compiler cache's hits in them) and
``engine`` (the Docker and BuildKit versions that ran the builds:
:class:`rocm_bake.docker.engineinfo.EngineVersion`; absent in records older than it).

The aims (:data:`AIMS`, :data:`HIP_HIT_AIM`) are kept here, once: the summary, the docs page,
the Tests page check and the benchmark read them from here."""

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

from rocm_bake.compilercache import health as cache_health
from rocm_bake.core import redact
from rocm_bake.docker.engineinfo import EngineVersion
from rocm_bake.docker.progress import Step
from rocm_bake.perf import fixedcost, schema

PATH = Path("perf") / "history.jsonl"
CONDITIONS = schema.CONDITIONS
# Each condition's median over the cold median must stay at or below its aim; a warm build
# must also serve at least HIP_HIT_AIM of its HIP translation units from sccache.
AIMS = {"warm": 0.05, "hot": 0.03, "frozen": 0.01}
HIP_HIT_AIM = 0.99
UNRECORDED_ENGINE = "an unrecorded engine"    # a record from before records named their engine
SUMMARY_HEADERS = ["condition", "runs", "min", "median", "max", "median / cold", "aim",
                   "cache hit rate", "HIP hit rate", "HIP hits / misses",
                   "C/C++ hits / misses"]


def pins_hash(values: Mapping[str, object]) -> str:
    """A short hash of the pins (the bake variables) a measurement was taken with."""
    text = json.dumps({k: str(v) for k, v in sorted(values.items())}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def machine() -> str:
    return f"{platform.node()} {platform.machine()} {os.cpu_count()} cpus"


def memory_gib() -> float:
    """The machine's physical memory, GiB (one decimal)."""
    return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)


def units(stats: Sequence[cache_health.CacheStats]) -> schema.Units:
    """The translation units a build compiled, per compile step and language (hits + misses
    of sccache's per-language counters): of a cold build, the workload's size."""
    return {s.name: {lang: item.hits + item.misses for lang, item in s.languages.items()}
            for s in stats if s.languages}


def record(*, run_id: str, repeat: int, condition: str, target: str, seconds: float,
           arch: str, workload: schema.Workload,
           steps: Sequence[Step], stats: Sequence[cache_health.CacheStats], commit: str,
           pins: str, bytes_pulled: int = 0, bytes_pushed: int = 0,
           when: datetime | None = None, cache_type: str = "sccache",
           fixed: fixedcost.FixedCost | None = None,
           engine: EngineVersion | None = None) -> dict[str, object]:
    runs = [s for s in steps if s.is_run]
    total = cache_health.total(stats)
    direct = "ccache" in total.tool.split("+")     # hits without the preprocessor: ccache's
    out: dict[str, object] = {
        "time": (when or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "condition": condition, "target": target, "seconds": round(seconds, 3),
        "arch": arch, "workload": workload.to_json(),
        "commit": commit, "run": run_id, "repeat": repeat, "pins_hash": pins,
        "cache_type": cache_type,
        "machine": machine(), "cpus": os.cpu_count(), "memory_gib": memory_gib(),
        "cached_steps": sum(1 for s in runs if s.cached), "run_steps": len(runs),
        "steps": [s.to_json() for s in runs],
        "sccache": {"hits": total.hits, "misses": total.misses, "writes": total.writes,
                    "write_errors": total.write_errors,
                    **({"direct": total.direct} if direct else {}),
                    "per_step": [s.to_json() for s in stats]},
        "sccache_languages": {lang: {"hits": item.hits, "misses": item.misses,
                                     **({"direct": item.direct} if direct else {})}
                              for lang, item in total.languages.items()},
        "bytes_pulled": bytes_pulled, "bytes_pushed": bytes_pushed,
    }
    if engine is not None:
        out["engine"] = engine.to_json()
    if fixed is not None:
        out["fixed"] = fixed.to_json()
        out["fixed_seconds"] = round(fixed.fixed, 3)
    hit = fixedcost.hit_cost(steps, stats)
    if hit is not None:
        out["hit_cost"] = {"seconds": round(hit[0], 3), "hits": hit[1]}
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


def cache_type(item: Mapping[str, object]) -> str:
    """The compiler cache a record measured (records from before ccache was measured: sccache)."""
    return str(item.get("cache_type") or "sccache")


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


def _languages_first_hip(languages: Iterable[str]) -> list[str]:
    return sorted(languages, key=lambda lang: (lang != cache_health.HIP, lang))


def _counts(per_language: Mapping[str, int]) -> str:
    return " + ".join(f"{per_language[lang]} {lang}" for lang in _languages_first_hip(per_language))


def workload_text(item: Mapping[str, object]) -> str:
    """What a record's build compiled, for people: its target, bake file, archs and
    translation units (per language, then per compile step)."""
    workload = item.get("workload")
    workload = workload if isinstance(workload, dict) else {}
    text = (f"target `{item.get('target')}` of `{workload.get('bake_file') or 'n/a'}` for "
            f"{item.get('arch') or 'an unrecorded arch'}")
    units = workload.get("units")
    if not isinstance(units, dict) or not units:
        return f"{text} (translation units not recorded)"
    totals: dict[str, int] = {}
    for per_language in units.values():
        for lang, count in per_language.items():
            totals[lang] = totals.get(lang, 0) + int(count)
    steps = "; ".join(f"{step}: {_counts(per_language)}" for step, per_language in units.items())
    return f"{text}, compiling {_counts(totals)} translation units ({steps})"


def machine_text(item: Mapping[str, object]) -> str:
    """The machine a record was measured on, with its memory when it was recorded."""
    memory = item.get("memory_gib")
    name = str(item.get("machine") or "an unrecorded machine")
    if isinstance(memory, int | float) and not isinstance(memory, bool):
        return f"{name}, {memory:g} GiB memory"
    return f"{name}, memory not recorded"


def engine_text(item: Mapping[str, object]) -> str:
    """The engine a record was measured on (``Docker 28.5.2+dfsg4, BuildKit v0.25.1``)."""
    engine = EngineVersion.from_json(item.get("engine"))
    return str(engine) if engine is not None else UNRECORDED_ENGINE


def aims_text() -> str:
    """The aims, in words (from :data:`AIMS` and :data:`HIP_HIT_AIM`)."""
    return (f"warm/cold ≤ {AIMS['warm']:.2f} with ≥ {HIP_HIT_AIM:.0%} of the HIP translation "
            f"units served by the compiler cache, hot/cold ≤ {AIMS['hot']:.2f}, "
            f"frozen/cold ≤ {AIMS['frozen']:.2f}")


@dataclass(frozen=True)
class Verdict:
    """One aim against one run: ``warm/cold 0.137`` against ``≤ 0.05``."""

    name: str
    value: str
    aim: str
    met: bool

    def __str__(self) -> str:
        return f"{self.name} {self.value} (aim {self.aim})"


def newest_full_run(records: Sequence[Mapping[str, object]]) -> list[Mapping[str, object]]:
    """The records of the newest ``inv perf`` run that measured the most conditions."""
    timed = [r for r in records if r.get("run")]
    if not timed:
        return []
    run = fullest_run((str(r.get("run")), str(r.get("condition"))) for r in timed)
    return [r for r in timed if r.get("run") == run]


def verdicts(records: Sequence[Mapping[str, object]]) -> list[Verdict]:
    """Each aim against one run's records (its medians and warm HIP hit rate)."""
    summary = summarize(records)
    ratio = ratios(summary)
    out = [Verdict(f"{c}/cold", f"{ratio[c]:.3f}", f"≤ {AIMS[c]:.2f}", ratio[c] <= AIMS[c])
           for c in ("warm", "hot", "frozen") if c in ratio]
    warm = summary.get("warm")
    if warm is not None and warm.hip_hit_rate is not None:
        out.append(Verdict("warm HIP hits", f"{warm.hip_hit_rate:.1%}", f"≥ {HIP_HIT_AIM:.0%}",
                           warm.hip_hit_rate >= HIP_HIT_AIM))
    return out


def aims_line(records: Sequence[Mapping[str, object]]) -> str:
    """The aims met and missed by the newest run of the most conditions, a sentence per engine
    and compiler cache the history names (in the order first measured)."""
    groups = dict.fromkeys((engine_text(r), cache_type(r)) for r in records if r.get("run"))
    if not groups:
        return "No `inv perf` run is recorded yet, so no aim is known to be met or missed."
    return " ".join(_aims_sentence(f"{engine} with {tool}", newest_full_run(
        [r for r in records if (engine_text(r), cache_type(r)) == (engine, tool)]))
        for engine, tool in groups)


def _aims_sentence(engine: str, run: Sequence[Mapping[str, object]]) -> str:
    first = run[0]
    found = verdicts(run)
    met = ", ".join(str(v) for v in found if v.met) or "none"
    missed = ", ".join(str(v) for v in found if not v.met) or "none"
    timed = [c for c in CONDITIONS if any(r.get("condition") == c for r in run)]
    return (f"On {engine}, the newest run of the most conditions, `{first.get('run')}` "
            f"({str(first.get('time'))[:10]}, `{first.get('target')}` for "
            f"{first.get('arch') or 'an unrecorded arch'}, {', '.join(timed)}), "
            f"met: {met}; missed: {missed}.")


def _section(subset: Sequence[Mapping[str, object]]) -> list[str]:
    """One (target, arch)'s newest run: what it measured, where, and its table."""
    summary = summarize(subset)
    ratio = ratios(summary)
    first = subset[0]
    lines = [f"### `{first.get('target')}` for {first.get('arch') or 'an unrecorded arch'}"
             f" with {cache_type(first)} on {engine_text(first)}\n",
             f"Workload: {workload_text(first)}. Machine: {machine_text(first)}. "
             f"Run `{first.get('run') or 'n/a'}` at commit `{first.get('commit') or 'n/a'}`, "
             f"{max(s.count for s in summary.values())} repeat(s).\n"]
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
    lines += [tabulate(rows, headers=SUMMARY_HEADERS, tablefmt="github",
                       disable_numparse=True), ""]
    return lines + fixed_section(subset)


def _median_of(values: Iterable[object]) -> float | None:
    numbers = [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    return statistics.median(numbers) if numbers else None


def per_hit(records: Sequence[Mapping[str, object]]) -> float | None:
    """Seconds per compiler-cache hit: Σ seconds of the compile steps that ran over Σ their
    hits (``hit_cost`` of each record)."""
    seconds = hits = 0.0
    for r in records:
        item = r.get("hit_cost")
        if isinstance(item, dict):
            seconds += float(item.get("seconds") or 0)
            hits += float(item.get("hits") or 0)
    return seconds / hits if hits else None


def fixed_rows(records: Sequence[Mapping[str, object]]) -> list[list[str]]:
    """Per condition (medians): wall, RUN steps that ran, the fixed cost and its parts,
    and the cost per hit."""
    rows = []
    for condition in CONDITIONS:
        subset = [r for r in records if r.get("condition") == condition
                  and isinstance(r.get("fixed"), dict)]
        if not subset:
            continue
        cut = [r["fixed"] for r in subset if isinstance(r["fixed"], dict)]
        parts = [_median_of(c.get(p) for c in cut) or 0.0 for p in fixedcost.PARTS]
        hit = per_hit(subset)
        rows.append([condition, f"{statistics.median(_seconds(r) for r in subset):.2f} s",
                     f"{_median_of(r.get('fixed_seconds') for r in subset) or 0.0:.2f} s",
                     *(f"{v:.2f}" for v in parts),
                     f"{hit * 1000:.1f} ms" if hit is not None else "—"])
    return rows


FIXED_HEADERS = ["condition", "wall", "fixed cost", *(
    "RUN steps" if p == fixedcost.RUN else p for p in fixedcost.PARTS), "per hit"]


def fixed_section(records: Sequence[Mapping[str, object]]) -> list[str]:
    """The fixed cost per build and where it goes, and the cost per hit, apart (none for
    records older than the fixed cost's measurement)."""
    rows = fixed_rows(records)
    if not rows:
        return []
    return ["Fixed cost per build (the seconds outside the RUN steps that ran, median) and "
            "where it goes, from the build's own vertex times; cost per hit (the compile "
            "steps' seconds over their compiler-cache hits):\n",
            tabulate(rows, headers=FIXED_HEADERS, tablefmt="github", disable_numparse=True),
            ""]


def _key(r: Mapping[str, object]) -> tuple[str, str, str, str]:
    return str(r.get("target")), str(r.get("arch")), cache_type(r), engine_text(r)


def _newest_runs(records: Sequence[Mapping[str, object]]
                 ) -> dict[tuple[str, str, str, str], list[Mapping[str, object]]]:
    """Per target, arch, compiler cache and engine: the records of its newest run that
    measured the most conditions."""
    out = {}
    for wanted in dict.fromkeys(_key(r) for r in records):
        mine = [r for r in records if _key(r) == wanted]
        newest = fullest_run((str(r.get("run") or ""), str(r.get("condition"))) for r in mine)
        out[wanted] = [r for r in mine if str(r.get("run") or "") == newest]
    return out


def engines_section(records: Sequence[Mapping[str, object]]) -> list[str]:
    """The engines side by side: per target, arch and compiler cache measured on more than one
    recorded engine, each ratio to cold and the warm build's fixed cost, an engine a column."""
    runs = {k: v for k, v in _newest_runs(records).items() if k[3] != UNRECORDED_ENGINE}
    engines = list(dict.fromkeys(k[3] for k in runs))
    if len(engines) < 2:
        return []
    rows = []
    for target, arch, tool in dict.fromkeys(k[:3] for k in runs):
        mine = {e: runs.get((target, arch, tool, e)) for e in engines}
        if sum(1 for v in mine.values() if v) < 2:
            continue
        ratio = {e: ratios(summarize(v)) if v else {} for e, v in mine.items()}
        for condition in ("warm", "hot", "frozen"):
            rows.append([f"`{target}` {arch} {tool}", f"{condition}/cold",
                         *(f"{ratio[e][condition]:.3f}" if condition in ratio[e] else "—"
                           for e in engines), f"≤ {AIMS[condition]:.2f}"])
        fixed = {e: _median_of(r.get("fixed_seconds") for r in v
                               if r.get("condition") == "warm") if v else None
                 for e, v in mine.items()}
        rows.append([f"`{target}` {arch} {tool}", "warm: fixed cost",
                     *(f"{fixed[e]:.2f} s" if fixed[e] is not None else "—" for e in engines),
                     "—"])
    if not rows:
        return []
    return ["### The engines side by side\n",
            "Each engine's newest run of the most conditions (the tables below), its ratios to "
            "cold and the seconds a warm build spends outside its RUN steps:\n",
            tabulate(rows, headers=["workload", "measure", *engines, "aim"], tablefmt="github",
                     disable_numparse=True), ""]


def markdown(records: Sequence[Mapping[str, object]]) -> str:
    """The summary for the docs: the aims met and missed by the newest full run; the engines
    side by side; then per target, arch, compiler cache and engine, the medians and ratios to
    cold of its newest run that measured the most conditions, naming the workload and the
    machine."""
    if not records:
        return "No measurements recorded yet.\n"
    lines = [f"Aims: {aims_text()}.\n", f"{aims_line(records)}\n", *engines_section(records)]
    for subset in _newest_runs(records).values():
        lines += _section(subset)
    return "\n".join(lines)
