"""``inv reports.publish DIR``: every report as static files (what the lanes upload)."""

from __future__ import annotations

from pathlib import Path

from rocm_bake.core import atomic
from rocm_bake.perf import history, report
from rocm_bake.reports import pages, runs


def publish(out: Path, logs: Path, perf_history: Path | None = None) -> list[Path]:
    """Write index.html, fleet/index.html, nightly/index.html and (with a perf history)
    perf/index.html under ``out``; return the files written."""
    views = runs.views(logs)
    has_perf = perf_history is not None and perf_history.is_file()
    files = {out / "index.html": pages.index(has_perf, len(views)),
             out / "fleet" / "index.html": pages.fleet(runs.raw(logs)),
             out / "nightly" / "index.html": pages.nightly(views, runs.registry_images(logs))}
    if has_perf and perf_history is not None:
        files[out / "perf" / "index.html"] = report.render(history.load(perf_history))
    for path, text in files.items():
        atomic.write_text(path, text)
    return list(files)
