"""Each thing an engineer can forget when adding a component is an error that names the fix,
in one line: ``inv lint`` (family consistency) before anything else, and the bake model's own
failures (``inv build --print``, ``inv targets``) say which table or SKIP entry lacks what.

Each test adds the throwaway component (newcomponent.py) with exactly one hand-edit left out.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_bake.builds import request as build
from rocm_bake.core.errors import RocmBakeError
from rocm_bake.model import bakefile, graph
from rocm_bake_checks.lint import (
    bakemodel,
    components,
    consistency,
    upstream,
    upstreamdocker,
    upstreamstages,
)
from rocm_bake_checks.lint.policy import POLICY
from tests.components import newcomponent
from tests.components.conftest import Checkout
from tests.conftest import ROOT


def lint(root: Path) -> list[str]:
    """What ``inv lint`` (family consistency, as runner.run orders it) finds; pin-unused, the
    slow part of the family, is left out: it has nothing to say of these omissions."""
    definition = bakemodel.load([root / "rocm-bake.hcl"])
    found = components.check(definition, root)
    if not found:
        targets = bakemodel.targets(definition, root)
        files = consistency.Dockerfiles()
        found = [*consistency.check(targets, files, root),
                 *components.check_dockerfiles(definition, targets, files, root)]
    return [str(f) for f in found]


def only(root: Path) -> str:
    found = lint(root)
    assert len(found) == 1, found
    return found[0]


def test_the_whole_component_is_clean(checkout: Checkout) -> None:
    assert lint(checkout()) == []


def test_no_cells_in_group_all(checkout: Checkout) -> None:
    line = only(checkout("all"))
    assert "component-all: group \"all\" lacks hip-attn-gfx950, hip-attn-gfx1201" in line
    assert 'add [for a in ARCHS["hip-attn"] : "hip-attn-${a}"] to its targets' in line


def test_no_group_of_its_own(checkout: Checkout) -> None:
    line = only(checkout("group"))
    assert line.startswith("rocm-bake.hcl:")
    assert "component-group: component 'hip-attn' has no group \"hip-attn\"" in line


def test_no_source(checkout: Checkout) -> None:
    line = only(checkout("source"))
    assert "component-source: component 'hip-attn'" in line
    assert "declare HIP_ATTN_COMMIT_SOURCE = {" in line


def test_no_description(checkout: Checkout) -> None:
    line = only(checkout("description"))
    assert "variable-description: variable \"HIP_ATTN_COMMIT\" (hip-attn passes it) has " \
           "no description" in line


def test_a_context_the_consumer_never_mounts(checkout: Checkout) -> None:
    line = only(checkout("consumer-carries"))
    assert "context-unused: vllm-gfx1201, vllm-gfx950: passes context 'hip-attn', which no " \
           "stage of dockerfiles/vllm.Dockerfile" in line


def test_not_exported_by_the_wheels_target(checkout: Checkout) -> None:
    # no CONSUMERS entry: nothing carries its wheels to the export, which does not take it
    line = only(checkout("consumers"))
    assert "component-export: target \"wheels\" does not take 'hip-attn'" in line
    assert 'or name the image that installs and carries them in CONSUMERS["hip-attn"]' in line


def test_no_pins_entry(checkout: Checkout) -> None:
    found = lint(checkout("pins-map"))
    assert [f.split(": ", 2)[1:] for f in found] == [
        ["component-pins", f"PINS has no entry '{p}' (hip-attn is built from it): add "
                           f"{p} = {p}"] for p in ("HIP_ATTN_COMMIT", "HIP_ATTN_REF")]


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
    assert "CACHE_KEY has no entry 'hip-attn'" in said, said
    assert "valid targets and groups" not in said
    assert "component-table: CACHE_KEY has no entry 'hip-attn'" in only(root)


def test_no_skip_entry_names_the_skip_to_add(checkout: Checkout) -> None:
    root = checkout("skip")
    said = _failure(root)
    assert "SKIP has no entry 'gfx1250/hip-attn': hip-attn-gfx1250 needs torch-gfx1250, " \
           "which SKIP skips ('gfx1250/torch')" in said, said
    assert "component-skip: SKIP has no entry 'gfx1250/hip-attn'" in only(root)


@pytest.mark.parametrize(("edit", "table"), [("archs", "ARCHS"), ("version-tag", "VERSION_TAG")])
def test_an_index_into_a_table_names_the_table(checkout: Checkout, edit: str,
                                               table: str) -> None:
    root = checkout(edit)
    with pytest.raises(RocmBakeError) as caught:
        bakefile.load([root / "rocm-bake.hcl"], {})
    assert f"invalid index: {table} has no entry 'hip-attn'" in str(caught.value)
    assert str(caught.value).startswith(f"{root / 'rocm-bake.hcl'}:")


def test_no_target_block_is_named(checkout: Checkout) -> None:
    root = checkout("target")
    said = _failure(root)
    assert "component 'hip-attn' has no target \"hip-attn\" block" in said, said
    assert ": component-target: component 'hip-attn' has no target" in only(root)


def test_installed_but_not_carried_to_the_export(checkout: Checkout) -> None:
    # the vLLM image pip-installs it from its own mount, so its wheels never reach dist/<arch>
    root = checkout("consumer-carries")
    _insert(root / newcomponent.CONSUMER, "    --mount=type=bind,from=wheels,source=/wheels,"
            "target=/deps/vllm \\\n", "    --mount=type=bind,from=hip-attn,source=/wheels,"
            "target=/deps/hip-attn \\\n")
    line = only(root)
    assert line.startswith("dockerfiles/vllm.Dockerfile:1: component-export: 'hip-attn' reaches "
                           "the wheels export neither as a context of target \"wheels\" nor "
                           "through its consumers (vllm)"), line


def test_the_consumer_does_not_take_it(checkout: Checkout) -> None:
    line = only(checkout("consumer-context"))
    assert "component-consumer: target \"vllm\" does not take 'hip-attn', which CONSUMERS " \
           "says it installs: add \"hip-attn\" = contains(ARCHS[\"hip-attn\"], arch) ? " \
           "\"target:hip-attn-${arch}\" : \"target:empty\" to its contexts" in line


def _insert(path: Path, before: str, text: str) -> None:
    body = path.read_text(encoding="utf-8")
    assert before in body, before
    path.write_text(body.replace(before, text + before, 1), encoding="utf-8")


def test_the_consumer_image_does_not_install_it(checkout: Checkout) -> None:
    # mounted in vLLM's build stage only: the image (stage runtime) never installs it
    root = checkout("consumer-carries")
    _insert(root / newcomponent.CONSUMER, "    --mount=type=bind,from=nixl,source=/wheels,"
            "target=/deps/nixl \\\n", "    --mount=type=bind,from=hip-attn,source=/wheels,"
            "target=/deps/hip-attn \\\n")
    line = only(root)
    assert line.startswith("dockerfiles/vllm.Dockerfile:")
    assert "component-consumer: stage runtime (the vllm image) does not install 'hip-attn', " \
           "which CONSUMERS says it does" in line


def test_an_image_installing_it_is_named_in_consumers(checkout: Checkout) -> None:
    # exported directly, installed by vLLM's image, but CONSUMERS does not say so
    root = checkout("consumers")
    _insert(root / newcomponent.BAKE, "    lmcache = contains(ARCHS[\"lmcache\"], arch)",
            '    "hip-attn" = contains(ARCHS["hip-attn"], arch) ? "target:hip-attn-${arch}" : '
            '"target:empty"\n')
    _insert(root / "dockerfiles/wheels-export.Dockerfile", "COPY --from=pins /out/ /",
            "COPY --from=hip-attn /wheels/ /\n")
    line = only(root)
    assert "component-consumer: stage runtime (the vllm image) installs 'hip-attn', but " \
           'CONSUMERS["hip-attn"] does not name vllm: add "vllm" to it' in line


def test_the_arch_knob_dropped(checkout: Checkout) -> None:
    # neither passed nor declared: its build would pick the build host's GPU, silently
    line = only(checkout("arch-args", "dockerfile-arch"))
    assert "component-arch: target \"hip-attn\" passes no arch knob (GPU_ARCHS, " \
           "HCC_AMDGPU_TARGET, PYTORCH_ROCM_ARCH)" in line
    assert "use args = merge(ARCH_ARGS[arch], {...})" in line


def test_a_knob_passed_but_not_declared(checkout: Checkout) -> None:
    found = lint(checkout("dockerfile-arch"))
    assert any("arg-undeclared" in f and "passes arg PYTORCH_ROCM_ARCH, not declared" in f
               for f in found), found


def test_a_wheel_named_unlike_the_component_undeclared(checkout: Checkout) -> None:
    line = only(checkout("wheels"))
    assert line.startswith(f"{newcomponent.DOCKERFILE}:")
    assert "component-wheels: component 'hip-attn' builds the wheel amd_hipattn, which the " \
           'bake file does not give it (its wheels: hip-attn): add "hip-attn" = ' \
           '["amd-hipattn"] to WHEELS' in line


def test_no_fleet_estimate(checkout: Checkout) -> None:
    line = only(checkout("static-seconds"))
    assert "component-seconds: STATIC_SECONDS has no entry 'hip-attn'" in line


def test_a_table_entry_for_no_component(checkout: Checkout) -> None:
    root = checkout()
    _insert(root / newcomponent.BAKE, '  "hip-attn" = ["amd-hipattn"]\n', '  ghost = ["ghost"]\n')
    line = only(root)
    assert "component-stale: WHEELS has an entry 'ghost', which is no component" in line


def _upstream(root: Path) -> tuple[dict[str, str], list[str]]:
    """Which upstream stage each component answers, and component-upstream's findings."""
    definition = bakemodel.load([root / "rocm-bake.hcl"])
    targets = bakemodel.targets(definition, root)
    variables = {v.name: v.value for v in definition.variables()}
    settings = upstreamdocker.load()
    assert settings is not None
    up = upstreamdocker.fetch(settings, upstream.Metadata(upstream.Settings()), variables)
    refs, found = upstreamstages.answered(definition, targets, up, consistency.Dockerfiles(),
                                          root)
    return refs, [str(f) for f in found]


