"""The generated variables page (docs/reference/variables.md) in headless Chromium at
1280 px: a description with angle brackets shows every character, and no table is wider than
its box (the status, newest and source of a pin are visible without scrolling sideways)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tests.docs import browser
from tests.docs.conftest import SCREENSHOTS

if TYPE_CHECKING:      # selenium (the docs group): without it the chrome fixture fails first
    from selenium.webdriver import Chrome

LITERAL = "reads <cell>-rocm<ROCM_VERSION>-env-<CACHE_ENV>"
OVERFLOWING = """return Array.from(document.querySelectorAll('article table')).filter(
    t => t.scrollWidth > t.clientWidth + 1 || t.getBoundingClientRect().right >
         document.querySelector('article').getBoundingClientRect().right + 1
  ).map(t => t.querySelector('th, td').innerText)"""
TABLES = "return document.querySelectorAll('article table').length"


def test_variables_page_shows_every_character_and_fits_1280_px(
        built_site: Path, chrome: Chrome) -> None:
    shot = SCREENSHOTS / "variables.png"
    with browser.serve(built_site) as base:
        seen = browser.view(chrome, base + "reference/variables/", shot)
        chrome.set_window_size(1280, 900)
        tables = int(chrome.execute_script(TABLES))
        overflowing = chrome.execute_script(OVERFLOWING)
    assert seen.errors == []
    assert LITERAL in seen.text, "a description in angle brackets was swallowed as HTML"
    assert tables > 10, "the pins are no longer grouped in one table per component"
    assert overflowing == [], f"tables wider than the page at 1280 px: {overflowing}"
    for column in ("status", "newest", "source"):
        assert column in seen.text
