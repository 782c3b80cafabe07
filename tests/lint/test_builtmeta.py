"""What a built wheel requires, read statically from its upstream source (lint/locks/built.py):
a setup.py of AITER's v0.1.19 shape, vLLM's real pin script (from its v0.28.0 sdist: the cell's
wheels its wheel is pinned to at build time), and the cases that cannot be read, named with
file:line."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from rocm_bake_checks.lint import bakemodel, upstream
from rocm_bake_checks.lint.findings import LintError
from rocm_bake_checks.lint.locks import built as builtmeta
from rocm_bake_checks.lint.locks import metadata as lockmeta
from rocm_bake_checks.lint.locks import resolution
from tests import upstream_sdists
from tests.conftest import ROOT

URL = "https://raw.githubusercontent.com/ROCm/aiter/v0.1.19/setup.py"


# A setup.py of the shape of AITER's at v0.1.19 (its lines 24-25 and 463-491: the switch, and
# install_requires bound on each side of it), written here: upstream's file is not kept.
AITER_SETUP_PY = """import os
from setuptools import setup
IS_WINDOWS = os.name == "nt"
AITER_TRITON_ONLY = os.environ.get("AITER_TRITON_ONLY", "0") == "1" or IS_WINDOWS
if AITER_TRITON_ONLY:
    install_requires = ["einops", "packaging", "psutil"]
else:
    install_requires = [
        "pybind11>=3.0.1",
        "ninja",
        "pandas",
        "einops",
        "psutil",
        "packaging",
        "flydsl==0.2.4",
    ]
setup(name="amd-aiter", install_requires=install_requires)
"""


def test_aiters_setup_py_install_requires() -> None:
    assert builtmeta.read(URL, AITER_SETUP_PY, ["AITER_TRITON_ONLY"]) == [
        "pybind11>=3.0.1", "ninja", "pandas", "einops", "psutil", "packaging", "flydsl==0.2.4"]
    assert builtmeta.read(URL, AITER_SETUP_PY, true=["AITER_TRITON_ONLY"]) == [
        "einops", "packaging", "psutil"]


def test_a_condition_the_lint_cannot_decide_names_the_line() -> None:
    with pytest.raises(LintError, match=r"setup.py:5: install_requires binds install_requires "
                                        r"under a condition the lint cannot decide "
                                        r"\(AITER_TRITON_ONLY\)"):
        builtmeta.read(URL, AITER_SETUP_PY)


@pytest.mark.parametrize(("text", "why"), [
    ("from setuptools import setup\nsetup(install_requires=open('r.txt').read().split())\n",
     "setup.py:2: install_requires is a Call: not readable statically"),
    ("from setuptools import setup\nR = ['a']\nR += ['b']\nsetup(install_requires=R)\n",
     "setup.py:3: install_requires extends R"),
    ("from setuptools import setup\nR = ['a']\nif HIP:\n    R.append('b')\n"
     "setup(install_requires=R)\n",
     "setup.py:3: install_requires binds R under a condition the lint cannot decide (HIP)"),
    ("from setuptools import setup\nsetup(name='x')\n",
     "0 install_requires= in setup"),
])
def test_what_is_not_a_literal_is_an_error(text: str, why: str) -> None:
    with pytest.raises(LintError, match=re.escape(why)):
        builtmeta.read("https://example.org/x/setup.py", text)


def test_cupys_setup_py_without_its_cuda_only_append() -> None:
    # cupy v14.2.0 setup.py (its PyPI sdist): `dependencies.append("cuda-pathfinder...")`
    # under `if not ctx.use_hip:`, which the HIP build (CUPY_INSTALL_USE_HIP=1) never takes
    text = ("from setuptools import setup\ndependencies = [\n    'numpy>=2.0,<2.6',\n]\n"
            "if not ctx.use_hip:\n    dependencies.append('cuda-pathfinder>=1.3.4,==1.*')\n"
            "setup(install_requires=dependencies)\n")
    assert builtmeta.read("https://e.org/setup.py", text, ["not ctx.use_hip"]) == \
        ["numpy>=2.0,<2.6"]


def test_pyproject_dependencies_and_dynamic_ones() -> None:
    assert builtmeta.read("https://e.org/pyproject.toml",
                          "[project]\nname='n'\ndependencies=['torch', 'numpy']\n") == \
        ["torch", "numpy"]
    with pytest.raises(LintError, match="dependencies is dynamic"):
        builtmeta.read("https://e.org/pyproject.toml",
                       "[project]\nname='n'\ndynamic=['dependencies']\n")


def test_a_published_wheel_less_its_cuda_extras_and_the_cells_own(tmp_path: Path) -> None:
    # torch's PyPI wheel: PYTORCH_EXTRA_INSTALL_REQUIREMENTS under platform_system == "Linux"
    lockmeta.save(tmp_path / lockmeta.SNAPSHOT, {"torch-9-x.whl": lockmeta.Dist(
        "torch", "9", ("filelock", 'nvidia-nccl==2; platform_system == "Linux"',
                       'triton==3.7.0; platform_system == "Linux"', "sympy>=1"), "",
        "https://files.example/torch-9-x.whl.metadata")})
    config = dataclasses.replace(upstream.Config((), {}, {}), built={
        "torch": upstream.Built(("torch",), requires_from=("pypi:torch-9-x.whl",),
                                without_marker=('platform_system == "Linux"',)),
        "triton": upstream.Built(("triton",))})
    read = builtmeta.requires("torch", config, None, {}, tmp_path)  # type: ignore[arg-type]
    assert read == builtmeta.Read(("filelock", "sympy>=1"),
                                  ("https://files.example/torch-9-x.whl.metadata",))
    lockmeta.save(tmp_path / lockmeta.SNAPSHOT, {})
    with pytest.raises(LintError, match=r"torch-9-x.whl is not in dockerfiles/locks/metadata"
                                        r".json: run `inv lock`"):
        builtmeta.requires("torch", config, None, {}, tmp_path)  # type: ignore[arg-type]


def test_hand_written_requires_are_refused(tmp_path: Path) -> None:
    config = tmp_path / "upstream.toml"
    config.write_text('[built]\ntorch = { packages = ["torch"], requires = ["filelock"] }\n')
    with pytest.raises(LintError, match="torch: `requires` is hand-written"):
        upstream.load_config(config)


# -- the pins a stage writes with upstream's pin script (vLLM's) -----------------------------
@pytest.fixture
def pin_script() -> str:
    """vLLM's tools/vllm-rocm/pin_rocm_dependencies.py, from its v0.28.0 sdist."""
    return upstream_sdists.member(upstream_sdists.VLLM["0.28.0"],
                                  "tools/vllm-rocm/pin_rocm_dependencies.py").read_text()


