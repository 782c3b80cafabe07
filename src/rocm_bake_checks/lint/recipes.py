"""What the real ROCm recipes must do, learnt from upstream's own builds (issue 14):

- ``python-path``: no ``python -c "import ..."`` inside a source tree (a WORKDIR under /src/)
  without ``-P``: ``-c`` puts the working directory first on sys.path, so the source tree's
  package shadows the installed wheel (torch/__init__.py: "...loaded the torch/_C folder of
  the PyTorch repository...").
- ``setup-metadata``: a build with ``PREBUILD_KERNELS`` runs ``setup.py bdist_wheel``, not
  ``pip wheel``/``pip install .``: pip's metadata-only step runs AITER's setup.py without its
  sys.path insert, and its PREBUILD_KERNELS block fails on ``import jit`` (vLLM's
  docker/Dockerfile.rocm_base and aiter's release workflow use bdist_wheel).
- ``triton-kernels``: vLLM's ROCm build (``VLLM_TARGET_DEVICE=rocm``) has
  ``TRITON_KERNELS_SRC_DIR`` set; unset, its CMake fetches upstream triton_kernels by git tag
  with no hash (vLLM's docker/Dockerfile.rocm sets it from a pinned ROCm/triton commit).
- ``runtime-modules``: a runtime image's install step (the RUN that writes its versions
  manifest) runs the runtime manifest check ``check-runtime.py --expect`` with every module
  the image must carry (``EXPECTED_MODULES``: amdsmi for vLLM, which finds the ROCm platform
  only through it); the check also fails on any file two installed distributions own.
- ``pip-constraints``: a stage that installs the cell's own wheels writes the cell's
  constraints file (``write-constraints.py``) in that RUN, and every later pip of the stage
  runs under ``PIP_CONSTRAINT`` (set by ENV), so no requirements file swaps a built wheel.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

from rocm_bake_checks.lint.bakemodel import relative
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.dockerfile import Dockerfile, Instruction, Stage
from rocm_bake_checks.lint.findings import Finding

# Modules each runtime image must import in its smoke test (Dockerfile name -> modules).
EXPECTED_MODULES: dict[str, tuple[str, ...]] = {
    "vllm.Dockerfile": ("torch", "vllm", "amdsmi"),
    "lmcache.Dockerfile": ("lmcache", "vllm", "cupy", "amdsmi"),
}
_PYTHON_C = re.compile(r"\bpython3?((?:\s+-[A-Za-z]+)*)\s+-c\s+([\"'])(.*?)\2", re.S)
_IMPORT = re.compile(r"\bimport\s+([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)")
_CHECK_RUNTIME = re.compile(r"check-runtime\.py[^&|;]*?--expect((?:\s+[A-Za-z_][\w.]*)+)")
_PIP = re.compile(r"\bpip3?\s+(?:install|wheel)\b")
# The cell's own wheels installed: named on pip's command line, or listed by sha256 for it.
_PIP_LOCAL_WHEELS = re.compile(r"\bpip3?\s+install\b[^&|;]*(?:/deps/|/wheels/)"
                               r"|write-constraints\.py\s+--wheels\b")
_BUILDS = re.compile(r"\bpip3?\s+wheel\b|\bpip3?\s+install\s+(?:[^&|;]*\s)?\.(?:\s|$)")


def check(paths: list[Path], files: Dockerfiles, root: Path) -> list[Finding]:
    found: list[Finding] = []
    for path in paths:
        name = relative(path, root)
        parsed = files.get(path)
        for stage in parsed.stages:
            found += _python_path(stage, name)
            found += _setup_metadata(stage, name)
            found += _triton_kernels(stage, name, _parents(parsed, stage))
            found += _constraints(stage, name)
            found += _runtime_modules(stage, name, path.name)
    return found


def _runs(stage: Stage) -> Iterator[Instruction]:
    return (i for i in stage.instructions if i.keyword == "RUN")


def _python_path(stage: Stage, name: str) -> Iterator[Finding]:
    workdir = "/"
    for instruction in stage.instructions:
        if instruction.keyword == "WORKDIR":
            workdir = instruction.body.strip()
        if instruction.keyword != "RUN" or not workdir.startswith("/src/"):
            continue
        for match in _PYTHON_C.finditer(instruction.body):
            if "P" in match.group(1).replace("-", "") or not _imports(match.group(3)):
                continue
            yield Finding(name, instruction.line, "python-path",
                          f"`python -c` imports from inside the source tree {workdir}: the "
                          "working directory comes first on sys.path and shadows the installed "
                          "wheel; use `python -P -c`")


def _imports(code: str) -> set[str]:
    """Top-level modules a piece of Python imports, the standard library left out."""
    names = {n.strip().split(".")[0] for found in _IMPORT.findall(code) for n in found.split(",")}
    return names - set(sys.stdlib_module_names)


def _setup_metadata(stage: Stage, name: str) -> Iterator[Finding]:
    for instruction in _runs(stage):
        if "PREBUILD_KERNELS=" in instruction.body and _BUILDS.search(instruction.body):
            yield Finding(name, instruction.line, "setup-metadata",
                          "PREBUILD_KERNELS build through pip: pip's metadata step runs "
                          "setup.py without AITER's sys.path insert and fails on `import jit`; "
                          "build with `python setup.py bdist_wheel` (vLLM's "
                          "docker/Dockerfile.rocm_base)")


def _parents(parsed: Dockerfile, stage: Stage) -> list[Stage]:
    """The stages of the same file ``stage`` is built FROM, nearest first (their ENV is its)."""
    out: list[Stage] = []
    child, parent = stage, parsed.stage(stage.base.name)
    while parent is not None and parent.index < child.index:
        out.append(parent)
        child, parent = parent, parsed.stage(parent.base.name)
    return out


def _sets_env(stage: Stage, variable: str) -> bool:
    return any(i.keyword == "ENV" and variable in i.body for i in stage.instructions)


def _triton_kernels(stage: Stage, name: str, parents: list[Stage]) -> Iterator[Finding]:
    known = any(_sets_env(parent, "TRITON_KERNELS_SRC_DIR") for parent in parents)
    for instruction in stage.instructions:
        if instruction.keyword == "ENV" and "TRITON_KERNELS_SRC_DIR" in instruction.body:
            known = True
        if (instruction.keyword == "RUN" and "VLLM_TARGET_DEVICE=rocm" in instruction.body
                and not known and "TRITON_KERNELS_SRC_DIR=" not in instruction.body):
            yield Finding(name, instruction.line, "triton-kernels",
                          "vLLM ROCm build without TRITON_KERNELS_SRC_DIR: its CMake fetches "
                          "upstream triton_kernels by git tag with no hash; set it to ROCm's "
                          "copy at a pinned commit (vLLM's docker/Dockerfile.rocm)")


def _constraints(stage: Stage, name: str) -> Iterator[Finding]:
    installed = constrained = False
    for instruction in stage.instructions:
        if instruction.keyword == "ENV" and "PIP_CONSTRAINT=" in instruction.body:
            constrained = True
        if instruction.keyword != "RUN" or not _PIP.search(instruction.body):
            continue
        body = instruction.body
        if installed and not constrained and "PIP_CONSTRAINT=" not in body:
            yield Finding(name, instruction.line, "pip-constraints",
                          "pip runs after the cell's own wheels were installed but without "
                          "the cell's constraints file: set ENV PIP_CONSTRAINT after "
                          "write-constraints.py")
        if _PIP_LOCAL_WHEELS.search(body):
            installed = True
            if "write-constraints.py" not in body:
                yield Finding(name, instruction.line, "pip-constraints",
                              "installs the cell's own wheels without writing the cell's "
                              "constraints file (write-constraints.py)")


def _runtime_modules(stage: Stage, name: str, filename: str) -> Iterator[Finding]:
    expected = EXPECTED_MODULES.get(filename)
    if not expected:
        return
    manifest = [i for i in _runs(stage) if "write-manifest.py" in i.body]
    if not manifest:
        return
    checked: set[str] = set()
    for instruction in manifest:
        for match in _CHECK_RUNTIME.finditer(instruction.body):
            checked.update(match.group(1).split())
    missing = [m for m in expected if m not in checked]
    if missing:
        yield Finding(name, manifest[0].line, "runtime-modules",
                      f"the runtime image's install step does not check {', '.join(missing)} "
                      f"with check-runtime.py --expect (expected: {', '.join(expected)})")
