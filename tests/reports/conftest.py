"""The report pages in a real headless Chromium: the `chrome` fixture of tests/conftest.py."""