def test_the_pin_scripts_package_mapping_in_its_order(pin_script: str) -> None:
    assert builtmeta.package_mapping(pin_script, "pin.py") == [
        ("torch-", "torch"), ("triton-", "triton"), ("triton_kernels-", "triton-kernels"),
        ("torchvision-", "torchvision"), ("torchaudio-", "torchaudio"), ("amdsmi-", "amdsmi"),
        ("flash_attn-", "flash-attn"), ("amd_aiter-", "amd-aiter")]


@pytest.mark.parametrize(("text", "why"), [
    ("x = 1\n", "pin.py: 0 assignments to package_mapping"),
    ("package_mapping = [(p, 'torch')]\n", "pin.py:1: package_mapping is not a literal"),
    ("package_mapping = ['torch-']\n", "pin.py:1: package_mapping is not a list of (prefix, "
                                       "name) pairs"),
])
def test_a_mapping_not_readable_statically_is_an_error(text: str, why: str) -> None:
    with pytest.raises(LintError, match=re.escape(why)):
        builtmeta.package_mapping(text, "pin.py")


def test_the_vllm_wheel_requires_the_wheels_its_build_mounts_as_the_script_pins_them() -> None:
    """vllm.Dockerfile's build stage runs the script on requirements/rocm.txt with the torch,
    triton, aiter, amdsmi and flash-attn wheels it mounts: the vLLM wheel requires each at the
    version the cell builds, first, in the script's order; amdsmi, the other wheel of the
    component, requires nothing of vLLM's (as the rehearsal's amdsmi)."""
    definition = bakemodel.load([ROOT / "rocm-bake.hcl"])
    built = resolution.built_dists(definition, [ROOT / "rocm-bake.hcl"],
                                   bakemodel.targets(definition, ROOT), ROOT,
                                   upstream.Metadata(upstream.Settings()))
    pins = [r for r in built["vllm"].requires if "==" in r and r.split("==")[0] in built]
    assert [p.split("==")[0] for p in pins] == [
        "torch", "triton", "torchvision", "torchaudio", "amdsmi", "flash-attn", "amd-aiter"]
    assert all(p == f"{p.split('==')[0]}=={built[p.split('==')[0]].version}" for p in pins)
    assert built["vllm"].requires[:len(pins)] == tuple(pins)
    assert built["amdsmi"].requires == ()


def test_the_snapshot_answers_every_fact_the_rehearsal_reads() -> None:
    """What `inv rehearse` reads of upstream before it builds (the built wheels' requirements,
    and each without-kernels variant's: AITER Triton-only for gfx1201) is all in the committed
    snapshot, replayed offline as the rehearsal replays it; a fact only lint asked for when it
    was recorded would stop the rehearsal before its first step."""
    bake_file = ROOT / "rocm-bake.hcl"
    definition = bakemodel.load([bake_file])
    metadata = upstream.Metadata(upstream.Settings())
    built = resolution.built_dists(definition, [bake_file], bakemodel.targets(definition, ROOT),
                                   ROOT, metadata, runtime_files=False)
    without = resolution.built_without_kernels(definition, ROOT, metadata)
    assert built and without
