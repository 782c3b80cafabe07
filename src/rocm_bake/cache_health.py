"""How well a build used its caches: the statistics with-compiler-cache.sh writes after each
compile step (:class:`CacheStats`; hit rate = Σhits / (Σhits + Σmisses), also per language
from sccache's own per-language counters, e.g. ``HIP`` and ``C/C++``), the warnings on them,
and one summary line per target from the build's steps (CACHED layers, sccache)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rocm_bake.buildx_progress import Step, target_of
from rocm_bake.errors import RocmBakeError

WARM_HIT_THRESHOLD = 0.9
MIN_REQUESTS = 5
# 0 HIP hits on a rebuild is an alarm from this many HIP compiles on (one new TU is not).
MIN_HIP_REQUESTS = 2
HIP = "HIP"
STATS_MARK = "rocm-bake-cache-stats "


def _count(value: object) -> int:
    """A plain counter, or the sum of a ``{"counts": {...}}`` map."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, dict):
        counts = value.get("counts", {})
        if isinstance(counts, dict):
            return sum(v for v in counts.values() if isinstance(v, int))
    return 0


def _by_language(value: object) -> dict[str, int]:
    """sccache's per-language counters (``{"counts": {"HIP": 3, "C/C++": 2}}``)."""
    counts = value.get("counts", {}) if isinstance(value, dict) else {}
    if not isinstance(counts, dict):
        return {}
    return {str(k): v for k, v in counts.items() if isinstance(v, int) and not isinstance(v, bool)}


class _Counted:
    """Requests and hit rate from ``hits`` and ``misses`` (the dataclasses below)."""

    hits: int
    misses: int

    @property
    def requests(self) -> int:
        return self.hits + self.misses

    @property
    def hit_rate(self) -> float | None:
        return self.hits / self.requests if self.requests else None


@dataclass(frozen=True)
class LanguageStats(_Counted):
    """Hits and misses of one language (sccache's key: ``HIP``, ``C/C++``, ...)."""

    hits: int = 0
    misses: int = 0

    def to_json(self) -> dict[str, object]:
        return {"hits": self.hits, "misses": self.misses, "hit_rate": self.hit_rate}


def languages_of(raw_stats: Mapping[str, object]) -> dict[str, LanguageStats]:
    """Per-language hits and misses of sccache's ``stats`` object, languages sorted."""
    hits = _by_language(raw_stats.get("cache_hits"))
    misses = _by_language(raw_stats.get("cache_misses"))
    return {lang: LanguageStats(hits.get(lang, 0), misses.get(lang, 0))
            for lang in sorted({*hits, *misses})}


@dataclass(frozen=True)
class CacheStats(_Counted):
    """One compile step's compiler-cache statistics (sccache's JSON)."""

    name: str
    hits: int = 0
    misses: int = 0
    writes: int = 0
    write_errors: int = 0
    read_errors: int = 0
    timeouts: int = 0
    not_cacheable: int = 0
    location: str = ""
    languages: dict[str, LanguageStats] = field(default_factory=dict, hash=False)

    def language(self, name: str) -> LanguageStats:
        """One language's hits and misses (zero when it was not compiled)."""
        return self.languages.get(name, LanguageStats())

    @classmethod
    def from_sccache(cls, name: str, raw: Mapping[str, object]) -> CacheStats:
        stats = raw.get("stats")
        if not isinstance(stats, dict):
            raise RocmBakeError(f"{name}: not sccache statistics (no 'stats' object)")
        return cls(name, hits=_count(stats.get("cache_hits")),
                   misses=_count(stats.get("cache_misses")),
                   writes=_count(stats.get("cache_writes")),
                   write_errors=_count(stats.get("cache_write_errors")),
                   read_errors=_count(stats.get("cache_read_errors")),
                   timeouts=_count(stats.get("cache_timeouts")),
                   not_cacheable=_count(stats.get("requests_not_cacheable")),
                   location=str(raw.get("cache_location") or ""),
                   languages=languages_of(stats))

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "hits": self.hits, "misses": self.misses,
                "writes": self.writes, "write_errors": self.write_errors,
                "read_errors": self.read_errors, "timeouts": self.timeouts,
                "not_cacheable": self.not_cacheable, "hit_rate": self.hit_rate,
                "languages": {k: v.to_json() for k, v in self.languages.items()}}


def total(stats: Iterable[CacheStats], name: str = "total") -> CacheStats:
    items = list(stats)
    names = sorted({lang for s in items for lang in s.languages})
    languages = {lang: LanguageStats(sum(s.language(lang).hits for s in items),
                                     sum(s.language(lang).misses for s in items))
                 for lang in names}
    sums = {f: sum(getattr(s, f) for s in items)
            for f in ("hits", "misses", "writes", "write_errors", "read_errors", "timeouts",
                      "not_cacheable")}
    return CacheStats(name, **sums, languages=languages)


