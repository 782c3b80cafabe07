"""The fleet-run report in headless Chromium: the run selector, a run in flight (served), the
nightly page; each test saves a screenshot in its tmp dir."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rocm_bake.reports import pages, publish, runs, serve
from tests.docs import browser
from tests.reports import synthetic

HANG_GUARD = 60.0       # seconds: only a hang ever reaches it
# selenium (the docs group) is imported inside the tests: without it the chrome fixture fails
# first, naming chromium.


def bars(chrome: Any, **attrs: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    selector = "rect.bar" + "".join(f'[data-{k}="{v}"]' for k, v in attrs.items())
    return list(chrome.find_elements(By.CSS_SELECTOR, selector))


def shot(chrome: Any, path: Path) -> None:
    height = int(chrome.execute_script("return document.body.scrollHeight"))
    chrome.set_window_size(1280, min(max(height + 40, 600), 3000))
    chrome.save_screenshot(str(path))
    assert path.stat().st_size > 10_000


def test_the_selector_switches_between_two_runs(chrome: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    logs = tmp_path / "fleet-logs"
    older = synthetic.write(logs, synthetic.record(1, cells=6, nodes=2))
    newer = synthetic.write(logs, synthetic.record(2, cells=9, nodes=3))
    publish.publish(tmp_path / "site", logs)
    chrome.set_window_size(1280, 800)
    chrome.get((tmp_path / "site" / "fleet" / "index.html").as_uri())
    body = chrome.find_element(By.TAG_NAME, "body")
    select = Select(chrome.find_element(By.ID, "run"))
    assert [o.text for o in select.options] == [newer.parent.name, older.parent.name]
    assert body.get_attribute("data-run") == newer.parent.name      # newest by default
    assert len(bars(chrome)) == 9 and len(bars(chrome, node="n3")) > 0
    chrome.execute_script("window.notReloaded = true")
    select.select_by_visible_text(older.parent.name)
    assert body.get_attribute("data-run") == older.parent.name
    assert len(bars(chrome)) == 6 and not bars(chrome, node="n3")
    assert older.parent.name in chrome.find_element(By.ID, "head").text
    assert chrome.execute_script("return window.notReloaded") is True     # no reload
    bars(chrome, cell="top-a2")[0].click()
    detail = chrome.find_element(By.ID, "detail").text
    for fact in ("cell   top-a2", "arch   a2", "node   n", "RUN", "CACHED", "sccache c/c++",
                 "digest sha256:", "arch:  " + synthetic.audit_line(
                     "top-a2", "a2", "127.0.0.1:5000/x/top-a2:t")):
        assert fact in detail, detail
    shot(chrome, tmp_path / "selector.png")
    assert browser.console_errors(chrome) == []


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    logs = tmp_path / "fleet-logs"
    logs.mkdir()
    srv = serve.server(serve.Site(logs, tmp_path / "none.jsonl"), 0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield serve.url_of(srv), logs
    finally:
        srv.shutdown()
        srv.server_close()


def test_a_run_in_flight_gains_a_finished_bar_without_a_reload(
        chrome: Any, served: tuple[str, Path], tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    url, logs = served
    synthetic.write(logs, synthetic.record(1, cells=6, nodes=2))
    in_flight = synthetic.record(2, cells=6, nodes=2, finished=False,
                                 t0=time.time() - 2 * 86_400 - 400)
    synthetic.write(logs, in_flight)
    chrome.set_window_size(1280, 800)
    chrome.get(url + "fleet/")
    assert len(bars(chrome, cell="top-a2", outcome="running")) == 1
    assert "in flight" in chrome.find_element(By.ID, "badges").text
    chrome.execute_script("window.notReloaded = true")
    shot(chrome, tmp_path / "in-flight-before.png")
    # the cell finishes: the fleet rewrites run.json (atomically), the page follows
    last = in_flight.cells["top-a2"]
    last.status, last.attempts[-1].returncode = "built", 0
    last.attempts[-1].end = last.attempts[-1].start + 12.0
    in_flight.finished, in_flight.exit_status = last.attempts[-1].end, 0
    synthetic.write(logs, in_flight)
    WebDriverWait(chrome, HANG_GUARD).until(
        lambda c: bars(c, cell="top-a2", outcome="built"))
    assert not bars(chrome, outcome="running")
    assert "in flight" not in chrome.find_element(By.ID, "badges").text
    assert chrome.execute_script("return window.notReloaded") is True
    shot(chrome, tmp_path / "in-flight-after.png")
    assert browser.console_errors(chrome) == []


def test_a_new_run_appears_in_the_open_page(chrome: Any, served: tuple[str, Path]) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    url, logs = served
    synthetic.write(logs, synthetic.record(1))
    chrome.get(url + "fleet/")
    chrome.execute_script("window.notReloaded = true")
    newer = synthetic.write(logs, synthetic.record(2, finished=False))
    WebDriverWait(chrome, HANG_GUARD).until(
        lambda c: c.find_element(By.TAG_NAME, "body").get_attribute("data-run")
        == newer.parent.name)
    assert chrome.execute_script("return window.notReloaded") is True


def test_the_nightly_page_names_built_skipped_and_failed(chrome: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    logs = tmp_path / "fleet-logs"
    rec = synthetic.record(3, cells=6, nodes=2)
    rec.lane, rec.tag = "nightly", "nightly-a1"
    failed = rec.cells["top-a2"]
    failed.status, failed.reason = "failed", "build failed"
    failed.attempts[-1].returncode, failed.attempts[-1].failed_step = 1, "[2/2] RUN make"
    failed.audit, failed.audit_exit = [], None      # a cell not built is not audited
    wrong = rec.cells["mid-a2"]
    wrong.audit = ["mid-a2: expected a2: NO GPU CODE: 1 host-only ELF file(s), none with GPU "
                   "code, in image 127.0.0.1:5000/x/mid-a2:t (from its registry)",
                   "mid-a2: no GPU code objects in docker://127.0.0.1:5000/x/mid-a2:t "
                   "(expected a2)"]
    wrong.audit_exit = 1
    rec.skipped = [{"component": "cupy", "arch": "a2", "reason": "no wheel for a2"}]
    synthetic.write(logs, rec)
    publish.publish(tmp_path / "site", logs)
    chrome.get((tmp_path / "site" / "nightly" / "index.html").as_uri())
    text = chrome.find_element(By.TAG_NAME, "body").text
    assert "nightly-a1" in text and "no wheel for a2" in text and "[2/2] RUN make" in text
    assert rec.cells["base-a1"].attempts[-1].digest in text
    # each built cell's arch audit, as the fleet recorded it; a failed one marked so
    audits = chrome.find_elements(By.CSS_SELECTOR, "td.audit.built")
    assert len(audits) == 4 and all(cell.text.endswith("(/opt/rocm* left out: ROCm's own)")
                                    for cell in audits)
    (bad,) = chrome.find_elements(By.CSS_SELECTOR, "td.audit.failed")
    assert bad.text.splitlines() == wrong.audit
    shot(chrome, tmp_path / "nightly.png")


def test_the_nightly_page_shows_the_registry_images(chrome: Any, tmp_path: Path) -> None:
    """`inv version-check --images --images-out LOGS/registry-images.json`, then the page."""
    from selenium.webdriver.common.by import By

    from rocm_bake_checks.drift import images

    logs = tmp_path / "fleet-logs"
    rec = synthetic.record(4, cells=2, nodes=1)
    rec.lane, rec.tag = "nightly", "nightly-a1"
    synthetic.write(logs, rec)
    report = images.ImagesReport("127.0.0.1:5000", [
        images.ImageVerdict("127.0.0.1:5000/f/vllm-a1:nightly-a1", "linux/amd64", "sha256:1",
                            "vllm-a1", rows=[images.PinRow("VLLM_COMMIT", "2cf0a69", "3abc")]),
        images.ImageVerdict("127.0.0.1:5000/f/torch-a1:nightly-a1", "linux/amd64", "sha256:2",
                            "torch-a1", rows=[images.PinRow("PYTORCH_COMMIT", "6bbd", "6bbd")]),
    ])
    images.write(report, logs / runs.REGISTRY_IMAGES)
    publish.publish(tmp_path / "site", logs)
    chrome.get((tmp_path / "site" / "nightly" / "index.html").as_uri())
    heading = chrome.find_element(By.ID, "registry")
    table = heading.find_element(By.XPATH, "following-sibling::table")
    rows = [r.text for r in table.find_elements(By.TAG_NAME, "tr")[1:]]
    assert rows == ["stale 127.0.0.1:5000/f/vllm-a1:nightly-a1 vllm-a1 built from VLLM_COMMIT "
                    "2cf0a69; bake file pins 3abc",
                    "current 127.0.0.1:5000/f/torch-a1:nightly-a1 torch-a1 the bake file's pins"]
    shot(chrome, tmp_path / "nightly-registry.png")


def test_markup_in_a_record_stays_text_and_a_bad_record_is_named(
        chrome: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    logs = tmp_path / "fleet-logs"
    rec = synthetic.record(1)
    rec.cells["top-a2"].status = "failed"
    rec.cells["top-a2"].attempts[-1].returncode = 1
    rec.cells["top-a2"].attempts[-1].failed_step = "</script><script>window.owned=1</script>"
    synthetic.write(logs, rec)
    bad = logs / synthetic.run_id(2) / "run.json"
    bad.parent.mkdir(parents=True)
    bad.write_text('{"run_id": "x"}')
    with pytest.raises(runs.ReportError, match="not a fleet run record"):
        publish.publish(tmp_path / "site", logs)      # publishing fails fast, named
    page = tmp_path / "fleet.html"                    # the page itself names the bad run
    page.write_text(pages.fleet(runs.raw(logs)), encoding="utf-8")
    chrome.get(page.as_uri())
    assert "run.json is not a fleet run record" in chrome.find_element(By.ID, "head").text
    Select(chrome.find_element(By.ID, "run")).select_by_visible_text(synthetic.run_id(1))
    bars(chrome, cell="top-a2")[0].click()
    assert "</script><script>window.owned=1</script>" in chrome.find_element(By.ID,
                                                                              "detail").text
    assert chrome.execute_script("return window.owned") is None
