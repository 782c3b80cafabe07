"""The report pages in a real headless Chromium (tests/docs/browser.py drives it)."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import IN_CI, missing

if importlib.util.find_spec("selenium") is None and not IN_CI:
    collect_ignore = ["test_pages.py"]


@pytest.fixture(scope="module")
def chrome() -> Iterator[Any]:
    from tests.docs import browser  # noqa: PLC0415 (needs selenium, the docs group)

    if browser.chromium_paths() is None:
        missing("chromium and chromium-driver are not installed (scripts/docs-deps.sh)")
    with browser.chromium() as driver:
        yield driver
