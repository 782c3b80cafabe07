"""Compiler-cache hooks.

- ``cache-hooks``: every RUN that compiles (``pip wheel``, ``python -m build``, ``setup.py``,
  ``cmake --build``, ``make -j``, ``ninja``) runs under ``with-compiler-cache.sh`` and mounts a
  cache directory (``--mount=type=cache``);
- ``cache-env``: no ENV sets ``HIP_CLANG_PATH``, ``HIP_CLANG_LAUNCHER`` or a
  ``*_COMPILER_LAUNCHER`` -- those belong to one build step, never to an image.
"""

from __future__ import annotations

import re
from pathlib import Path

from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.dockerfile import Instruction
from rocm_bake_checks.lint.findings import Finding

WRAPPER = "with-compiler-cache.sh"
_COMPILES = re.compile(r"\bpip3?\s+wheel\b|\bpython3?\s+-m\s+build\b|\bsetup\.py\b"
                       r"|\bcmake\s+--build\b|\bmake\s+-j|\bninja\s+-[Cj]")
_STEP_ONLY = re.compile(r"(?:^|\s)(HIP_CLANG_PATH|HIP_CLANG_LAUNCHER|\w*_COMPILER_LAUNCHER)[=\s]")


def _has_cache_mount(instruction: Instruction) -> bool:
    return any("type=cache" in m for m in instruction.flags.get("mount", []))


def check(paths: list[Path], files: Dockerfiles, root: Path) -> list[Finding]:
    found = []
    for name, _, instruction in files.instructions(paths, root):
        if instruction.keyword == "ENV":
            match = _STEP_ONLY.search(" " + instruction.body)
            if match:
                found.append(Finding(name, instruction.line, "cache-env",
                                     f"ENV sets {match.group(1)}: it belongs to one "
                                     f"build step ({WRAPPER}), not to the image"))
        if instruction.keyword != "RUN" or not _COMPILES.search(instruction.body):
            continue
        if WRAPPER not in instruction.body:
            found.append(Finding(name, instruction.line, "cache-hooks",
                                 f"RUN compiles without {WRAPPER}"))
        elif not _has_cache_mount(instruction):
            found.append(Finding(name, instruction.line, "cache-hooks",
                                 "RUN compiles without a --mount=type=cache for the "
                                 "compiler cache"))
    return found
