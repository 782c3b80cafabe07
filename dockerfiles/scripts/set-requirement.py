#!/usr/bin/env python3
"""set-requirement.py FILE OLD NEW -- replace the requirement line OLD of a requirements file
with NEW.

For a source's own requirement that the recipe follows a later upstream recipe in relaxing
(e.g. LMCache's ``numpy<=2.2.6`` as vllm-project/vllm v0.33.0's docker/Dockerfile.rocm_72
rewrites it to ``numpy<=2.3.5``).  OLD must be exactly one line of FILE (as upstream checks with
``grep -Fxc ... -eq 1``): the upstream file changed otherwise and the recipe must be looked at
again.  ``inv lint`` reads these calls (the lock inputs see NEW).
"""

from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: set-requirement.py FILE OLD NEW", file=sys.stderr)
        return 2
    path, old, new = Path(argv[0]), argv[1], argv[2]
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    found = [n for n, line in enumerate(lines) if line.rstrip("\r\n") == old]
    if len(found) != 1:
        print(f"set-requirement: {path} has {len(found)} lines {old!r}, not one", file=sys.stderr)
        return 1
    lines[found[0]] = new + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    print(f">>> {path}: {old} -> {new}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
