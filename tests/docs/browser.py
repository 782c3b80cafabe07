"""Headless Chromium (Debian's chromium + chromium-driver) driven by Selenium, for looking at
the built site as a person would: console errors, rendered diagrams, screenshots.

No network: the site is served from 127.0.0.1 and every other host name resolves to nothing
(``--host-resolver-rules``), so a page that tries to fetch a font or a CDN script logs an
error instead of silently working on a machine that happens to be online.
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests import loopback
from tests.conftest import missing

if TYPE_CHECKING:       # imported where a browser starts: without selenium, that test fails
    from selenium import webdriver

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-dev-shm-usage", "--window-size=1280,1800",
         "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")


def chromium_paths() -> tuple[str, str] | None:
    """(chromium, chromedriver) when both are installed."""
    browser = shutil.which("chromium")
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve a built site on 127.0.0.1 (an ephemeral port) for the duration of the block."""
    with loopback.http_server(functools.partial(_QuietHandler, directory=str(directory))) as url:
        yield f"{url}/"


@contextmanager
def chromium() -> Iterator[webdriver.Chrome]:
    """A fresh headless Chromium (own profile directory) that records the console; without
    Chromium, its driver or selenium, the test fails naming them."""
    paths = chromium_paths()
    absent = [part for part, found in (
        ("chromium", shutil.which("chromium")), ("chromium-driver", shutil.which("chromedriver")),
        ("selenium (the docs group)", importlib.util.find_spec("selenium"))) if not found]
    if paths is None or absent:
        missing(f"{', '.join(absent)}, for the tests in headless Chromium",
                "bash scripts/docs-deps.sh")
    from selenium import webdriver  # noqa: PLC0415
    from selenium.webdriver.chrome.service import Service  # noqa: PLC0415

    browser, driver = paths
    with tempfile.TemporaryDirectory(prefix="rocm-bake-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = browser
        for flag in (*FLAGS, f"--user-data-dir={profile}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        chrome = webdriver.Chrome(options=options, service=Service(executable_path=driver))
        try:
            yield chrome
        finally:
            chrome.quit()


@dataclass(frozen=True)
class PageView:
    """What a person (and the console) saw on one page."""

    url: str
    errors: list[str]
    mermaid_svgs: int
    text: str


def console_errors(chrome: webdriver.Chrome) -> list[str]:
    entries: list[dict[str, Any]] = chrome.get_log("browser")  # type: ignore[no-untyped-call, unused-ignore]
    return [str(e.get("message")) for e in entries if e.get("level") in ("SEVERE", "ERROR")]


def _count_mermaid_svgs(node: dict[str, Any]) -> int:
    """SVGs Mermaid rendered, found through every shadow root (Material uses closed ones,
    which only the DevTools protocol can pierce)."""
    attrs = node.get("attributes") or []
    own = int(node.get("nodeName") == "svg" and "id" in attrs[::2]
              and str(attrs[attrs[::2].index("id") * 2 + 1]).startswith("__mermaid_"))
    children = [*(node.get("children") or []), *(node.get("shadowRoots") or [])]
    return own + sum(_count_mermaid_svgs(child) for child in children)


def wait_for_mermaid(chrome: webdriver.Chrome, expected: int, timeout: float = 20) -> int:
    """Wait until every Mermaid block is rendered (or the timeout); return how many are."""
    deadline = time.monotonic() + timeout
    count = 0
    while time.monotonic() < deadline:
        tree = chrome.execute_cdp_cmd("DOM.getDocument", {"depth": -1, "pierce": True})
        count = _count_mermaid_svgs(tree["root"])
        if count >= expected:
            break
        time.sleep(0.25)
    return count


def view(chrome: webdriver.Chrome, url: str, screenshot: Path, diagrams: int = 0) -> PageView:
    """Load a page, wait for its diagrams, screenshot it, collect the console errors."""
    chrome.set_window_size(1280, 900)
    chrome.get(url)
    rendered = wait_for_mermaid(chrome, diagrams) if diagrams else 0
    height = int(chrome.execute_script("return document.body.scrollHeight"))
    chrome.set_window_size(1280, min(max(height, 900), 6000))
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    chrome.save_screenshot(str(screenshot))
    text = str(chrome.execute_script("return document.body.innerText"))
    return PageView(url, console_errors(chrome), rendered, text)
