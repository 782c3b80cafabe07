"""``mkdocs build --strict`` with no network at all: an empty network namespace."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import AS_ROOT, ROOT, missing
from tests.docs.conftest import mkdocs_build, require_mkdocs

# Anything a built page would fetch from elsewhere: a CDN script, an image, a stylesheet or
# web font (<link href>, CSS url()/@import). Plain <a href> links are not fetched.
_REMOTE = r"""["']?(?:https?:)?//(?!127\.0\.0\.1|localhost)"""
_EXTERNAL = re.compile(rf"<(?:script|img|iframe|source|audio|video)\b[^>]*\bsrc={_REMOTE}"
                       rf"|<link\b[^>]*\bhref={_REMOTE}")
_CSS_EXTERNAL = re.compile(rf"(?:url\(|@import\s+){_REMOTE}")


def _offline_prefix() -> tuple[str, ...]:
    if shutil.which("unshare") is None or os.geteuid() != 0:
        missing("root and unshare (util-linux), for an empty network namespace", AS_ROOT)
    probe = subprocess.run(["unshare", "--net", "--", sys.executable, "-c",
                            "import socket; print([n for _, n in socket.if_nameindex()])"],
                           capture_output=True, text=True, timeout=30, check=False)
    if probe.returncode != 0:
        missing(f"a network namespace ({probe.stderr.strip()[-200:]})", AS_ROOT)
    assert probe.stdout.strip() == "['lo']", f"the namespace still has a network: {probe.stdout}"
    return ("unshare", "--net", "--")


def test_strict_build_needs_no_network(tmp_path: Path) -> None:
    require_mkdocs()
    prefix = _offline_prefix()
    site = tmp_path / "site"
    proc = mkdocs_build(ROOT, site, prefix)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for page in ("index.html", "quickstart/index.html", "architecture/index.html",
                 "performance/index.html", "live-reports/index.html",
                 "reference/index.html", "reference/tasks/index.html",
                 "reference/nox/index.html", "reference/image-tags/index.html"):
        assert (site / page).is_file(), page
    assert (site / "assets/javascripts/vendor/mermaid.min.js").is_file()


def test_built_pages_fetch_nothing_from_elsewhere(built_site: Path) -> None:
    for page in built_site.rglob("*.html"):
        head = page.read_text(encoding="utf-8")
        found = [m.group(0) for m in _EXTERNAL.finditer(head)]
        assert not found, f"{page.relative_to(built_site)} loads {found}"
    for sheet in built_site.rglob("*.css"):
        found = [m.group(0) for m in _CSS_EXTERNAL.finditer(sheet.read_text(encoding="utf-8"))]
        assert not found, f"{sheet.relative_to(built_site)} loads {found}"
