"""``inv perf-report`` / ``inv perf-serve``: the perf history as one self-contained HTML page
(inline SVG drawn by inline script from the embedded records: no CDN, works from file://) and a
markdown summary for the docs. Served, the page re-reads ``history.jsonl`` every few seconds,
so a run in flight shows up as its records are appended."""

from __future__ import annotations

import html
import json
import threading
from collections.abc import Mapping, Sequence
from http.server import ThreadingHTTPServer
from pathlib import Path

from tabulate import tabulate

from rocm_bake.core import atomic, pageserver
from rocm_bake.perf import history

_PAGE = (Path(__file__).parent / "report.html").read_text(encoding="utf-8")


def _md_to_html(text: str) -> str:
    """The summary's markdown tables as HTML (headings, tables and paragraphs only)."""
    out: list[str] = []
    rows: list[list[str]] = []

    def flush() -> None:
        if rows:
            head, *body = rows
            out.append(tabulate(body, headers=head, tablefmt="html", disable_numparse=True))
            rows.clear()

    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if not all(set(c) <= {"-"} for c in cells):
                rows.append(cells)
            continue
        flush()
        if line.startswith("### "):
            out.append(f"<h3>{html.escape(line[4:].replace('`', ''))}</h3>")
        elif line.strip():
            out.append(f"<p>{html.escape(line.replace('`', ''))}</p>")
    flush()
    return "\n".join(out)


def render(records: Sequence[Mapping[str, object]]) -> str:
    data = json.dumps(list(records)).replace("</", "<\\/")
    return (_PAGE.replace("__SUMMARY__", _md_to_html(history.markdown(records)))
            .replace("__DATA__", data))


def write(history_path: Path, out_dir: Path) -> tuple[Path, Path]:
    """Write ``report.html`` and ``summary.md`` into ``out_dir``."""
    records = history.load(history_path)
    page, summary = out_dir / "report.html", out_dir / "summary.md"
    atomic.write_text(page, render(records))
    atomic.write_text(summary, history.markdown(records))
    return page, summary


def serve(history_path: Path, port: int = 8001,
          ready: threading.Event | None = None) -> ThreadingHTTPServer:
    """Serve the report on 127.0.0.1:``port`` (rendered per request from the history)."""

    def get(path: str) -> pageserver.Page | None:
        if path in ("/", "/index.html", "/report.html"):
            return render(history.load(history_path)).encode(), "text/html; charset=utf-8"
        if path == "/history.jsonl":
            body = history_path.read_bytes() if history_path.is_file() else b""
            return body, "application/x-ndjson"
        return None

    server = pageserver.server(get, port)
    if ready is not None:
        ready.set()
    return server
