"""inv reports.serve / reports.publish: the fleet-run report, the nightly results and the perf
report, live on 127.0.0.1 or as static files."""

from __future__ import annotations

from pathlib import Path

from invoke.context import Context
from invoke.tasks import task

from tasks._cli import reports_errors

ROOT = Path(__file__).resolve().parent.parent


@task(auto_shortflags=False, help={
    "port": "port on 127.0.0.1 (default 8002; 0 picks a free one)",
    "log_dir": "the fleet runs' directory (default fleet-logs)",
    "history_": "the perf history (default perf/history.jsonl)"})
@reports_errors
def serve(c: Context, port: int = 8002, log_dir: str = "fleet-logs",
          history_: str = "perf/history.jsonl") -> None:
    """Serve every report on 127.0.0.1; an open page follows a fleet run in flight."""
    from rocm_bake.reports import serve as served

    logs = Path(log_dir)
    srv = served.server(served.Site(logs, Path(history_)), port)
    url = served.url_of(srv)
    try:   # a Ctrl-C as soon as the URL is printed still retires the state file
        served.announce(logs, url)
        print(f"serving the reports on {url} (fleet runs: {url}fleet/, nightly: {url}nightly/, "
              f"perf: {url}perf/); Ctrl-C stops", flush=True)
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        served.retire(logs)
        srv.server_close()


@task(auto_shortflags=False, help={
    "log_dir": "the fleet runs' directory (default fleet-logs)",
    "history_": "the perf history (default perf/history.jsonl)"})
@reports_errors
def publish(c: Context, out: str, log_dir: str = "fleet-logs",
            history_: str = "perf/history.jsonl") -> None:
    """Write every report under OUT as static files (index, fleet/, nightly/, perf/)."""
    from rocm_bake.reports import publish as publishing

    for path in publishing.publish(Path(out), Path(log_dir), Path(history_)):
        print(path)