def test_the_whole_component_answers_upstream(checkout: Checkout) -> None:
    refs, found = _upstream(checkout())
    assert found == []
    assert refs["rocm_base:build_aiter"] == "aiter"      # derived: upstream's build_<name>
    assert refs["rocm_base:build_torchvision"] == "torch"  # declared: UPSTREAM_STAGE
    assert upstreamstages.stale_waivers(POLICY, refs, ROOT) == []


def test_upstream_stage_left_unmapped(checkout: Checkout) -> None:
    _, found = _upstream(checkout("upstream-stage"))
    assert len(found) == 1, found
    assert "component-upstream: component 'hip-attn' answers no upstream stage (upstream has " \
           'no build_hip_attn): add "hip-attn" = ["<file>:<stage>"] to UPSTREAM_STAGE' in found[0]
    assert "(build stages mapped to nothing: rocm" in found[0]
    assert 'or "hip-attn" = [] if upstream builds none' in found[0]


def test_upstream_stage_upstream_lacks(checkout: Checkout) -> None:
    root = checkout()
    bake = root / newcomponent.BAKE
    bake.write_text(bake.read_text().replace('  "hip-attn" = []\n',
                                             '  "hip-attn" = ["rocm:build_hipattn"]\n'))
    _, found = _upstream(root)
    assert len(found) == 1 and "component-upstream: UPSTREAM_STAGE[\"hip-attn\"] names " \
        "'rocm:build_hipattn', which upstream's files (rocm, rocm_base) do not have" in found[0]


