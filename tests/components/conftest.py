"""A copy of the checkout's bake file and Dockerfiles with the throwaway component written in."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.components import newcomponent
from tests.conftest import ROOT

Checkout = Callable[..., Path]


@pytest.fixture
def checkout(tmp_path: Path) -> Checkout:
    """``checkout(leave_out=...)``: the bake file and dockerfiles/ copied, the component added
    with every hand-edit but those named."""
    def make(*leave_out: str) -> Path:
        shutil.copy(ROOT / "rocm-bake.hcl", tmp_path / "rocm-bake.hcl")
        shutil.copytree(ROOT / "dockerfiles", tmp_path / "dockerfiles")
        newcomponent.apply(tmp_path, leave_out)
        return tmp_path
    return make
