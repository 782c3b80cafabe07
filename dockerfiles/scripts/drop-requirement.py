#!/usr/bin/env python3
"""drop-requirement.py FILE NAME... -- remove the requirements on NAMEs from a requirements file.

The generalisation of vLLM's ``use_existing_torch.py``: a source's own requirements file names a
distribution the cell already built under another name (LMCache's ``rocm_core.txt`` asks for
``cupy-rocm-7-0``, which writes the same ``site-packages/cupy/`` as the cell's ``cupy``), so
the line goes before the wheel is built.  A NAME the file does not require is an error: the
upstream file changed and the recipe must be looked at again.  ``inv lint``'s conformance
rules read these calls.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(line: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", line.split("#", 1)[0])
    return canonical(match.group(1)) if match else ""


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: drop-requirement.py FILE NAME...", file=sys.stderr)
        return 2
    path = Path(argv[0])
    names = {canonical(n) for n in argv[1:]}
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if requirement_name(line) not in names]
    dropped = {requirement_name(line) for line in lines} & names
    if dropped != names:
        print(f"drop-requirement: {path} does not require {', '.join(sorted(names - dropped))}",
              file=sys.stderr)
        return 1
    path.write_text("".join(kept), encoding="utf-8")
    for name in sorted(dropped):
        print(f">>> removed {name} from {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
