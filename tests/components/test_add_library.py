"""ARCHITECTURE.md's "A component" for a library (not a wheel), in a copy of the bake file and
the Dockerfiles: ``rocm-smi`` (newlibrary.py: ROCr + CLR, upstream's build_rocm_runtime,
installed by the vLLM image) is three hand-edited files -- the bake file, its own Dockerfile,
the consumer's Dockerfile -- and ``inv lint``'s families that read this tree (consistency,
pins, downloads, caching, recipes: everything but hadolint's binary and the families that
read upstream's metadata) pass; then each thing a newcomer can forget or get wrong is left out
once, and the lint says exactly one line that names the fix."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.model import bakefile, components
from rocm_bake_checks.lint import runner
from rocm_bake_docs import regen
from tests.components import newlibrary
from tests.conftest import ROOT
from tests.drift import upstream, worldpins

FAMILIES = ("consistency", "pins", "downloads", "caching", "recipes")
ARCHES = "gfx950,gfx1201,gfx1250"


def checkout(root: Path, *leave_out: str, fault: str = "") -> list[str]:
    shutil.copy(ROOT / "rocm-bake.hcl", root / "rocm-bake.hcl")
    shutil.copytree(ROOT / "dockerfiles", root / "dockerfiles")
    return newlibrary.apply(root, leave_out, fault)


def lint(root: Path) -> list[str]:
    return [str(f) for f in runner.run(root, [root / "rocm-bake.hcl"], families=FAMILIES)]


def test_a_library_is_three_hand_edits_and_the_lint_passes(tmp_path: Path) -> None:
    touched = checkout(tmp_path)
    assert sorted(touched) == sorted(["rocm-bake.hcl", newlibrary.DOCKERFILE,
                                      newlibrary.CONSUMER])
    assert lint(tmp_path) == []
    definition = bakefile.load([tmp_path / "rocm-bake.hcl"], {"GPU_ARCHS": ARCHES})
    assert components.libraries(definition)[newlibrary.NAME] == newlibrary.LIBRARIES
    assert components.wheels(definition)[newlibrary.NAME] == ()      # no wheel
    targets = definition.plan(["all"]).targets
    assert targets["rocm-smi-gfx950"].get("target") == "staging"
    assert (targets["vllm-gfx950"].get("contexts") or {})[newlibrary.NAME] == \
        "target:rocm-smi-gfx950"
    # a library reaches no dist/: the wheels export does not take it
    assert newlibrary.NAME not in (targets["wheels-gfx950"].get("contexts") or {})
    assert "rocm-smi-gfx1250" not in targets


def test_a_skipped_library_cell_is_the_placeholder_with_an_empty_staging(
        tmp_path: Path) -> None:
    # the library form of the placeholder: `empty` holds /staging, so the consumer's
    # COPY --from=rocm-smi /staging/ /opt/rocm/ resolves where the cell is skipped
    checkout(tmp_path)
    bake = tmp_path / "rocm-bake.hcl"
    bake.write_text(bake.read_text().replace(
        '  "gfx1250/rocm-smi" =',
        f'  "gfx1201/rocm-smi" = "{newlibrary.SKIP_REASON}"\n  "gfx1250/rocm-smi" ='))
    assert lint(tmp_path) == []
    targets = bakefile.load([bake], {"GPU_ARCHS": ARCHES}).plan(["all"]).targets
    assert (targets["vllm-gfx1201"].get("contexts") or {})[newlibrary.NAME] == "target:empty"
    empty = (ROOT / "dockerfiles" / "empty.Dockerfile").read_text(encoding="utf-8")
    assert f"WORKDIR {components.STAGING}\n" in empty and "WORKDIR /wheels\n" in empty


OMISSIONS = [
    # (edits left out, the Dockerfile's fault, where, what the one line says)
    (("consumer-installs",), "", "dockerfiles/vllm.Dockerfile:",
     "component-consumer: stage runtime (the vllm image) mounts library 'rocm-smi' "
     "(line {line}) but never installs it, which CONSUMERS says it does: COPY "
     "--from=rocm-smi /staging/ /opt/rocm/ into it (its prefix; a mount is gone after its "
     "RUN), then RUN ldconfig"),
    (("consumer-ldconfig",), "", "dockerfiles/vllm.Dockerfile:",
     "component-consumer: stage runtime (the vllm image) copies library 'rocm-smi' into "
     "/opt/rocm but never registers it with the dynamic linker: RUN ldconfig after the COPY "
     "(or ENV LD_LIBRARY_PATH=/opt/rocm/lib)"),
    ((), "fetch-branch", "dockerfiles/rocm-smi.Dockerfile:",
     "git-commit: git fetch of ${ROCM_SMI_REF}: a branch or tag, not the pinned commit, "
     "and the step checks out no commit: fetch the commit (git fetch --depth 1 origin "
     "${ROCM_SMI_COMMIT}, then git checkout FETCH_HEAD, as upstream does) or use "
     "fetch-source.sh REPO REF COMMIT DEST"),
    ((), "fetch-no-commit", "dockerfiles/rocm-smi.Dockerfile:",
     "git-commit: fetch-source.sh is given an empty string as its COMMIT, not the pinned "
     "commit: pass ${ROCM_SMI_COMMIT} (fetch-source.sh REPO REF COMMIT DEST; the REF is "
     "only checked against it)"),
    (("consumers",), "", "dockerfiles/vllm.Dockerfile:",
     "component-consumer: stage runtime (the vllm image) installs 'rocm-smi', but "
     'CONSUMERS["rocm-smi"] does not name vllm: add "vllm" to it in the bake file'),
    (("skip",), "", "rocm-bake.hcl:",
     "component-skip: SKIP entry 'gfx1250/rocm-smi' gives no reason: say why rocm-smi "
     "cannot be built for gfx1250 (\"gfx1250/rocm-smi\" = \"<why, from upstream's "
     "files>\"); the images' rocm-bake.skipped label and the wheels export carry it"),
    (("libraries",), "", "dockerfiles/vllm.Dockerfile:",
     "component-consumer: stage runtime (the vllm image) copies 'rocm-smi''s /staging as "
     "a library's, but the bake file gives it no libraries: add \"rocm-smi\" = "
     "[\"<lib>\", ...] (its shared libraries under /staging/lib) to LIBRARIES"),
    ((), "no-staging", "dockerfiles/rocm-smi.Dockerfile:",
     "component-export: 'rocm-smi' is a library (LIBRARIES), but its stage staging "
     "exports no /staging, which its consumers copy: COPY --from=<its build stage> /staging/ "
     "/staging/ (its libraries under /staging/lib, as upstream's build_rocm_runtime stages "
     "them)"),
]


@pytest.mark.parametrize(("leave_out", "fault", "where", "said"), OMISSIONS,
                         ids=[o[0][0] if o[0] else o[1] for o in OMISSIONS])
def test_each_omission_is_one_line_naming_the_fix(tmp_path: Path, leave_out: tuple[str, ...],
                                                   fault: str, where: str, said: str) -> None:
    checkout(tmp_path, *leave_out, fault=fault)
    found = lint(tmp_path)
    assert len(found) == 1, found
    file, line, message = found[0].split(":", 2)
    assert f"{file}:" == where
    assert message.strip() == said.replace("{line}", line), found[0]


def test_a_library_no_image_takes_names_consumers(tmp_path: Path) -> None:
    # neither CONSUMERS nor a consumer's context nor its Dockerfile: installed nowhere
    checkout(tmp_path, "consumers", "consumer-context")
    consumer = tmp_path / newlibrary.CONSUMER
    consumer.write_text((ROOT / newlibrary.CONSUMER).read_text(encoding="utf-8"))
    found = lint(tmp_path)
    assert len(found) == 1, found
    assert "component-export: library 'rocm-smi' is installed by no image: add " \
           '"rocm-smi" = ["<image>"] to CONSUMERS and it to each image\'s contexts' in found[0]


def test_a_shared_library_undeclared(tmp_path: Path) -> None:
    checkout(tmp_path)
    dockerfile = tmp_path / newlibrary.DOCKERFILE
    dockerfile.write_text(dockerfile.read_text().replace(
        "/staging/lib/liboam.so*", "/staging/lib/liboam.so* /staging/lib/librdc.so*"))
    found = lint(tmp_path)
    assert len(found) == 1, found
    assert found[0].startswith(f"{newlibrary.DOCKERFILE}:")
    assert "component-libraries: library 'rocm-smi' builds librdc, which the bake file " \
           "does not give it (its libraries: librocm_smi64, liboam): add " \
           '"rocm-smi" = ["librocm_smi64", "liboam", "librdc"] to LIBRARIES' \
           in found[0]


def test_the_drift_world_has_its_repository_from_the_bake_file(tmp_path: Path) -> None:
    # inv regen records the drift snapshot against the test world: the library's repository
    # (ROCm/rocm_smi_lib, no fixture of tags) and its pin come from the bake file, no list
    (tmp_path / "checkout").mkdir()
    checkout(tmp_path / "checkout")
    bake = tmp_path / "checkout" / "rocm-bake.hcl"
    assert "ROCm/rocm_smi_lib" in upstream.plain_repos(bake)
    repos, chosen = upstream.build_repos(tmp_path / "git", bake)
    world = repos["ROCm/rocm_smi_lib"]
    pins = worldpins.derive(bake, repos, chosen)
    assert pins["ROCM_SMI_COMMIT"] == world.rev("rev-parse", "refs/heads/release/rocm-rel-7.2")


def test_regen_names_the_pin_and_the_file_a_step_could_not_check(tmp_path: Path) -> None:
    # the committed snapshot knows nothing of the new pin: regen's variables-page step fails
    # naming the pin, where the bake file declares it, and what the check said
    checkout(tmp_path)
    (tmp_path / regen.SNAPSHOT).parent.mkdir(parents=True)
    shutil.copy(ROOT / regen.SNAPSHOT, tmp_path / regen.SNAPSHOT)
    with pytest.raises(RocmBakeError) as failed:
        regen.regenerate_variables_page(tmp_path)
    line = (tmp_path / "rocm-bake.hcl").read_text().splitlines().index(
        'variable "ROCM_SMI_COMMIT" {') + 1
    assert str(failed.value) == (
        f"inv version-check --offline {regen.SNAPSHOT} --docs failed (exit 2): "
        f"ROCM_SMI_COMMIT (rocm-bake.hcl:{line}): offline: the snapshot has no answer for "
        "git ls-remote https://github.com/ROCm/rocm_smi_lib.git")
