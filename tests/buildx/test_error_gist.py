"""The one normalisation the oracle tests compare errors by (oracle.error_gist), and the one
list of wording exceptions (wording.ERROR_WORDING): no buildx needed."""

from __future__ import annotations

import json

import pytest

from tests.buildx import test_families, test_more_cases, test_syntax
from tests.buildx.oracle import ErrorGist, error_gist
from tests.buildx.wording import ERROR_WORDING
from tests.conftest import ROOT

VECTORS = ROOT / "tests" / "fixtures" / "bake" / "vectors.json"


@pytest.mark.parametrize(("error", "gist"), [
    ("ERROR: docker-bake.hcl:2,23-23: Invalid value; failed to parse MAX_JOBS as number",
     ErrorGist("docker-bake.hcl", 2, 23, "invalid value")),
    ("/tmp/x/docker-bake.hcl:2:23: Invalid value; failed to parse MAX_JOBS from the environment",
     ErrorGist("docker-bake.hcl", 2, 23, "invalid value")),
    ("ERROR: docker-bake.hcl:1,30-2,1: Invalid single-argument block definition; An argument",
     ErrorGist("docker-bake.hcl", 1, 30, "invalid single-argument block definition")),
    ("rocm-bake.hcl:5: invalid escape sequence", ErrorGist("rocm-bake.hcl", 5, None,
                                                           "invalid escape sequence")),
    ("ERROR: docker-bake.hcl:8,16-25: Error in function call; Call to function \"x\" failed: "
     "no., and 1 other diagnostic(s)",
     ErrorGist("docker-bake.hcl", 8, 16, "error in function call")),
    ("ERROR: unknown key: nope", ErrorGist(None, None, None, "unknown key")),
    ("ERROR: failed to find target nope",
     ErrorGist(None, None, None, "failed to find target nope")),
    ("invalid value  sp  for membytes key shm-size (target t)",
     ErrorGist(None, None, None, "invalid value sp for membytes key shm-size")),
    ("ERROR: Validation failed.", ErrorGist(None, None, None, "validation failed")),
])
def test_error_gist(error: str, gist: ErrorGist) -> None:
    assert error_gist(error) == gist


def test_column_counts_only_where_both_give_one() -> None:
    buildx = error_gist("ERROR: docker-bake.hcl:3,14-14: Invalid value; x")
    assert error_gist("docker-bake.hcl:3: Invalid value; y").matches(buildx)
    assert not error_gist("docker-bake.hcl:3:1: Invalid value; y").matches(buildx)
    assert not error_gist("docker-bake.hcl:4: Invalid value; y").matches(buildx)
    assert not error_gist("Invalid value; y").matches(buildx)


def _case_names() -> set[str]:
    """Every failing-or-not case name the oracle tests give assert_same_error."""
    vectors = json.loads(VECTORS.read_text())["vectors"]
    return ({f"vector/{v['id']}" for v in vectors} | set(test_families.CASES)
            | {f"more-cases/{name}" for name in test_more_cases.CASES}
            | {f"layout/{name}" for name in test_syntax.LAYOUTS})


def test_every_wording_exception_names_a_case_and_a_reason() -> None:
    names = _case_names()
    assert sorted(set(ERROR_WORDING) - names) == [], "no such case: fix or drop the entry"
    assert all(len(reason) > 40 for reason in ERROR_WORDING.values()), "say why"
