"""The recorded function cases (tests/fixtures/bake/functions.json) are what the oracle buildx
gives (the installed one; the nightly's newest with ROCM_BAKE_BUILDX_PLUGINS): every expression
evaluated again (in batches, as the recorder does) and its ``R`` text or error message compared
verbatim. tests/unit/test_functions.py holds the model to the same recording. After a
deliberate change of cases, record again:

    python -m tests.buildx.record_functions
"""

from __future__ import annotations

import pytest

from tests.buildx import record_functions
from tests.conftest import Buildx

CASES = record_functions.load()["cases"]


@pytest.fixture(scope="module")
def evaluated(buildx: Buildx) -> dict[str, dict[str, str]]:
    """Expression -> the oracle buildx's outcome (the ``buildx`` fixture's: the installed one,
    or the newest in the nightly; it fails naming what is missing)."""
    expressions = [case["expression"] for case in CASES]
    return dict(zip(expressions, record_functions.evaluate(buildx, expressions), strict=True))


@pytest.mark.buildx
@pytest.mark.parametrize("case", CASES, ids=[case["expression"] for case in CASES])
def test_buildx_gives_the_recorded_outcome(case: dict[str, str],
                                           evaluated: dict[str, dict[str, str]]) -> None:
    recorded = {k: v for k, v in case.items() if k in ("value", "error")}
    assert evaluated[case["expression"]] == recorded