def test_a_waiver_of_a_stage_it_answers_is_stale(checkout: Checkout, tmp_path: Path) -> None:
    # hip-attn is flash-attention: mapped to upstream's build_fa, a policy's build_fa waivers
    # ("not a component of this project") are stale, though no other rule judges them
    root = checkout()
    bake = root / newcomponent.BAKE
    bake.write_text(bake.read_text().replace('  "hip-attn" = []\n',
                                             '  "hip-attn" = ["rocm_base:build_fa"]\n'))
    refs, found = _upstream(root)
    assert found == [] and refs["rocm_base:build_fa"] == "hip-attn"
    policy = tmp_path / "policy.toml"
    policy.write_text("".join(
        f'[[exception]]\nrule = "{rule}"\nfile = "{file}"\ncontains = "stage {stage} "\n'
        'reason = "flash-attention is not a component of this project"\n\n'
        for rule, file, stage in (
            ("build-components", "src/rocm_bake_checks/lint/upstream-dockerfiles.toml",
             "build_fa"),
            ("build-components", "src/rocm_bake_checks/lint/upstream-dockerfiles.toml",
             "build_deepep"),
            ("release-wheels", "dockerfiles/wheels-export.Dockerfile", "build_fa"))))
    stale = [str(f) for f in upstreamstages.stale_waivers(policy, refs, tmp_path)]
    assert stale == [
        "policy.toml:1: component-waiver: exception for build-components ('stage build_fa ') "
        "waives upstream's stage build_fa, which component 'hip-attn' answers now: remove it",
        "policy.toml:13: component-waiver: exception for release-wheels ('stage build_fa ') "
        "waives upstream's stage build_fa, which component 'hip-attn' answers now: remove it"]


def test_a_consumer_that_is_no_component(checkout: Checkout) -> None:
    root = checkout()
    bake = root / newcomponent.BAKE
    bake.write_text(bake.read_text().replace('  "hip-attn" = ["vllm"]\n',
                                             '  "hip-attn" = ["vllm", "sglang"]\n'))
    line = only(root)
    assert "component-consumer: CONSUMERS[\"hip-attn\"] names 'sglang', which is not a " \
           "component (components: base, torch," in line
