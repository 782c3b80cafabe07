"""Rule supported-archs (lint/supportedarchs.py): a cell is built as upstream ships it.

"Upstream ships the component on the arch" and "its wheel has GPU kernels for the arch" are two
questions, both read from upstream's files: a small repository whose upstream is written here
(a release Dockerfile with one image for gfx950 and gfx1201 that compiles AITER's and
FlashAttention's kernels for gfx9 archs only, as vLLM v0.28.0's Dockerfile.rocm_base does; the
wheels' own setup.py with their arch lists and their switch to a build without kernels),
held in memory (as ``inv bump`` holds a release).  The bad case of the issue: SKIP dropping,
for "no kernels", a component upstream ships on gfx1201 (the committed bake file before
TRITON_ONLY); its good
case; each other way a cell can differ from upstream's; and the committed bake file."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_bake_checks import lint
from rocm_bake_checks.lint import bakemodel, supportedarchs, upstream
from rocm_bake_checks.lint.locks import built as builtmeta

ROOT = Path(__file__).resolve().parents[2]
NO_POLICY = Path("no-policy.toml")
BASE = "https://upstream.test"
FA_SETUP = f"{BASE}/fa/{{FA_COMMIT}}/setup.py"
AITER_ARCHS = f"{BASE}/aiter/{{AITER_REF}}/build_targets.py"
AITER_SETUP = f"{BASE}/aiter/{{AITER_REF}}/setup.py"
RECIPE = f"{BASE}/recipe/{{VLLM_COMMIT}}/Dockerfile.release"
PINS = {"FA_COMMIT": "f" * 40, "AITER_REF": "v1.0.0", "VLLM_COMMIT": "c" * 40}

# Upstream's release recipe, in the shape of vLLM's Dockerfile.rocm_base: one image for every arch
# of PYTORCH_ROCM_ARCH, AITER's kernels for AITER_ROCM_ARCH, FlashAttention's for the arch list
# less its gfx1xxx archs; MoRI's for whatever its own setup.py takes.
RELEASE = r"""ARG BASE_IMAGE=rocm/dev:1
FROM ${BASE_IMAGE} AS base
ARG PYTORCH_ROCM_ARCH=gfx942;gfx950;gfx1201
ENV PYTORCH_ROCM_ARCH=${PYTORCH_ROCM_ARCH}
ENV AITER_ROCM_ARCH=gfx942;gfx950

FROM base AS build_fa
RUN cd fa \
    && GPU_ARCHS=$(echo ${PYTORCH_ROCM_ARCH} | sed -e 's/;gfx1[0-9]\{3\}//g') python3 setup.py \
       bdist_wheel

FROM base AS build_aiter
RUN cd aiter \
    && PREBUILD_KERNELS=1 GPU_ARCHS=${AITER_ROCM_ARCH} python3 setup.py bdist_wheel

FROM base AS build_mori
RUN cd mori && python3 setup.py bdist_wheel