def load_stats(directory: Path) -> list[CacheStats]:
    """Every sccache statistics file (``<step>.json``) in an exported stats directory."""
    out = []
    for path in sorted(directory.glob("*.json")):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise RocmBakeError(f"{path}: unreadable compiler-cache statistics ({exc})") \
                from None
        if isinstance(raw, dict):
            out.append(CacheStats.from_sccache(path.stem, raw))
    return out


def health_warnings(stats: CacheStats, *, read_only: bool, rebuild: bool,
                    threshold: float = WARM_HIT_THRESHOLD) -> list[str]:
    """What is wrong with a step's cache use: a rebuild (warm/hot) that hit below
    ``threshold`` (steps of at least MIN_REQUESTS compiles: one new file is no alarm), or a
    read-write run that wrote nothing while failing to write (the backend silently went
    read-only), or a rebuild whose HIP compiles (at least MIN_HIP_REQUESTS) got no HIP hit at
    all. Read-only runs' write errors are expected."""
    out = []
    rate = stats.hit_rate
    if rebuild and rate is not None and rate < threshold and stats.requests >= MIN_REQUESTS:
        out.append(f"{stats.name}: sccache hit rate {rate:.0%} on a rebuild "
                   f"(expected >= {threshold:.0%}): is the cache shared and keyed right?")
    hip = stats.language(HIP)
    if rebuild and hip.hits == 0 and hip.requests >= MIN_HIP_REQUESTS:
        out.append(f"{stats.name}: 0 HIP hits of {hip.requests} HIP compiles on a rebuild: "
                   "are the GPU archs, ROCm device libraries and cache backend the same as "
                   "the build that filled the cache?")
    if not read_only and stats.writes == 0 and stats.write_errors > 0:
        out.append(f"{stats.name}: sccache wrote nothing ({stats.write_errors} write errors) "
                   "in a read-write build: the cache silently went read-only")
    return out


def stats_from_steps(steps: Iterable[Step]) -> list[CacheStats]:
    """The ``rocm-bake-cache-stats <name> <json>`` lines with-compiler-cache.sh prints, of the
    steps that ran in this build (a CACHED step's statistics belong to an earlier build)."""
    out = []
    for step in steps:
        if step.cached:
            continue
        for chunk in step.log:
            for line in chunk.splitlines():
                _, mark, rest = line.partition(STATS_MARK)
                if not mark:
                    continue
                name, _, text = rest.partition(" ")
                try:
                    raw = json.loads(text)
                except json.JSONDecodeError:
                    continue
                if isinstance(raw, dict) and isinstance(raw.get("stats"), dict):
                    out.append(CacheStats.from_sccache(name, raw))
    return out


def health_report(steps: Sequence[Step], read_only: bool, rebuild: bool | None = None
                  ) -> tuple[list[str], list[str]]:
    """One summary line per target (CACHED steps, sccache hit rate) and the warnings. With
    ``rebuild`` None a target counts as a rebuild when some of its RUN steps were CACHED."""
    lines, warnings = [], []
    targets = list(dict.fromkeys(target_of(s) for s in steps if s.is_run and target_of(s)))
    for target in targets:
        mine = [s for s in steps if target_of(s) == target]
        stats = stats_from_steps(mine)
        lines.append(summary_line(target, mine, stats))
        again = rebuild if rebuild is not None else any(s.cached for s in mine if s.is_run)
        for item in stats:
            warnings += [f"{target}: {w}" for w in
                         health_warnings(item, read_only=read_only, rebuild=again)]
    return lines, warnings


def summary_line(label: str, steps: Sequence[Step], stats: Sequence[CacheStats]) -> str:
    """One line per build: CACHED steps and the sccache hit rate of the steps that ran."""
    runs = [s for s in steps if s.is_run]
    cached = sum(1 for s in runs if s.cached)
    line = f"{label}: {cached}/{len(runs)} RUN steps CACHED"
    if stats:
        all_ = total(stats)
        rate = all_.hit_rate
        line += (f", sccache {all_.hits} hits / {all_.misses} misses"
                 + (f" ({rate:.0%})" if rate is not None else "")
                 + f", {all_.writes} writes")
        hip = all_.language(HIP)
        if hip.requests:
            line += "; " + ", ".join(f"{lang} {item.hits} hits / {item.misses} misses"
                                     for lang, item in all_.languages.items())
    return line
