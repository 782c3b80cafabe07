"""rocm-bake.hcl's buildx output equals the recorded copy (recorded/print.json) for every group
and arch set: a change to the bake file's shape (the matrix targets' parent) changes nothing
buildx prints. After a deliberate change of output, record again:

    python -m tests.buildx.recorded_print
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.buildx.recorded_print import RECORDED, cases, checkout
from tests.conftest import Buildx

CASES = cases()


@pytest.fixture(scope="module")
def recorded() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(RECORDED.read_text())
    return data


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return checkout(tmp_path_factory.mktemp("checkout"))


def test_every_case_is_recorded(recorded: dict[str, Any]) -> None:
    assert sorted(recorded) == sorted(CASES), "record again: python -m tests.buildx.recorded_print"


@pytest.mark.buildx
@pytest.mark.parametrize("name", list(CASES))
def test_buildx_prints_the_recorded_copy(name: str, recorded: dict[str, Any], buildx: Buildx,
                                         work: Path) -> None:
    args, env = CASES[name]
    result = buildx.bake(args, work, env)
    assert result.returncode == 0, result.stderr
    assert result.json() == recorded[name]
