"""What a built wheel requires, read statically from its upstream source (lint/builtmeta.py):
AITER's real setup.py at v0.1.19, and the cases that cannot be read, named with file:line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rocm_bake_checks.lint import builtmeta
from rocm_bake_checks.lint.findings import LintError

AITER = (Path(__file__).parent / "fixtures" / "upstream" / "raw.githubusercontent.com" / "ROCm"
         / "aiter" / "v0.1.19" / "setup.py")
URL = "https://raw.githubusercontent.com/ROCm/aiter/v0.1.19/setup.py"


def test_aiters_setup_py_install_requires() -> None:
    assert builtmeta.read(URL, AITER.read_text(), ["AITER_TRITON_ONLY"]) == [
        "pybind11>=3.0.1", "ninja", "pandas", "einops", "psutil", "packaging", "flydsl==0.2.4"]


def test_a_condition_the_lint_cannot_decide_names_the_line() -> None:
    with pytest.raises(LintError, match=r"setup.py:\d+: install_requires binds install_requires "
                                        r"under a condition the lint cannot decide "
                                        r"\(AITER_TRITON_ONLY\)"):
        builtmeta.read(URL, AITER.read_text())


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
