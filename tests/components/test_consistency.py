"""Every list that names components outside the bake file agrees with its component table
(``rocm_bake.model.components.names``: the keys of CACHE_KEY).  Lists that must cover every
component are derived (GROUPS, GPU_CODE, the drift world's pins, the docs' regions); the ones
left are optional per component and may only name components that exist: each failure is one
line naming the file and the entry."""

from __future__ import annotations

from pathlib import Path

from rocm_bake.fleetbuild import cells
from rocm_bake.model import bakefile, components
from rocm_bake_checks.lint import conformance, upstream
from rocm_bake_docs import pages, snippets
from rocm_bake_docs.source import Source
from tests.conftest import ROOT
from tests.lint import test_arch_table

DEFINITION = bakefile.load([ROOT / "rocm-bake.hcl"], {})
NAMES = components.names(DEFINITION)


def test_the_bake_file_declares_every_component_completely() -> None:
    assert [str(p) for p in components.problems(DEFINITION)] == []


def test_the_fleet_estimates_come_from_the_bake_file() -> None:
    # STATIC_SECONDS is read from the bake file (its keys checked by component-stale)
    assert set(components.static_seconds(DEFINITION)) <= {*NAMES, components.EXPORT_TARGET}
    assert not hasattr(cells, "STATIC_SECONDS")


def test_the_wheels_of_every_context_come_from_the_bake_file() -> None:
    # every component's wheels from WHEELS (default: its own name); no Python-side table
    dists = conformance.context_dists(DEFINITION)
    assert {n: dists[n] for n in NAMES} == components.wheels(DEFINITION)
    assert not hasattr(conformance, "CONTEXT_DISTS")


def test_upstream_toml_components_are_components_with_their_dockerfile() -> None:
    config = upstream.load_config()
    targets = {n: DEFINITION.config.targets[f"{n}-gfx950"].get("dockerfile")
               for n in NAMES if f"{n}-gfx950" in DEFINITION.config.targets}
    wrong = [f"src/rocm_bake_checks/lint/upstream.toml: [[component]] {c.name}: "
             + ("names no component" if c.name not in NAMES else
                f"dockerfile should be dockerfiles/{targets[c.name]}")
             for c in config.components
             if c.name not in NAMES or c.dockerfile != f"dockerfiles/{targets.get(c.name)}"]
    assert wrong == []


def test_host_code_comes_from_the_bake_file() -> None:
    # the components without GPU code are NO_GPU_CODE's keys, typed nowhere else
    assert set(test_arch_table.HOST_CODE) == set(components.no_gpu_code(DEFINITION))
    assert set(test_arch_table.HOST_CODE) <= set(NAMES)


def test_generated_regions_list_every_component() -> None:
    source = Source(ROOT)
    assert [p for p in pages.stale(source) if p in snippets.FILES] == [], "run ./inv docs"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert all(f"`{n}`" in readme for n in NAMES)


def test_names_may_contain_hyphens() -> None:
    assert components.split_cell("flash-attn-gfx1201", ["gfx950", "gfx1201"]) == (
        "flash-attn", "gfx1201")
    assert components.split_cell("flash-attn", ["gfx950"]) is None


def test_the_checks_paths_exist() -> None:
    for path in ("src/rocm_bake/fleetbuild/cells.py", "src/rocm_bake_checks/lint/conformance.py",
                 "src/rocm_bake_checks/lint/upstream.toml"):
        assert (ROOT / Path(path)).is_file(), path
