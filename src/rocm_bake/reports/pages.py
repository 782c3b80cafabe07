"""The report pages as HTML text: the fleet-run timeline (every run embedded, so the static
file works offline and the selector switches without a reload), the nightly results and an
index. Nothing here reads the network; everything is inline."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rocm_bake.reports import runs

_FLEET = (Path(__file__).parent / "fleet.html").read_text(encoding="utf-8")
POLL_MS = 500          # how often a served page asks whether a run changed


def _script_safe(text: str) -> str:
    """JSON text safe inside <script>: every "<" (only ever inside a JSON string) escaped."""
    return text.replace("<", "\\u003c")


def _embed(data: object) -> str:
    return _script_safe(json.dumps(data, separators=(",", ":")))


def fleet(records: Sequence[runs.RawRun], live: bool = False, base: str = "") -> str:
    """The fleet-run report: every run's run.json embedded as the fleet wrote it (the page
    computes the view, so rendering is reading files); ``live``: the page polls
    ``base``versions.json and fetches the runs that changed."""
    data = {"runs": [[r.file.run_id, r.file.version] for r in records], "live": live,
            "base": base, "poll_ms": POLL_MS}
    blocks = "\n".join(
        f'<script id="run-{html.escape(r.file.run_id)}" type="application/json">'
        f"{_script_safe(r.text)}</script>" for r in records)
    return _FLEET.replace("__DATA__", _embed(data)).replace("__RUNS__", blocks)


def _page(title: str, body: str) -> str:
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><link rel=\"icon\" href=\"data:,\"><style>"
            "body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}"
            "table{border-collapse:collapse;margin-bottom:1.5em}"
            "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}"
            ".built{color:#2f7d4f}.failed{color:#c8463d}.skipped,.blocked{color:#777}"
            ".badge{background:#5b4fb3;color:#fff;border-radius:3px;padding:0 .4em}"
            "code{font-size:12px}td.audit{white-space:pre-wrap;font-size:12px}"
            "</style></head><body>\n" + body + "\n</body></html>\n")


def _audit_class(code: object) -> str:
    """The arch audit's verdict as a class: ok, failed (1 wrong arch / no GPU code; 2 not
    read) or none (not audited)."""
    return {0: "built", 1: "failed", 2: "failed"}.get(code, "") if isinstance(code, int) else ""


def _nightly_rows(run: dict[str, Any]) -> dict[str, list[list[str]]]:
    by_arch: dict[str, list[list[str]]] = {}
    for cell in run["cells"]:
        last = cell["attempts"][-1] if cell["attempts"] else {}
        status = cell["status"]
        why = (last.get("failed_step") or cell["reason"]) if status == "failed" else (
            cell["reason"] if status != "built" else "")
        by_arch.setdefault(cell["arch"], []).append(
            [cell["component"], status, why,
             (last.get("digest") or "") if status == "built" else "", cell["ref"],
             "\n".join(cell["audit"]), _audit_class(cell.get("audit_exit"))])
    for skip in run["skipped"]:
        by_arch.setdefault(skip.get("arch", ""), []).append(
            [skip.get("component", ""), "skipped", skip.get("reason", ""), "", "", "", ""])
    return by_arch


def _images_section(report: dict[str, Any]) -> str:
    """``inv version-check --images``' report: each published image, current or stale, and
    what differs ("built from X a; bake file pins b")."""
    rows = []
    for image in report["images"]:
        verdict = str(image.get("verdict", ""))
        differs = [f"built from {p['name']} {p['built']}; bake file pins {p['bake']}"
                   for p in image.get("pins") or [] if p.get("differs")]
        upstream = [f"{p['name']} {p['built']}: {p['upstream']['status']}"
                    + (f" (newest {p['upstream']['newest']})" if p["upstream"].get("newest")
                       else "")
                    for p in image.get("pins") or [] if p.get("upstream")
                    and p["upstream"].get("drift")]
        why = "; ".join(differs + upstream) or image.get("error") or "the bake file's pins"
        css = {"current": "built", "stale": "failed"}.get(verdict, "failed")
        rows.append(f"<tr><td class=\"{css}\">{html.escape(verdict)}</td>"
                    f"<td><code>{html.escape(str(image.get('reference', '')))}</code></td>"
                    f"<td>{html.escape(str(image.get('cell', '')))}</td>"
                    f"<td>{html.escape(why)}</td></tr>")
    return (f"<h2 id=\"registry\">Published images in {html.escape(str(report['registry']))}"
            "</h2><table><tr><th>verdict</th><th>image</th><th>cell</th>"
            "<th>against the bake file and upstream</th></tr>" + "".join(rows) + "</table>")


def nightly(runs: Sequence[dict[str, Any]], images: dict[str, Any] | None = None) -> str:
    """The newest nightly-lane run per tag: per arch and cell, built / skipped (why) / failed
    (the failing step), with the digests published and each cell's arch audit lines; then
    (``images``, the report of ``inv version-check --images``) every published image against
    the bake file and upstream."""
    newest: dict[str, dict[str, Any]] = {}
    for run in runs:                                   # newest first
        if run["lane"] == "nightly":
            newest.setdefault(run["tag"] or run["id"], run)
    registry = _images_section(images) if images is not None else ""
    if not newest:
        return _page("rocm-bake nightly results",
                     "<h1>Nightly results</h1><p>No nightly-lane run in fleet-logs/ yet.</p>"
                     + registry)
    parts = ["<h1>Nightly results <span class=\"badge\">nightly</span></h1>"]
    for tag, run in sorted(newest.items()):
        parts.append(f"<h2>{html.escape(tag)}</h2><p>run <code>{html.escape(run['id'])}"
                     f"</code>, wall time {run['wall']:.0f} s, "
                     f"{run['counts']['built']} built / {run['counts']['failed']} failed / "
                     f"{run['counts']['blocked']} blocked / {len(run['skipped'])} skipped</p>")
        for arch, rows in sorted(_nightly_rows(run).items()):
            body = "".join(
                f"<tr class=\"{html.escape(r[1])}\"><td>{html.escape(r[0])}</td>"
                f"<td class=\"{html.escape(r[1])}\">{html.escape(r[1])}</td>"
                f"<td>{html.escape(r[2])}</td><td><code>{html.escape(r[3])}</code></td>"
                f"<td><code>{html.escape(r[4])}</code></td>"
                f"<td class=\"audit {r[6]}\">{html.escape(r[5])}</td></tr>"
                for r in sorted(rows))
            parts.append(f"<h3>{html.escape(arch)}</h3><table><tr><th>cell</th><th>result</th>"
                         "<th>why / failing step</th><th>digest</th><th>image</th>"
                         f"<th>arch audit</th></tr>{body}</table>")
    return _page("rocm-bake nightly results", "\n".join([*parts, registry]))


def index(has_perf: bool, runs: int) -> str:
    links = [f"<li><a href=\"fleet/\">Fleet runs</a> ({runs} run(s), newest first)</li>",
             "<li><a href=\"nightly/\">Nightly results</a></li>"]
    if has_perf:
        links.append("<li><a href=\"perf/\">Build performance</a></li>")
    return _page("rocm-bake reports", "<h1>rocm-bake reports</h1><ul>" + "".join(links)
                 + "</ul>")
