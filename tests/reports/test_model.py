"""The summary view (nightly page, docs), what a fleet log yields, and the TLS settings of a
node: plain functions over real files."""

from __future__ import annotations

import signal
import subprocess
import threading
from pathlib import Path

import pytest
import requests

from rocm_bake.docker.connection import Connection
from rocm_bake.fleetbuild import config as fleet
from rocm_bake.fleetbuild import nodes
from rocm_bake.fleetbuild.record import log_facts
from rocm_bake.reports import runs, serve
from tests.conftest import ROOT, VENV_BIN, minimal_env
from tests.reports import synthetic

LOG = """\
#7 [2/2] RUN ./build.sh
#7 12.3 Cache hits (C/C++)                  40
#7 12.3 Cache misses (C/C++)                 2
#7 20.1 Cache hits (C/C++)                 100
#7 20.1 Cache misses (C/C++)                 5
#7 20.1 Cache hits (CUDA)                    3
#8 [3/3] RUN ./more.sh
#8 1.0 Cache hits (C/C++)                    7
#8 1.0 Cache misses (C/C++)                  1
#9 pushing manifest for 127.0.0.1:5000/p/c:t@sha256:{d} 0.1s done
#10 [4/4] RUN false
#10 ERROR: process "/bin/sh -c false" did not complete successfully: exit code: 1
"""


def test_log_facts_count_the_last_stats_of_each_step_and_name_the_failing_step(
        tmp_path: Path) -> None:
    log = tmp_path / "cell.log"
    log.write_text(LOG.replace("{d}", "a" * 64))
    facts = log_facts(log)
    assert facts.sccache == {"C/C++": {"hits": 107, "misses": 6},
                             "CUDA": {"hits": 3, "misses": 0}}
    assert facts.digest == "sha256:" + "a" * 64
    assert facts.failed_step == "[4/4] RUN false"


def test_runs_newest_first_and_the_summary_view(tmp_path: Path) -> None:
    for i in (3, 1, 2):
        synthetic.write(tmp_path, synthetic.record(i, cells=6, nodes=2))
    found = runs.find(tmp_path)
    assert [r.run_id for r in found] == [synthetic.run_id(i) for i in (3, 2, 1)]
    view = runs.view(runs.load(found[0].path), found[0].version)
    assert view["counts"]["built"] == 6 and view["lane"] == "fleet"
    assert 0 < view["utilisation"] <= 1
    assert {n["name"] for n in view["nodes"]} == {"n1", "n2"}


def test_a_rewrite_changes_the_version(tmp_path: Path) -> None:
    rec = synthetic.record(1, finished=False)
    synthetic.write(tmp_path, rec)
    before = runs.find(tmp_path)[0].version
    synthetic.write(tmp_path, rec)            # same content, a new file (atomic replace)
    assert runs.find(tmp_path)[0].version != before


def test_a_record_without_cells_is_named(tmp_path: Path) -> None:
    path = tmp_path / "r" / "run.json"
    path.parent.mkdir()
    path.write_text("{}")
    with pytest.raises(runs.ReportError, match="not a fleet run record"):
        runs.load(path)


def _node(tmp_path: Path, extra: str) -> fleet.Node:
    path = tmp_path / "fleet.toml"
    path.write_text('[registry]\nurl = "http://127.0.0.1:5000"\n[[nodes]]\nname = "n"\n'
                    'endpoint = "tcp://127.0.0.1:2376"\n' + extra)
    return fleet.load(path).nodes[0]


def test_tls_paths_go_to_docker_flags_relative_to_the_fleet_file(tmp_path: Path) -> None:
    node = _node(tmp_path, 'tls_ca = "c/ca.pem"\ntls_cert = "c/cert.pem"\n'
                           'tls_key = "/abs/key.pem"\n')
    connection = Connection.of(node)
    assert connection.argv() == [
        "docker", "--tlsverify", "--tlscacert", str(tmp_path / "c/ca.pem"),
        "--tlscert", str(tmp_path / "c/cert.pem"), "--tlskey", "/abs/key.pem"]
    env = connection.env({"DOCKER_CERT_PATH": "/elsewhere", "DOCKER_TLS_VERIFY": "1"})
    assert env == {"DOCKER_HOST": "tcp://127.0.0.1:2376"}
    assert nodes.transport(node) == "mutual TLS" and not nodes.insecure_tcp(node)


def test_tcp_without_tls_is_insecure_unless_accepted(tmp_path: Path) -> None:
    assert nodes.insecure_tcp(_node(tmp_path, ""))
    accepted = _node(tmp_path, "insecure = true\n")
    assert not nodes.insecure_tcp(accepted)
    assert nodes.transport(accepted) == "NO TLS (insecure = true)"
    with pytest.raises(fleet.FleetError, match="insecure must be true or false"):
        _node(tmp_path, 'insecure = "yes"\n')


def test_the_server_serves_every_report_and_the_raw_records(tmp_path: Path) -> None:
    logs, history = tmp_path / "fleet-logs", tmp_path / "history.jsonl"
    path = synthetic.write(logs, synthetic.record(1))
    history.write_text('{"time": "2026-01-01T00:00:00Z", "condition": "warm", '
                       '"target": "base-a1", "seconds": 3.5, "arch": "a1", '
                       '"workload": {"bake_file": "fleet.hcl"}}\n')
    srv = serve.server(serve.Site(logs, history), 0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = serve.url_of(srv)
    try:
        pages = {p: requests.get(url + p, timeout=10) for p in
                 ("", "fleet/", "nightly/", "perf/", "perf/history.jsonl",
                  "fleet/versions.json", f"fleet/run/{path.parent.name}.json", "nope")}
    finally:
        srv.shutdown()
        srv.server_close()
    assert {p: r.status_code for p, r in pages.items()} == {
        **{p: 200 for p in pages if p != "nope"}, "nope": 404}
    assert "rocm-bake build performance" in pages["perf/"].text
    assert pages["fleet/versions.json"].json() == [[path.parent.name,
                                                     runs.find(logs)[0].version]]
    assert pages[f"fleet/run/{path.parent.name}.json"].content == path.read_bytes()
    assert 'href="perf/"' in pages[""].text


def test_a_history_record_the_page_cannot_read_is_a_500_naming_it(tmp_path: Path) -> None:
    history = tmp_path / "history.jsonl"
    history.write_text('{"time": "2026-01-01T00:00:00Z", "condition": "warm", '
                       '"target": "base-a1", "seconds": 3.5}\n')     # no arch, no workload
    srv = serve.server(serve.Site(tmp_path / "fleet-logs", history), 0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        page = requests.get(serve.url_of(srv) + "perf/", timeout=10)
    finally:
        srv.shutdown()
        srv.server_close()
    assert page.status_code == 500
    assert page.text == f"error: {history}:1: arch must be a non-empty string, got None\n"


def test_a_ctrl_c_as_soon_as_the_url_is_printed_retires_the_server(tmp_path: Path) -> None:
    """The URL line is printed once the state file names the server: a Ctrl-C from then on
    (here: at once) stops it cleanly and removes the file."""
    logs = tmp_path / "logs"
    proc = subprocess.Popen(["env", "--default-signal=INT", str(VENV_BIN / "inv"),
                             "reports.serve", "--port", "0", "--log-dir", str(logs)],
                            cwd=ROOT, env=minimal_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("serving the reports on http://127.0.0.1:"), line
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert not (logs / serve.STATE_FILE).exists()
