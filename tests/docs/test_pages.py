"""The built site in headless Chromium, offline: Home, Architecture and Performance load
without a console error and show what they promise (a Mermaid diagram, the perf charts or the
explicit no-data note); screenshots land in build/docs-screenshots/."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from tests.conftest import ROOT, run_cli
from tests.docs import browser
from tests.docs.conftest import SCREENSHOTS

if TYPE_CHECKING:      # selenium (the docs group): without it the chrome fixture fails first
    from selenium.webdriver import Chrome

DATA = Path(__file__).parent / "data"
NO_DATA = "No measurements are recorded yet"
PAGES = ("", "quickstart/", "architecture/", "performance/", "live-reports/", "reference/",
         "reference/tasks/", "reference/nox/", "reference/image-tags/")


def _png(path: Path) -> None:
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 20_000


def test_home_shows_its_diagram(built_site: Path, chrome: Chrome) -> None:
    with browser.serve(built_site) as base:
        seen = browser.view(chrome, base, SCREENSHOTS / "home.png", diagrams=1)
    assert seen.errors == []
    assert seen.mermaid_svgs == 1, "the Home diagram was not rendered by Mermaid"
    assert "Where to start" in seen.text
    _png(SCREENSHOTS / "home.png")


def test_architecture_shows_the_generated_build_graph(
        built_site: Path, chrome: Chrome) -> None:
    with browser.serve(built_site) as base:
        seen = browser.view(chrome, base + "architecture/", SCREENSHOTS / "architecture.png",
                            diagrams=1)
    assert seen.errors == []
    assert seen.mermaid_svgs == 1, "the build graph was not rendered by Mermaid"
    assert "The four caches" in seen.text and "torch-gfx950" in seen.text
    _png(SCREENSHOTS / "architecture.png")


def test_performance_shows_charts_or_says_there_are_none(
        built_site: Path, chrome: Chrome) -> None:
    from selenium.webdriver.common.by import By

    with browser.serve(built_site) as base:
        seen = browser.view(chrome, base + "performance/", SCREENSHOTS / "performance.png")
        charts = chrome.find_elements(By.CSS_SELECTOR, "svg.perf-chart")
    assert seen.errors == []
    if (ROOT / "perf" / "history.jsonl").is_file():
        assert charts and NO_DATA not in seen.text
    else:
        assert not charts and NO_DATA in seen.text
    _png(SCREENSHOTS / "performance.png")


def test_every_page_loads_without_console_errors(
        built_site: Path, chrome: Chrome, tmp_path: Path) -> None:
    with browser.serve(built_site) as base:
        for page in PAGES:
            seen = browser.view(chrome, base + page, tmp_path / "page.png")
            assert seen.errors == [], f"/{page}: {seen.errors}"


def test_a_perf_history_becomes_charts(checkout: Path, chrome: Chrome) -> None:
    from selenium.webdriver.common.by import By

    (checkout / "perf").mkdir(exist_ok=True)
    shutil.copy(DATA / "perf-history.jsonl", checkout / "perf" / "history.jsonl")
    result = run_cli(["inv", "docs"], cwd=checkout)
    assert result.returncode == 0, result.stderr
    shot = SCREENSHOTS / "performance-with-history.png"
    with browser.serve(checkout / "site") as base:
        seen = browser.view(chrome, base + "performance/", shot)
        charts = chrome.find_elements(By.CSS_SELECTOR, "svg.perf-chart")
        points = chrome.find_elements(By.CSS_SELECTOR, "svg.perf-chart circle")
    assert seen.errors == []
    assert len(charts) == 4 and len(points) == 10
    assert all(c.size["width"] > 300 and c.size["height"] > 100 for c in charts)
    assert NO_DATA not in seen.text and "Latest numbers" in seen.text
    _png(shot)
