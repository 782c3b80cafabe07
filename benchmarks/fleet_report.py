"""Benchmark: the fleet-run report of a 200-cell, 3-node synthetic run with a history of 50
runs: the time to render the page (reading 50 run.json files) and the time headless Chromium
takes to load and draw it (navigation start to the timeline drawn). Targets: both under 1 s.

    .venv/bin/python benchmarks/fleet_report.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rocm_bake.reports import pages, publish, runs  # noqa: E402
from tests.docs import browser  # noqa: E402
from tests.reports import synthetic  # noqa: E402

RUNS, CELLS, NODES = 50, 200, 3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rocm-bake-bench-report-") as tmp:
        logs = Path(tmp) / "fleet-logs"
        for i in range(RUNS):
            synthetic.write(logs, synthetic.record(i, cells=CELLS, nodes=NODES))
        render: list[float] = []
        page = ""
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            page = pages.fleet(runs.raw(logs))
            render.append(time.perf_counter() - t0)
        publish.publish(Path(tmp) / "site", logs)
        url = (Path(tmp) / "site" / "fleet" / "index.html").as_uri()
        load: list[float] = []
        with browser.chromium() as chrome:
            for _ in range(args.repeat):
                chrome.get("about:blank")
                chrome.get(url)              # returns after the load event (scripts ran)
                drawn = chrome.execute_script(
                    "return document.querySelectorAll('rect.bar').length")
                assert drawn == CELLS, drawn
                ms = chrome.execute_script(
                    "const n=performance.getEntriesByType('navigation')[0];"
                    "return n.loadEventEnd - n.startTime")
                load.append(float(ms) / 1000)
    print(f"{CELLS} cells x {NODES} nodes, history of {RUNS} runs, page {len(page) / 1e6:.2f} MB")
    print(f"render (read {RUNS} run.json + HTML): median {statistics.median(render):.3f} s "
          f"(min {min(render):.3f}, max {max(render):.3f}; target < 1 s)")
    print(f"page load in headless Chromium:      median {statistics.median(load):.3f} s "
          f"(min {min(load):.3f}, max {max(load):.3f}; target < 1 s)")
    return 0 if max(statistics.median(render), statistics.median(load)) < 1 else 1


if __name__ == "__main__":
    sys.exit(main())
