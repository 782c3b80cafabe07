"""``inv reports.serve``: the fleet-run report, the nightly results and the perf report on
127.0.0.1, rendered per request from ``fleet-logs/`` and the perf history. An open fleet page
asks ``/fleet/versions.json`` twice a second and fetches only the runs that changed, so a run
in flight updates without a reload. While serving, ``fleet-logs/.reports-server.json`` names
the URL, so ``inv fleet.build`` can print where to watch."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

import requests

from rocm_bake.core import pageserver
from rocm_bake.perf import history, report
from rocm_bake.reports import pages, runs

STATE_FILE = ".reports-server.json"
_RUN = re.compile(r"^/fleet/run/([^/]+)\.json$")


@dataclass(frozen=True)
class Site:
    logs: Path
    perf_history: Path

    def get(self, path: str) -> pageserver.Page | None:
        """(body, content type) for a path, or None (404)."""
        if path in ("/", "/index.html"):
            return pages.index(self.perf_history.is_file(),
                               len(runs.find(self.logs))).encode(), "text/html; charset=utf-8"
        if path in ("/fleet", "/fleet/", "/fleet/index.html"):
            page = pages.fleet(runs.raw(self.logs), live=True, base="/fleet/")
            return page.encode(), "text/html; charset=utf-8"
        if path == "/fleet/versions.json":
            listing = [[r.run_id, r.version] for r in runs.find(self.logs)]
            return json.dumps(listing).encode(), "application/json"
        if m := _RUN.match(path):
            found = [r for r in runs.find(self.logs) if r.run_id == unquote(m.group(1))]
            if not found:
                return None
            return found[0].path.read_bytes(), "application/json"
        if path in ("/nightly", "/nightly/", "/nightly/index.html"):
            page = pages.nightly(runs.views(self.logs), runs.registry_images(self.logs))
            return page.encode(), "text/html; charset=utf-8"
        if path in ("/perf", "/perf/", "/perf/index.html"):
            return (report.render(history.load(self.perf_history)).encode(),
                    "text/html; charset=utf-8")
        if path == "/perf/history.jsonl":
            body = self.perf_history.read_bytes() if self.perf_history.is_file() else b""
            return body, "application/x-ndjson"
        return None


def server(site: Site, port: int = 8002) -> ThreadingHTTPServer:
    """A server on 127.0.0.1:``port`` (0: any free port); call ``serve_forever``."""
    return pageserver.server(site.get, port)


def url_of(srv: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{srv.server_address[1]}/"


def announce(logs: Path, url: str) -> Path:
    """Name the running server in ``logs``/.reports-server.json (removed by ``retire``)."""
    logs.mkdir(parents=True, exist_ok=True)
    path = logs / STATE_FILE
    tmp = logs / f".{STATE_FILE}.tmp"
    tmp.write_text(json.dumps({"url": url, "pid": os.getpid()}) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def retire(logs: Path) -> None:
    (logs / STATE_FILE).unlink(missing_ok=True)


def running_url(logs: Path) -> str:
    """The fleet page's URL when a report server for ``logs`` answers, else ""."""
    try:
        state = json.loads((logs / STATE_FILE).read_text(encoding="utf-8"))
        url = str(state["url"])
        if requests.get(url, timeout=2).status_code != 200:
            return ""
    except (OSError, ValueError, KeyError, TypeError, requests.RequestException):
        return ""
    return url + "fleet/"
