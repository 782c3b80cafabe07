"""A new component's commit pin needs no hand-kept entry in the drift world: make_snapshot
derives the world commit it stands for from the bake file (worldpins.derive), so the offline
check never reports a pin "not found upstream" that exists."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.components import newcomponent
from tests.conftest import ROOT
from tests.drift import worldpins
from tests.drift.upstream import Upstream


def test_a_new_components_pin_is_derived(world: Upstream, tmp_path: Path) -> None:
    shutil.copy(ROOT / "rocm-bake.hcl", tmp_path / "rocm-bake.hcl")
    shutil.copytree(ROOT / "dockerfiles", tmp_path / "dockerfiles")
    newcomponent.apply(tmp_path)
    pins = worldpins.derive(tmp_path / "rocm-bake.hcl", world.repos, world.pins)
    repo = world.repos["ROCm/flash-attention"]
    assert pins["SAGE_ATTN_COMMIT"] == repo.commits["v2.8.0-cktile"]
    assert {k: pins[k] for k in world.pins} == world.pins      # the world's own choices stay


def test_the_real_pins_need_nothing_derived(world: Upstream) -> None:
    assert worldpins.derive(ROOT / "rocm-bake.hcl", world.repos, world.pins) == world.pins
