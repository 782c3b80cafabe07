"""gfx1250 is an honest skip on the ROCm 7.2.3 base: every component that generates GPU code
is in SKIP with its reason, and what is left to build for gfx1250 is only what has none (the
base image, UCX + NIXL) and the wheels export."""

from __future__ import annotations

from pathlib import Path

from rocm_bake.model import bakefile, components

ROOT = Path(__file__).resolve().parents[2]
# The components without GPU code (the base image; UCX + NIXL are host code over the HIP
# runtime API).  Every other component of the bake file generates GPU code, so a new one is
# held to the gfx1250 rule unless it is named here.
HOST_CODE = ("base", "nixl")
COMPONENTS = components.names(bakefile.load([ROOT / "rocm-bake.hcl"], {}))
GPU_CODE = tuple(c for c in COMPONENTS if c not in HOST_CODE)


def test_every_gpu_code_component_skips_gfx1250_with_a_reason() -> None:
    definition = bakefile.load([ROOT / "rocm-bake.hcl"], {})
    skip = definition.value("SKIP")
    assert isinstance(skip, dict)
    for component in GPU_CODE:
        reason = skip.get(f"gfx1250/{component}")
        assert isinstance(reason, str) and len(reason) > 20, component


def test_a_gfx1250_build_plans_only_what_rocm_723_can_build() -> None:
    definition = bakefile.load([ROOT / "rocm-bake.hcl"], {"GPU_ARCHS": "gfx1250"})
    plan = definition.plan(["all"])
    assert sorted(plan.targets) == sorted(["empty", "wheels-gfx1250",
                                           *(f"{c}-gfx1250" for c in HOST_CODE)])
    skipped = (plan.targets["wheels-gfx1250"].get("args") or {})["SKIPPED"]
    assert all(f"gfx1250/{c}: " in skipped for c in GPU_CODE), skipped


def test_the_other_arches_keep_every_component() -> None:
    """Names may contain hyphens (flash-attn): a cell is split on its arch, never on '-'."""
    definition = bakefile.load([ROOT / "rocm-bake.hcl"], {"GPU_ARCHS": "gfx950"})
    cells = [components.split_cell(t, ["gfx950"]) for t in definition.plan(["all"]).targets]
    assert {c[0] for c in cells if c} >= {*COMPONENTS, "wheels"}
