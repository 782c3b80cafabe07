"""Each thing an engineer can forget when adding a component is an error that names the fix,
in one line: ``inv lint`` (family consistency) before anything else, and the bake model's own
failures (``inv build --print``, ``inv targets``) say which table or SKIP entry lacks what.

Each test adds the throwaway component (newcomponent.py) with exactly one hand-edit left out.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_bake import bakefile, build, graph
from rocm_bake.errors import RocmBakeError
from rocm_bake_checks.lint import bakemodel, components, consistency
from tests.components.conftest import Checkout


def lint(root: Path) -> list[str]:
    """What ``inv lint`` (family consistency, as runner.run orders it) finds; pin-unused, the
    slow part of the family, is left out: it has nothing to say of these omissions."""
    definition = bakemodel.load([root / "rocm-bake.hcl"])
    found = components.check(definition, root)
    if not found:
        targets = bakemodel.targets(definition, root)
        found = consistency.check(targets, consistency.Dockerfiles(), root)
    return [str(f) for f in found]


def only(root: Path) -> str:
    found = lint(root)
    assert len(found) == 1, found
    return found[0]


def test_the_whole_component_is_clean(checkout: Checkout) -> None:
    assert lint(checkout()) == []


def test_no_cells_in_group_all(checkout: Checkout) -> None:
    line = only(checkout("all"))
    assert "component-all: group \"all\" lacks sage-attn-gfx950, sage-attn-gfx1201" in line
    assert 'add [for a in ARCHS["sage-attn"] : "sage-attn-${a}"] to its targets' in line


def test_no_group_of_its_own(checkout: Checkout) -> None:
    line = only(checkout("group"))
    assert line.startswith("rocm-bake.hcl:")
    assert "component-group: component 'sage-attn' has no group \"sage-attn\"" in line


def test_no_source(checkout: Checkout) -> None:
    line = only(checkout("source"))
    assert "component-source: component 'sage-attn'" in line
    assert "declare SAGE_ATTN_COMMIT_SOURCE = {" in line


def test_no_description(checkout: Checkout) -> None:
    line = only(checkout("description"))
    assert "variable-description: variable \"SAGE_ATTN_COMMIT\" (sage-attn passes it) has " \
           "no description" in line


def test_a_context_the_consumer_never_mounts(checkout: Checkout) -> None:
    line = only(checkout("consumer-mount"))
    assert "context-unused: wheels-gfx1201, wheels-gfx1250, wheels-gfx950: passes context " \
           "'sage-attn', which no stage of dockerfiles/wheels-export.Dockerfile" in line


def test_not_exported_by_the_wheels_target(checkout: Checkout) -> None:
    line = only(checkout("wheels-context"))
    assert "component-export: target \"wheels\" does not take 'sage-attn'" in line


def test_no_pins_entry(checkout: Checkout) -> None:
    found = lint(checkout("pins-map"))
    assert [f.split(": ", 2)[1:] for f in found] == [
        ["component-pins", f"PINS has no entry '{p}' (sage-attn is built from it): add "
                           f"{p} = {p}"] for p in ("SAGE_ATTN_COMMIT", "SAGE_ATTN_REF")]


def _failure(root: Path) -> str:
    """What inv build --print and inv targets say (both through the bake model)."""
    files = [str(root / "rocm-bake.hcl")]
    request = build.BuildRequest(targets=["all"], archs=["gfx950", "gfx1201", "gfx1250"])
    request.files = files
    with pytest.raises(RocmBakeError) as printed:
        build.prepare(request, {})
    with pytest.raises(RocmBakeError) as targets:
        graph.cells(files, env={})
    assert str(printed.value) == str(targets.value)
    return str(printed.value)


def test_no_cache_key_names_the_table(checkout: Checkout) -> None:
    root = checkout("cache-key")
    said = _failure(root)
    assert said.startswith("rocm-bake.hcl:") or "rocm-bake.hcl:" in said.split(" ")[0]
    assert "CACHE_KEY has no entry 'sage-attn'" in said, said
    assert "valid targets and groups" not in said
    assert "component-table: CACHE_KEY has no entry 'sage-attn'" in only(root)


def test_no_skip_entry_names_the_skip_to_add(checkout: Checkout) -> None:
    root = checkout("skip")
    said = _failure(root)
    assert "SKIP has no entry 'gfx1250/sage-attn': sage-attn-gfx1250 needs torch-gfx1250, " \
           "which SKIP skips ('gfx1250/torch')" in said, said
    assert "component-skip: SKIP has no entry 'gfx1250/sage-attn'" in only(root)


@pytest.mark.parametrize(("edit", "table"), [("archs", "ARCHS"), ("version-tag", "VERSION_TAG")])
def test_an_index_into_a_table_names_the_table(checkout: Checkout, edit: str,
                                               table: str) -> None:
    root = checkout(edit)
    with pytest.raises(RocmBakeError) as caught:
        bakefile.load([root / "rocm-bake.hcl"], {})
    assert f"invalid index: {table} has no entry 'sage-attn'" in str(caught.value)
    assert str(caught.value).startswith(f"{root / 'rocm-bake.hcl'}:")


def test_no_target_block_is_named(checkout: Checkout) -> None:
    said = _failure(checkout("target"))
    assert "component 'sage-attn' has no target \"sage-attn\" block" in said, said
