"""The recorded function cases (tests/fixtures/bake/functions.json) are what the installed
buildx gives: every expression evaluated again (in batches, as the recorder does) and its
``R`` text or error message compared verbatim. tests/unit/test_functions.py holds the model
to the same recording. After a deliberate change of cases, record again:

    python -m tests.buildx.record_functions
"""

from __future__ import annotations

import pytest

from tests.buildx import record_functions
from tests.conftest import Buildx

CASES = record_functions.load()["cases"]


@pytest.fixture(scope="module")
def evaluated(buildx: Buildx) -> dict[str, dict[str, str]]:
    """Expression -> the installed buildx's outcome (``buildx``: fails naming what is
    missing when docker buildx is absent)."""
    expressions = [case["expression"] for case in CASES]
    return dict(zip(expressions, record_functions.evaluate(expressions), strict=True))


@pytest.mark.buildx
@pytest.mark.parametrize("case", CASES, ids=[case["expression"] for case in CASES])
def test_buildx_gives_the_recorded_outcome(case: dict[str, str],
                                           evaluated: dict[str, dict[str, str]]) -> None:
    recorded = {k: v for k, v in case.items() if k in ("value", "error")}
    assert evaluated[case["expression"]] == recorded
