"""How well a build used its caches: the statistics with-compiler-cache.sh writes after each
compile step (:class:`CacheStats`; hit rate = Σhits / (Σhits + Σmisses), also per language:
sccache's own per-language counters, e.g. ``HIP`` and ``C/C++``, or ccache's stats log
counted per language by the script; ccache's hits also say how many skipped the preprocessor,
``direct``), the warnings on them, and one summary line per target from the build's steps
(CACHED layers, the compiler cache)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.docker.progress import Step, target_of

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
    """Hits and misses of one language (sccache's key: ``HIP``, ``C/C++``, ...); ``direct``:
    the hits found without running the preprocessor (ccache's direct mode)."""

    hits: int = 0
    misses: int = 0
    direct: int = 0

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"hits": self.hits, "misses": self.misses,
                                  "hit_rate": self.hit_rate}
        if self.direct:
            out["direct"] = self.direct
        return out


def languages_of(raw_stats: Mapping[str, object]) -> dict[str, LanguageStats]:
    """Per-language hits and misses of sccache's ``stats`` object, languages sorted."""
    hits = _by_language(raw_stats.get("cache_hits"))
    misses = _by_language(raw_stats.get("cache_misses"))
    return {lang: LanguageStats(hits.get(lang, 0), misses.get(lang, 0))
            for lang in sorted({*hits, *misses})}


@dataclass(frozen=True)
class CacheStats(_Counted):
    """One compile step's compiler-cache statistics (sccache's JSON, or ccache's stats log
    per language as with-compiler-cache.sh writes it: ``{"ccache": {lang: {counter: n}}}``)."""

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
    tool: str = "sccache"
    direct: int = 0

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

    @classmethod
    def from_ccache(cls, name: str, raw: Mapping[str, object]) -> CacheStats:
        """ccache's counters per language (``{"ccache": {"HIP": {"direct_cache_hit": 3}}}``):
        a hit is a direct or a preprocessed hit, a miss ``cache_miss``; with remote storage
        (the shared store) its writes, errors and timeouts are the remote ones, else the
        local ones."""
        per = raw.get("ccache")
        if not isinstance(per, dict):
            raise RocmBakeError(f"{name}: not ccache statistics (no 'ccache' object)")
        counters: dict[str, dict[str, int]] = {
            str(lang): {str(k): v for k, v in c.items() if isinstance(v, int)}
            for lang, c in per.items() if isinstance(c, dict)}
        languages = {lang: LanguageStats(_ccache_hits(c), c.get("cache_miss", 0),
                                         c.get("direct_cache_hit", 0))
                     for lang, c in sorted(counters.items())
                     if lang != _OTHER and (_ccache_hits(c) or c.get("cache_miss"))}
        every: dict[str, int] = {}
        for c in counters.values():
            for name_, value in c.items():
                key = name_.replace("secondary_storage_", "remote_storage_")   # ccache < 4.6
                every[key] = every.get(key, 0) + value
        remote = any(k.startswith("remote_storage_") for k in every)
        level = "remote_storage" if remote else "local_storage"
        return cls(name, hits=_ccache_hits(every), misses=every.get("cache_miss", 0),
                   writes=every.get(f"{level}_write", 0),
                   write_errors=every.get("remote_storage_error", 0),
                   timeouts=every.get("remote_storage_timeout", 0),
                   not_cacheable=sum(v for k, v in every.items()
                                     if k in _CCACHE_UNCACHEABLE),
                   location="ccache " + ("local + remote storage" if remote else "local"),
                   languages=languages, tool="ccache",
                   direct=every.get("direct_cache_hit", 0))

    @classmethod
    def parse(cls, name: str, raw: Mapping[str, object]) -> CacheStats:
        """sccache's or ccache's statistics, whichever ``raw`` is."""
        return cls.from_ccache(name, raw) if "ccache" in raw else cls.from_sccache(name, raw)

    def to_json(self) -> dict[str, object]:
        tool = {"tool": self.tool, "direct": self.direct} if self.tool != "sccache" else {}
        return {"name": self.name, **tool, "hits": self.hits, "misses": self.misses,
                "writes": self.writes, "write_errors": self.write_errors,
                "read_errors": self.read_errors, "timeouts": self.timeouts,
                "not_cacheable": self.not_cacheable, "hit_rate": self.hit_rate,
                "languages": {k: v.to_json() for k, v in self.languages.items()}}


# ccache's counters of a call it could not cache (not the calls that are no compile at all:
# a link, hipcc's probes without an input file).
_CCACHE_UNCACHEABLE = frozenset({
    "autoconf_test", "bad_compiler_arguments", "compiler_produced_stdout",
    "could_not_use_modules", "could_not_use_precompiled_header", "multiple_source_files",
    "output_to_stdout", "preprocessor_error", "unsupported_code_directive",
    "unsupported_compiler_option", "unsupported_environment_variable",
    "unsupported_source_language"})
_OTHER = "other"


def _ccache_hits(counters: Mapping[str, int]) -> int:
    return counters.get("direct_cache_hit", 0) + counters.get("preprocessed_cache_hit", 0)


def total(stats: Iterable[CacheStats], name: str = "total") -> CacheStats:
    items = list(stats)
    names = sorted({lang for s in items for lang in s.languages})
    languages = {lang: LanguageStats(sum(s.language(lang).hits for s in items),
                                     sum(s.language(lang).misses for s in items),
                                     sum(s.language(lang).direct for s in items))
                 for lang in names}
    sums = {f: sum(getattr(s, f) for s in items)
            for f in ("hits", "misses", "writes", "write_errors", "read_errors", "timeouts",
                      "not_cacheable", "direct")}
    tools = sorted({s.tool for s in items})
    return CacheStats(name, **sums, languages=languages,
                      tool="+".join(tools) if tools else "sccache")


def load_stats(directory: Path) -> list[CacheStats]:
    """Every compiler-cache statistics file (``<step>.json``) in an exported stats
    directory."""
    out = []
    for path in sorted(directory.glob("*.json")):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise RocmBakeError(f"{path}: unreadable compiler-cache statistics ({exc})") \
                from None
        if isinstance(raw, dict):
            out.append(CacheStats.parse(path.stem, raw))
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
        out.append(f"{stats.name}: {stats.tool} hit rate {rate:.0%} on a rebuild "
                   f"(expected >= {threshold:.0%}): is the cache shared and keyed right?")
    hip = stats.language(HIP)
    if rebuild and hip.hits == 0 and hip.requests >= MIN_HIP_REQUESTS:
        out.append(f"{stats.name}: 0 HIP hits of {hip.requests} HIP compiles on a rebuild: "
                   "are the GPU archs, ROCm device libraries and cache backend the same as "
                   "the build that filled the cache?")
    if not read_only and stats.writes == 0 and stats.write_errors > 0:
        out.append(f"{stats.name}: {stats.tool} wrote nothing ({stats.write_errors} write errors) "
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
                if isinstance(raw, dict) and (isinstance(raw.get("stats"), dict)
                                              or isinstance(raw.get("ccache"), dict)):
                    out.append(CacheStats.parse(name, raw))
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
    """One line per build: CACHED steps and the compiler cache's hit rate of the steps that
    ran (ccache: how many hits skipped the preprocessor, ``direct``)."""
    runs = [s for s in steps if s.is_run]
    cached = sum(1 for s in runs if s.cached)
    line = f"{label}: {cached}/{len(runs)} RUN steps CACHED"
    if stats:
        all_ = total(stats)
        rate = all_.hit_rate
        line += (f", {all_.tool} {all_.hits} hits / {all_.misses} misses"
                 + (f" ({rate:.0%})" if rate is not None else "")
                 + (f", {all_.direct} direct" if "ccache" in all_.tool.split("+") else "")
                 + f", {all_.writes} writes")
        hip = all_.language(HIP)
        if hip.requests:
            line += "; " + ", ".join(f"{lang} {item.hits} hits / {item.misses} misses"
                                     for lang, item in all_.languages.items())
    return line