FROM base AS debs
RUN --mount=type=bind,from=build_fa,src=/app,target=/a \
    --mount=type=bind,from=build_aiter,src=/app,target=/b \
    --mount=type=bind,from=build_mori,src=/app,target=/c \
    cp /a/*.whl /b/*.whl /c/*.whl /debs

FROM base AS final
RUN --mount=type=bind,from=debs,src=/debs,target=/install pip install /install/*.whl
"""
DOCKERFILES = f"""[dockerfiles]
base-stages = ["release:final"]
final = "release:final"
release = ["release:debs"]
ours-base = "base.Dockerfile"
ours-final = "vllm.Dockerfile:runtime"
ours-export = "wheels.Dockerfile:export"

[dockerfiles.files]
release = "{RECIPE}"
"""
FA_SETUP_PY = """import os
USE_TRITON_ROCM = os.getenv("FLASH_ATTENTION_TRITON_AMD_ENABLE", "FALSE") == "TRUE"
def validate_and_update_archs(archs):
    allowed_archs = ["native", "gfx90a", "gfx950", "gfx942"]
"""
AITER_SETUP_PY = """import os
AITER_TRITON_ONLY = os.environ.get("AITER_TRITON_ONLY", "0") == "1"
if AITER_TRITON_ONLY:
    install_requires = ["einops"]
else:
    install_requires = ["einops", "pybind11"]
setup(name="amd-aiter", install_requires=install_requires)
"""
AITER_ARCHS_PY = 'GFX_MAP = {0: "native", 1: "gfx942", 2: "gfx950", 3: "gfx1201"}\n'
FA = FA_SETUP + '"'
CONFIG = f"""[supported-archs]
image-archs = "PYTORCH_ROCM_ARCH"

[supported-archs.flash-attn]
url = "{FA_SETUP}"
name = "allowed_archs"
arch-knob = "GPU_ARCHS"
without-kernels = {{ env = "FLASH_ATTENTION_TRITON_AMD_ENABLE", value = "TRUE", url = "{FA} }}

[supported-archs.amd-aiter]
url = "{AITER_ARCHS}"
name = "GFX_MAP"
arch-knob = "GPU_ARCHS"
without-kernels = {{ env = "AITER_TRITON_ONLY", value = "1", url = "{AITER_SETUP}" }}

[supported-archs.amd-mori]
archs = ["gfx942", "gfx950"]
from = "MoRI setup.py _supported_arch_list"
"""
ISSUE_SKIP = ('  "gfx1201/aiter" = "no kernels for gfx1201"\n'
              '  "gfx1201/flash-attn" = "not in allowed_archs"\n'
              '  "gfx1201/mori" = "not supported"\n')
GOOD_SKIP = '  "gfx1201/mori" = "not supported"\n'
GOOD_TRITON_ONLY = ('  "gfx1201/aiter" = "Triton-only"\n'
                    '  "gfx1201/flash-attn" = "Triton backend"\n')


def bake(skip: str, triton_only: str | None = GOOD_TRITON_ONLY,
         archs: str = '"gfx950", "gfx1201"') -> str:
    table = "" if triton_only is None else f"TRITON_ONLY = {{\n{triton_only}}}\n"
    variables = "".join(f'variable "{k}" {{ default = "{v}" }}\n' for k, v in PINS.items())
    return f"""{variables}ALL_ARCHS = [{archs}]
SKIP = {{
{skip}}}
{table}CACHE_KEY = {{ aiter = "a", flash-attn = "f", mori = "m" }}
WHEELS = {{ aiter = ["amd-aiter"], mori = ["amd-mori"] }}
UPSTREAM_STAGE = {{ flash-attn = ["release:build_fa"] }}
group "default" {{
  targets = []
}}
"""


def upstream_files(fa_setup: str = FA_SETUP_PY) -> dict[str, str]:
    def url(template: str) -> str:
        return template.format(**PINS)
    return {url(FA_SETUP): fa_setup, url(AITER_ARCHS): AITER_ARCHS_PY,
            url(AITER_SETUP): AITER_SETUP_PY, url(RECIPE): RELEASE}


def settings(root: Path, files: dict[str, str] | None = None,
             with_recipe: bool = True) -> upstream.Settings:
    (root / "upstream.toml").write_text(CONFIG, encoding="utf-8")
    (root / "upstream-dockerfiles.toml").write_text(DOCKERFILES, encoding="utf-8")
    held = files or upstream_files()
    return upstream.Settings(offline=None, held=(upstream.Held("", held.get, "the test"),),
                             rewrites=(("https://", "http://127.0.0.1:9/"),),
                             config=root / "upstream.toml",
                             dockerfiles=root / "upstream-dockerfiles.toml" if with_recipe
                             else None)


def findings(root: Path, skip: str, triton_only: str | None = GOOD_TRITON_ONLY,
             archs: str = '"gfx950", "gfx1201"', with_recipe: bool = True) -> list[str]:
    (root / "docker-bake.hcl").write_text(bake(skip, triton_only, archs), encoding="utf-8")
    definition = bakemodel.load([root / "docker-bake.hcl"])
    metadata = upstream.Metadata(settings(root, with_recipe=with_recipe))
    return [f"{f.file}:{f.line}: {f.message}"
            for f in supportedarchs.check(definition, root, metadata)]


def test_a_skip_of_what_upstream_ships_without_kernels_is_a_finding(tmp_path: Path) -> None:
    """The issue: the bake file skipped AITER and FlashAttention on gfx1201 for "no kernels",
    but upstream's image ships both there (for their Triton kernels).  Rule supported-archs."""
    found = findings(tmp_path, ISSUE_SKIP, triton_only=None)
    assert [f.split(": ", 1)[1].split(",")[0] for f in found] == [
        "SKIP drops 'gfx1201/flash-attn'", "SKIP drops 'gfx1201/aiter'"]
    aiter = found[1]
    assert aiter.startswith("docker-bake.hcl:5: SKIP drops 'gfx1201/aiter', but upstream "
                            "ships aiter on gfx1201 (Dockerfile.release stage build_aiter, in "
                            "its images for PYTORCH_ROCM_ARCH=gfx942;gfx950;gfx1201: "
                            "Dockerfile.release:3), with kernels for gfx942, gfx950 (")
    assert "among GPU_ARCHS=gfx942;gfx950: the RUN at Dockerfile.release:13, " \
           "GPU_ARCHS=${AITER_ROCM_ARCH})" in aiter
    assert aiter.endswith("none for gfx1201: build it without kernels (AITER_TRITON_ONLY=1, "
                          "read by https://upstream.test/aiter/v1.0.0/setup.py): move the "
                          "entry to TRITON_ONLY")
    fa = found[0]
    assert "among GPU_ARCHS=gfx942;gfx950: the RUN at Dockerfile.release:8" in fa
    assert "FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE" in fa


def test_what_upstream_ships_without_kernels_built_without_them_is_clean(
        tmp_path: Path) -> None:
    assert findings(tmp_path, GOOD_SKIP) == []


def test_no_entry_for_a_cell_upstream_ships_without_kernels_names_triton_only(
        tmp_path: Path) -> None:
    found = findings(tmp_path, GOOD_SKIP, triton_only='  "gfx1201/aiter" = "Triton-only"\n')
    assert len(found) == 1 and found[0].startswith("docker-bake.hcl:5: flash-attn: upstream "
                                                   "ships flash-attn on gfx1201")
    assert found[0].endswith("so a cell with kernels would be built; add \"gfx1201/flash-attn\""
                             " = \"<why>\" to TRITON_ONLY (its build without kernels: "
                             "FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE, read by "
                             f"{FA_SETUP.format(**PINS)})")


def test_a_wheel_without_a_build_without_kernels_is_skipped_not_triton_only(
        tmp_path: Path) -> None:
    """MoRI ships on gfx1201 upstream, with no kernels for it and no build without them."""
    found = findings(tmp_path, "", GOOD_TRITON_ONLY + '  "gfx1201/mori" = "?"\n')
    assert found == ["docker-bake.hcl:7: TRITON_ONLY has 'gfx1201/mori', but mori's wheel has "
                     "no build without kernels (upstream.toml [supported-archs] declares no "
                     "without-kernels): move the entry to SKIP"]


def test_triton_only_where_upstream_has_kernels_is_a_finding(tmp_path: Path) -> None:
    found = findings(tmp_path, GOOD_SKIP, GOOD_TRITON_ONLY + '  "gfx950/aiter" = "?"\n')
    assert len(found) == 1
    assert found[0].startswith("docker-bake.hcl:8: TRITON_ONLY builds 'gfx950/aiter' without "
                               "kernels, but upstream has kernels for gfx942, gfx950 (")
    assert found[0].endswith("): remove the entry")


def test_an_arch_upstream_does_not_ship_needs_skip(tmp_path: Path) -> None:
    archs = '"gfx950", "gfx1201", "gfx1250"'
    found = findings(tmp_path, GOOD_SKIP + '  "gfx1250/aiter" = "no"\n  "gfx1250/mori" = "no"\n',
                     GOOD_TRITON_ONLY + '  "gfx1250/flash-attn" = "?"\n', archs)
    assert len(found) == 1
    assert found[0].startswith("docker-bake.hcl:10: TRITON_ONLY has 'gfx1250/flash-attn', but "
                               "upstream does not ship flash-attn on gfx1250 (")
    assert found[0].endswith("): move the entry to SKIP")
    assert findings(tmp_path, GOOD_SKIP + '  "gfx1250/aiter" = "no"\n  "gfx1250/mori" = "no"\n'
                    '  "gfx1250/flash-attn" = "no"\n', GOOD_TRITON_ONLY, archs) == []


def test_a_skip_of_what_upstream_ships_with_kernels_is_a_finding(tmp_path: Path) -> None:
    found = findings(tmp_path, GOOD_SKIP + '  "gfx950/mori" = "why not"\n')
    assert len(found) == 1
    assert found[0].startswith("docker-bake.hcl:5: SKIP drops 'gfx950/mori', but upstream "
                               "ships mori on gfx950 (")
    assert "with kernels for gfx942, gfx950 (MoRI setup.py _supported_arch_list)" in found[0]


def test_both_tables_and_an_unknown_key(tmp_path: Path) -> None:
    found = findings(tmp_path, GOOD_SKIP + '  "gfx1201/aiter" = "x"\n',
                     GOOD_TRITON_ONLY + '  "gfx1201/torch" = "x"\n')
    assert found == [
        "docker-bake.hcl:5: 'gfx1201/aiter' is in both SKIP and TRITON_ONLY: keep one",
        "docker-bake.hcl:9: TRITON_ONLY has 'gfx1201/torch', which is no <arch>/<component> "
        "of a wheel upstream.toml [supported-archs] describes: remove it"]


def test_without_upstreams_dockerfiles_only_the_kernels_are_checked(tmp_path: Path) -> None:
    """An arch outside the wheel's own list without its SKIP entry: a cell would be built."""
    found = findings(tmp_path, GOOD_SKIP, triton_only=None, with_recipe=False)
    assert found[0] == (
        "docker-bake.hcl:5: flash-attn: gfx1201 is not among the archs upstream has kernels "
        f"for (gfx90a, gfx950, gfx942: {FA_SETUP.format(**PINS)} allowed_archs) and SKIP has "
        "no entry 'gfx1201/flash-attn', so a cell would be built; add \"gfx1201/flash-attn\" "
        "= \"<why>\" to SKIP")


def test_a_switch_upstream_no_longer_reads_is_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "docker-bake.hcl").write_text(bake(GOOD_SKIP), encoding="utf-8")
    definition = bakemodel.load([tmp_path / "docker-bake.hcl"])
    files = upstream_files(fa_setup=FA_SETUP_PY.replace("FLASH_ATTENTION_TRITON_AMD_ENABLE",
                                                        "FA_TRITON"))
    metadata = upstream.Metadata(settings(tmp_path, files))
    with pytest.raises(lint.LintError, match="reads no FLASH_ATTENTION_TRITON_AMD_ENABLE") \
            as caught:
        supportedarchs.check(definition, tmp_path, metadata)
    assert "\n" not in str(caught.value)


def test_the_committed_bake_file_builds_every_cell_as_upstream_ships_it() -> None:
    found = lint.run(ROOT, [ROOT / "rocm-bake.hcl"], ["conformance"], NO_POLICY,
                     upstream.Settings())
    assert [f for f in found if f.rule == supportedarchs.RULE] == []


def test_the_committed_bake_file_builds_aiter_and_flash_attn_on_gfx1201_without_kernels(
        ) -> None:
    definition = bakemodel.load([ROOT / "rocm-bake.hcl"])
    triton_only, skip = definition.value("TRITON_ONLY"), definition.value("SKIP")
    assert isinstance(triton_only, dict) and isinstance(skip, dict)
    assert {"gfx1201/aiter", "gfx1201/flash-attn"} <= set(triton_only)
    assert not {"gfx1201/aiter", "gfx1201/flash-attn"} & set(skip)


def test_upstreams_sed_is_evaluated_as_sed() -> None:
    values = {"ARCHS": ("gfx90a;gfx942;gfx950;gfx1100;gfx1201", 3)}
    written = r"$(echo ${ARCHS} | sed -e 's/;gfx1[0-9]\{3\}//g')"
    assert supportedarchs.evaluate(written, values, "x") == "gfx90a;gfx942;gfx950"
    # the first arch has no ';' before it: sed leaves it, as upstream's expression does
    single = {"ARCHS": ("gfx1201", 3)}
    assert supportedarchs.evaluate(written, single, "x") == "gfx1201"
    assert supportedarchs.evaluate("${ARCHS}", values, "x") == values["ARCHS"][0]


@pytest.mark.parametrize("written", ["$(python3 -c 'print(1)')", "${NOPE}",
                                     "$(echo ${ARCHS} | sed -e 's/a/\\1/')"])
def test_what_cannot_be_evaluated_is_one_line_error(written: str) -> None:
    with pytest.raises(lint.LintError) as caught:
        supportedarchs.evaluate(written, {"ARCHS": ("gfx950", 1)}, "Dockerfile.release")
    assert str(caught.value).startswith("Dockerfile.release") and "\n" not in str(caught.value)


def test_a_name_with_no_arch_literal_is_one_line_error() -> None:
    with pytest.raises(lint.LintError, match="no literal list or dict of gfx archs") as caught:
        supportedarchs.archs_in("x = 1\n", "allowed_archs", "setup.py")
    assert "\n" not in str(caught.value)


def test_the_build_without_kernels_requires_what_its_branch_declares() -> None:
    """builtmeta reads the Triton-only build's install_requires with its condition true."""
    assert builtmeta.setup_requires(AITER_SETUP_PY, "setup.py", ["AITER_TRITON_ONLY"]) == [
        "einops", "pybind11"]
    assert builtmeta.setup_requires(AITER_SETUP_PY, "setup.py", (), ["AITER_TRITON_ONLY"]) == [
        "einops"]
