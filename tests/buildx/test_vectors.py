"""The model equals the installed buildx on every recorded vector (tests/fixtures/bake)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.buildx.oracle import assert_same_error, groups_as_sets, model, oracle
from tests.conftest import FIXTURES, Buildx

VECTORS_FILE = FIXTURES / "bake" / "vectors.json"


def _vectors() -> list[dict[str, Any]]:
    vectors: list[dict[str, Any]] = json.loads(VECTORS_FILE.read_text())["vectors"]
    return vectors


def test_vectors_are_present() -> None:
    assert _vectors(), f"{VECTORS_FILE} has no vectors: the oracle tests would test nothing"


@pytest.mark.buildx
@pytest.mark.parametrize("vector", _vectors(), ids=lambda v: str(v["id"]))
def test_vector(vector: dict[str, Any], buildx: Buildx, tmp_path: Path) -> None:
    for name, text in vector["files"].items():
        (tmp_path / name).write_text(text)
    env = dict(vector["env"])
    expected = oracle(buildx, vector["args"], tmp_path, env)
    got = model(vector["args"], tmp_path, env)
    assert got.ok == expected.ok, f"buildx: {expected.error or 'ok'}; model: {got.error or 'ok'}"
    assert expected.ok == (vector["expect"]["exit_code"] == 0), "buildx itself changed behaviour"
    if expected.ok:
        if vector["compare"] == "group-lists-as-sets":
            assert groups_as_sets(got.data) == groups_as_sets(expected.data)
        else:
            assert got.data == expected.data
    else:
        assert_same_error(f"vector/{vector['id']}", got, expected)
