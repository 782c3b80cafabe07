"""A seed-pinned differential fuzz run: random bake files, environments and --set lists through
the installed buildx and the model (tests/buildx/fuzz.py). Any disagreement fails, with the
case printed; ``benchmarks/bake_fuzz.py`` runs more cases and shrinks what it finds."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.buildx.fuzz import PluginBuildx, generate, run
from tests.conftest import Buildx

SEED = "ci-1"
CASES = 200


@pytest.mark.buildx
def test_model_agrees_with_buildx_on_random_cases(buildx: Buildx, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROCM_BAKE_CACHE_DIR", "off")  # one-off files: keep the cache clean
    cases = [generate(f"{SEED}:{i}") for i in range(CASES)]
    report = run(cases, PluginBuildx(buildx.home))
    assert report.total + len(report.panics) == CASES
    assert report.total - report.buildx_failed > CASES // 3, "too few cases buildx accepts"
    details = "\n\n".join(f"{v.kind}\n{v.case.describe()}\nbuildx: {v.expected.error or 'ok'}\n"
                          f"model: {v.got.error or 'ok'}" for v in report.disagreements[:5])
    assert not report.disagreements, (
        f"{len(report.disagreements)} of {report.total} cases disagree:\n\n{details}")


def test_cases_are_seed_pinned() -> None:
    assert generate(f"{SEED}:7") == generate(f"{SEED}:7")
    assert generate(f"{SEED}:7") != generate(f"{SEED}:8")
