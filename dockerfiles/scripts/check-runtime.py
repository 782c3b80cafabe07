#!/usr/bin/env python3
"""check-runtime.py [--path DIR]... [--expect MODULE]... -- the runtime manifest check of an image.

- No file is owned by two installed distributions (each distribution's RECORD, as pip wrote
  it): a second distribution writing the same file (PyPI's cupy-rocm-7-0 over the cell's cupy,
  pytorch-triton-rocm over triton) silently replaced the first.  Only the stray files of
  ``SHARED_STRAYS`` may have several owners: PyPI wheels that ship their test package's
  ``tests/__init__.py`` or a ``LICENSE`` at the top of site-packages by mistake, which no
  import of theirs reads; they are counted in the summary line.
- Every --expect module imports (e.g. amdsmi in the vLLM image: vLLM finds the ROCm platform
  only through it).

Prints one summary line; each problem is one line on stderr and the exit status is 1.  --path
reads distributions from DIR instead of sys.path (tests).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from importlib import metadata
from pathlib import PurePosixPath

# Files at the top of site-packages that unrelated PyPI wheels ship by packaging mistake (an
# empty tests/__init__.py, a LICENSE): a second owner replaces nothing any package imports.
SHARED_STRAYS = frozenset({"tests/__init__.py", "LICENSE"})


def owners(paths: list[str] | None) -> tuple[int, dict[str, list[str]]]:
    found: dict[str, list[str]] = {}
    count = 0
    for dist in metadata.distributions(path=paths) if paths else metadata.distributions():
        name = dist.metadata["Name"] or "?"
        count += 1
        for file in dist.files or []:
            key = str(PurePosixPath(str(file)))
            if key.startswith("..") or "__pycache__" in key:
                continue   # scripts outside site-packages; bytecode is rewritten per install
            found.setdefault(key, []).append(name)
    return count, {f: names for f, names in found.items() if len(set(names)) > 1}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="check-runtime.py")
    parser.add_argument("--path", action="append", default=None)
    parser.add_argument("--expect", nargs="+", default=[])
    args = parser.parse_args(argv)
    count, shared = owners(args.path)
    strays = {f: names for f, names in shared.items() if f in SHARED_STRAYS}
    shared = {f: names for f, names in shared.items() if f not in SHARED_STRAYS}
    problems = [f"check-runtime: {file} is owned by {', '.join(sorted(set(names)))}"
                for file, names in sorted(shared.items())]
    for module in args.expect:
        try:
            importlib.import_module(module)
        except Exception as exc:  # any import failure is the finding
            problems.append(f"check-runtime: expected module {module} does not import: "
                            f"{type(exc).__name__}: {exc}".splitlines()[0])
    for problem in problems:
        print(problem, file=sys.stderr)
    expected = ", ".join(args.expect) or "none"
    allowed = "".join(f"; allowed stray {file} of {', '.join(sorted(set(names)))}"
                      for file, names in sorted(strays.items()))
    print(f"runtime: {count} distributions, {len(shared)} file(s) with two owners{allowed}; "
          f"expected modules ({expected}): {'present' if not problems else 'see above'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
