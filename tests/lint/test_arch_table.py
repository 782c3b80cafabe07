"""gfx1250 is an honest skip on the ROCm 7.2.3 base: every component that generates GPU code
is in SKIP with its reason, and what is left to build for gfx1250 is only what has none (the
base image, UCX + NIXL) and the wheels export."""

from __future__ import annotations

from pathlib import Path

from rocm_bake.model import bakefile, components

ROOT = Path(__file__).resolve().parents[2]
DEFINITION = bakefile.load([ROOT / "rocm-bake.hcl"], {})
COMPONENTS = components.names(DEFINITION)
# The components without GPU code, as the bake file says (NO_GPU_CODE: the base image, Triton,
# UCX + NIXL).  Every other component generates GPU code, so a new one is held to the gfx1250
# rule unless its NO_GPU_CODE entry says why it has none.
HOST_CODE = tuple(c for c in COMPONENTS if c in components.no_gpu_code(DEFINITION))
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
    skip = definition.value("SKIP")
    assert isinstance(skip, dict)
    # what has no GPU code is built unless it needs a skipped cell (Triton needs the torch)
    built = [c for c in HOST_CODE if f"gfx1250/{c}" not in skip]
    assert "base" in built
    assert sorted(plan.targets) == sorted(["empty", "wheels-gfx1250",
                                           *(f"{c}-gfx1250" for c in built)])
    skipped = (plan.targets["wheels-gfx1250"].get("args") or {})["SKIPPED"]
    assert all(f"gfx1250/{c}: " in skipped for c in GPU_CODE), skipped


def test_the_other_arches_keep_every_component() -> None:
    """Names may contain hyphens (flash-attn): a cell is split on its arch, never on '-'."""
    definition = bakefile.load([ROOT / "rocm-bake.hcl"], {"GPU_ARCHS": "gfx950"})
    cells = [components.split_cell(t, ["gfx950"]) for t in definition.plan(["all"]).targets]
    assert {c[0] for c in cells if c} >= {*COMPONENTS, "wheels"}


def test_gfx1201_builds_aiter_and_flash_attn_without_kernels_as_upstream_ships_them() -> None:
    """Upstream's release image ships AITER and FlashAttention on gfx1201 without kernels for
    it (issue 38): their gfx1201 cells are built (TRITON_ONLY, not SKIP) by each wheel's own
    switch, labelled for the arch audit, and the vLLM image of gfx1201 runs them so; gfx950's
    cells and image pass no switch."""
    definition = bakefile.load([ROOT / "rocm-bake.hcl"], {"GPU_ARCHS": "gfx950,gfx1201"})
    targets = definition.plan(["vllm"]).targets
    switches = {"aiter": ("AITER_TRITON_ONLY", "1"),
                "flash-attn": ("FLASH_ATTENTION_TRITON_AMD_ENABLE", "TRUE")}
    for component, (name, value) in switches.items():
        cell = targets[f"{component}-gfx1201"]
        assert (cell.get("args") or {}).get(name) == value, component
        assert "Triton" in (cell.get("labels") or {}).get("rocm-bake.no-gpu-code", ""), component
        other = targets[f"{component}-gfx950"]
        assert name not in (other.get("args") or {}), component
        assert "rocm-bake.no-gpu-code" not in (other.get("labels") or {}), component
    runtime = targets["vllm-gfx1201"]
    assert {n: (runtime.get("args") or {}).get(n) for n, _ in switches.values()} == dict(
        switches.values())
    assert (runtime.get("contexts") or {})["aiter"] == "target:aiter-gfx1201"
    assert (runtime.get("contexts") or {})["flash-attn"] == "target:flash-attn-gfx1201"
    assert not {n for n, _ in switches.values()} & set(targets["vllm-gfx950"].get("args") or {})
