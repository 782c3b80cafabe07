"""The reports of a real two-node fleet run: served live while `inv fleet.build` runs (which
prints the URL), then published as static files and looked at in headless Chromium."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, VENV_BIN, minimal_env, run_cli
from tests.fleet.conftest import TwoNodes, fresh_salt
from tests.fleet.test_two_nodes import audited_line, build_argv, record


@pytest.fixture
def report_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``inv reports.serve`` on a free port over tmp_path/logs; its first line names the URL.
    It starts with SIGINT at its default, as a terminal's foreground command has it (a suite
    run in the background by a non-interactive shell inherits SIGINT ignored), so the SIGINT
    at the end is the user's Ctrl-C."""
    logs = tmp_path / "logs"
    proc = subprocess.Popen(["env", "--default-signal=INT", str(VENV_BIN / "inv"),
                             "reports.serve", "--port", "0", "--log-dir", str(logs)],
                            cwd=ROOT, env=minimal_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()          # the event: the server is listening
        assert line.startswith("serving the reports on http://127.0.0.1:"), line
        yield line.split()[4], logs
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()                         # never leak the server
            proc.communicate()
            raise
    assert proc.returncode == 0, err[-2000:]
    assert not (logs / ".reports-server.json").exists()      # retired on Ctrl-C


def test_a_real_run_served_live_then_published_shows_both_lanes(
        two_nodes: TwoNodes, report_server: tuple[str, Path], chrome: Any,
        tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By  # noqa: PLC0415 (the docs group)

    from tests.docs import browser  # noqa: PLC0415

    url, logs = report_server
    result = run_cli(build_argv(two_nodes, logs, "--lane", "nightly"),
                     env={"SALT": fresh_salt(), "SLEEP": "1"})
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"live report: {url}fleet/" in result.stdout
    rec = record(logs)
    assert {c["node"] for c in rec["cells"]} == {"node1", "node2"}
    assert all(a["digest"].startswith("sha256:") for c in rec["cells"] for a in c["attempts"])

    chrome.set_window_size(1280, 700)
    chrome.get(url + "fleet/")
    lanes = {e.text for e in chrome.find_elements(By.CSS_SELECTOR, "text.lane")}
    assert lanes == {"node1", "node2"}
    on = {n: chrome.find_elements(By.CSS_SELECTOR, f'rect.bar.built[data-node="{n}"]')
          for n in ("node1", "node2")}
    assert on["node1"] and on["node2"] and len(on["node1"]) + len(on["node2"]) == 6
    head = chrome.find_element(By.ID, "head").text
    assert "6 built / 0 failed / 0 blocked" in head and rec["run_id"] in head
    on["node2"][0].click()
    detail = chrome.find_element(By.ID, "detail").text
    assert "digest sha256:" in detail
    # the tooltip carries the cell's arch audit, as inv fleet.build printed it
    shown = on["node2"][0].get_attribute("data-cell")
    assert f"arch:  {audited_line(shown, rec['run_id'])}" in detail
    assert f"arch: {audited_line(shown, rec['run_id'])}" in result.stderr
    chrome.save_screenshot(str(tmp_path / "fleet-served.png"))
    assert browser.console_errors(chrome) == []

    site = tmp_path / "site"
    published = run_cli([str(VENV_BIN / "inv"), "reports.publish", str(site), "--log-dir",
                         str(logs), "--history", str(tmp_path / "none.jsonl")])
    assert published.returncode == 0, published.stderr
    assert {p.relative_to(site).as_posix() for p in site.rglob("*.html")} == {
        "index.html", "fleet/index.html", "nightly/index.html"}
    chrome.get((site / "fleet" / "index.html").as_uri())
    assert {e.text for e in chrome.find_elements(By.CSS_SELECTOR, "text.lane")} == lanes
    assert len(chrome.find_elements(By.CSS_SELECTOR, "rect.bar")) == 6
    chrome.save_screenshot(str(tmp_path / "fleet-published.png"))
    assert browser.console_errors(chrome) == []
    # the nightly page: every cell's arch audit lines
    chrome.get((site / "nightly" / "index.html").as_uri())
    audits = [e.text for e in chrome.find_elements(By.CSS_SELECTOR, "td.audit.built")]
    assert sorted(audits) == sorted(audited_line(c["cell"], rec["run_id"])
                                    for c in rec["cells"])
    chrome.save_screenshot(str(tmp_path / "nightly-published.png"))
