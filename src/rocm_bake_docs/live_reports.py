"""docs/live-reports.md: the newest fleet run's summary (from ``fleet-logs/``, as the reports
read it), where the reports are served and published, and what each lane measures. With no
run recorded the page says so."""

from __future__ import annotations

import time
from typing import Any

from rocm_bake.reports import runs
from rocm_bake_docs import markdown as md
from rocm_bake_docs.source import Source

PATH = "live-reports.md"

LANES = [
    ["fleet (`./inv fleet.build` by hand)",
     "every selected cell of every arch across the project's own BuildKit nodes at once: wall "
     "time, node utilisation, the critical path",
     "whatever the registry cache and sccache hold: cold after a pin bump, hot when nothing "
     "changed"],
    ["nightly (`.github/workflows/nightly.yml`, or `buildspec.yml` on AWS CodeBuild)",
     "one warm bake per arch, one arch per job, published: per cell built / skipped (why) / "
     "failed (the failing step) and the digests pushed",
     "always warm: the previous night wrote the caches; driven from a GitHub runner or a "
     "CodeBuild build that reaches the fleet"],
]


def _summary(run: dict[str, Any]) -> str:
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(run["started"]))
    counts = run["counts"]
    nodes = ", ".join(f"{n['name']} {n['utilisation']:.0%}"
                      + (" (lost)" if n["lost"] else "") for n in run["nodes"])
    rows = [["run", md.code(run["id"])], ["lane", run["lane"]], ["started", started],
            ["wall time", f"{run['wall']:.0f} s" + ("" if run["finished"] else " (in flight)")],
            ["node utilisation", f"{run['utilisation']:.0%} ({md.cell(nodes)})"],
            ["cells", f"{counts['built']} built / {counts['failed']} failed / "
                      f"{counts['blocked']} blocked"]]
    return md.table(["newest run", ""], rows)


def render(source: Source) -> str:
    found = runs.find(source.fleet_logs_path)
    newest = runs.view(runs.load(found[0].path), found[0].version) if found else None
    parts = [
        md.header(f"{source.fleet_logs}/*/run.json (the fleet runs)"),
        "# Live reports\n",
        "Two reports draw what the lanes record: **fleet runs** (every cell across all the "
        "nodes at once: a timeline lane per node, a bar per cell attempt coloured by outcome, "
        "the critical path, a selector over every run, newest first) and **nightly results** "
        "(per arch and cell: built, skipped and why, failed and the failing step, the digests "
        "pushed). Both are self-contained HTML pages: no CDN, they work offline.\n",
        "## The newest run\n",
        _summary(newest) if newest else
        f"No fleet run is recorded in `{source.fleet_logs}/` of this checkout yet: "
        "`./inv fleet.build` writes one (`run.json` per run), and `./inv docs` then summarises "
        "the newest here.\n",
        "## Where to look\n",
        md.table(["command", "what you get"], [
            ["`./inv reports.serve`", "every report on http://127.0.0.1:8002/ — fleet runs at "
             "`/fleet/`, nightly results at `/nightly/`, the perf report at `/perf/`. An open "
             "fleet page follows a run in flight (bars appear as cells start and finish), with "
             "no reload; `./inv fleet.build` prints the URL while the server runs"],
            ["`./inv reports.publish DIR`", "the same reports as static files (`index.html`, "
             "`fleet/`, `nightly/`, `perf/`): what the lanes upload"],
            ["`./inv perf-report`", "the perf history alone, as `perf/report.html`"],
        ]),
        "## What each lane measures\n",
        md.table(["lane", "measures", "caches"], LANES),
        "The two lanes are **not comparable**: a fleet run builds every arch at once on the "
        "project's own nodes from whatever the caches hold (cold or warm), while the nightly "
        "lane (GitHub or CodeBuild) is always a warm bake of one arch per job, with its "
        "driver's own start-up and network path to the fleet. Compare a lane only with itself "
        "over time; the [Performance](performance.md) page compares the cache conditions on "
        "one machine.\n",
    ]
    return "\n".join(parts)
