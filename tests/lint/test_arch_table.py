"""gfx1250 is an honest skip on the ROCm 7.2.3 base: every component that generates GPU code
is in SKIP with its reason, and what is left to build for gfx1250 is only what has none (the
base image, UCX + NIXL) and the wheels export."""

from __future__ import annotations

from pathlib import Path

from rocm_bake import bakefile

ROOT = Path(__file__).resolve().parents[2]
GPU_CODE = ("torch", "triton", "aiter", "cupy", "vllm", "lmcache")


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
    assert sorted(plan.targets) == ["base-gfx1250", "empty", "nixl-gfx1250", "wheels-gfx1250"]
    skipped = (plan.targets["wheels-gfx1250"].get("args") or {})["SKIPPED"]
    assert all(f"gfx1250/{c}: " in skipped for c in GPU_CODE), skipped


def test_the_other_arches_keep_every_component() -> None:
    definition = bakefile.load([ROOT / "rocm-bake.hcl"], {"GPU_ARCHS": "gfx950"})
    assert {t.split("-")[0] for t in definition.plan(["all"]).targets} >= {
        "base", "torch", "triton", "aiter", "cupy", "nixl", "vllm", "lmcache", "wheels"}
