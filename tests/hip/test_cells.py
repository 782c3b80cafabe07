"""Which targets of a build the arch audit reads, and where from (archaudit.cells), on the test
stage graph's bake file evaluated by the model (no engine needed)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from rocm_bake.archaudit import cells
from rocm_bake.archaudit.audit import Audit
from rocm_bake.builds import request as build
from rocm_bake.model import bakefile
from rocm_bake.model.bake.resolve import Plan
from tests.e2e.stages.conftest import BAKE_FILE, STAGES

ARCHS = ["gfx950", "gfx1201"]


def plan(targets: list[str], overrides: Sequence[str] = ()) -> tuple[bakefile.Definition, Plan]:
    definition = bakefile.load([STAGES / BAKE_FILE], {"GPU_ARCHS": ",".join(ARCHS),
                                                      "DIST": "out"})
    return definition, definition.plan(targets, list(overrides))


def test_the_cells_archs_come_from_gpu_archs() -> None:
    definition, _ = plan(["all"])
    assert build.cell_archs(definition) == ARCHS
    assert cells.cell_arch("app-gfx1201", ARCHS) == "gfx1201"
    assert cells.cell_arch("empty", ARCHS) is None
    stack = bakefile.load([STAGES.parent / "stack" / "docker-bake.hcl"], {})
    assert build.cell_archs(stack) == []      # no GPU_ARCHS: no cells, no audit lines


def test_only_exported_targets_are_audited() -> None:
    _, resolved = plan(["app-gfx950", "wheels-gfx1201"])
    assert sorted(cells.exported(resolved)) == ["app-gfx950", "wheels-gfx1201"]
    assert "core-gfx950" in resolved.targets     # built as a context, not exported


def test_where_each_output_is_read_back(tmp_path: Path) -> None:
    _, resolved = plan(["wheels-gfx950", "core-gfx950", "plugin-gfx950"],
                       ["core-gfx950.output=type=oci,dest=core.tar",
                        "plugin-gfx950.output=type=cacheonly"])
    wheels = cells.artifacts(resolved.targets["wheels-gfx950"], tmp_path)
    assert wheels == cells.Artifacts((str(tmp_path / "out" / "gfx950"),))
    core = cells.artifacts(resolved.targets["core-gfx950"], tmp_path)
    assert core.sources == (str(tmp_path / "core.tar"),) and not core.unaudited
    plugin = cells.audit_artifacts("plugin-gfx950", "gfx950",
                                   cells.artifacts(resolved.targets["plugin-gfx950"], tmp_path))
    assert plugin.lines() == ["plugin-gfx950: not audited: its output is type=cacheonly: "
                              "nothing was exported"]
    assert plugin.exit_code == 0


def test_verdicts_add_up() -> None:
    ok = cells.CellAudit("a-gfx950", "gfx950", cells.Artifacts(("d",)),
                         Audit(("d",), (), 2, ("gfx950",), require_gpu_code=False),
                         no_gpu_code="host code only")
    assert ok.lines() == ["a-gfx950: no GPU code (2 host-only ELF file(s)) in d, as its label "
                          "rocm-bake.no-gpu-code says: host code only"]
    unreadable = cells.CellAudit("b-gfx950", "gfx950", cells.Artifacts(("x",)),
                                 error="x: no such file or directory")
    assert unreadable.lines() == ["b-gfx950: cannot audit: x: no such file or directory"]
    assert cells.exit_code([ok]) == 0
    assert cells.exit_code([ok, unreadable]) == 2
    with pytest.raises(cells.ArchAuditError, match="could not audit b-gfx950 ") as info:
        cells.check([ok, unreadable])
    assert info.value.exit_code == 2
