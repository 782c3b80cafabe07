"""Figures the pages quote from committed files agree with those files (a re-recorded file
otherwise leaves a page stating the old digests)."""

from __future__ import annotations

import re

from rocm_bake.reproducible import diff as reprodiff
from tests.conftest import ROOT

EXPECTED = ROOT / "tests" / "e2e" / "stages" / "expected" / "app-gfx950.json"
PAGE = ROOT / "docs" / "reproducibility.md"


def test_the_reproducibility_page_quotes_the_committed_expectation() -> None:
    text = " ".join(PAGE.read_text(encoding="utf-8").split())
    expected = reprodiff.load(EXPECTED)
    quoted = re.findall(r"expected/app-gfx950\.json`\)? is identity `sha256:([0-9a-f]+)…`", text)
    assert len(quoted) == 2, quoted
    assert all(expected.identity.startswith(f"sha256:{q}") for q in quoted), (
        quoted, expected.identity)
    manifests = dict((version, digest) for digest, version in re.findall(
        r"`sha256:([0-9a-f]+)…` on (\d+\.\d+\.\d+)", text))
    assert set(manifests) == {"26.1.5", "28.5.2"}, manifests
    for version, digest in manifests.items():
        [encoding] = [e for name, e in expected.encodings.items()
                      if name.startswith(f"Docker {version}")]
        assert encoding["manifest"].startswith(f"sha256:{digest}"), (version, encoding)
