#!/usr/bin/env python3
"""write-constraints.py OUT WHEEL_DIR... -- the cell's constraints file, from its own wheels.

Writes OUT with one ``name==version`` line per ``*.whl`` in the WHEEL_DIRs (the versions the
cell built: torch 2.12.0a0+git..., triton 3.7.1+git..., ...).  Every later ``pip install`` of
the stage runs with ``PIP_CONSTRAINT=OUT`` (an ENV set right after), so a requirements file
can never swap a built wheel for a PyPI one (e.g. the CUDA triton): pip fails instead.

When OUT already exists (a stage built FROM another cell image), its lines are kept and the
new wheels are added; one distribution with two versions is an error.  Written atomically.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_pin(path: Path) -> tuple[str, str]:
    parts = path.name[: -len(".whl")].split("-")
    if len(parts) < 5:
        raise SystemExit(f"write-constraints: {path.name} is not a wheel file name")
    return canonical(parts[0]), parts[1]


def read(out: Path) -> dict[str, str]:
    pins: dict[str, str] = {}
    if out.exists():
        for line in out.read_text(encoding="utf-8").splitlines():
            name, sep, version = line.strip().partition("==")
            if sep:
                pins[canonical(name)] = version
    return pins


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: write-constraints.py OUT WHEEL_DIR...", file=sys.stderr)
        return 2
    out = Path(argv[0])
    pins = read(out)
    for directory in argv[1:]:
        for wheel in sorted(Path(directory).glob("*.whl")):
            name, version = wheel_pin(wheel)
            if pins.get(name, version) != version:
                print(f"write-constraints: {name} is both {pins[name]} and {version}",
                      file=sys.stderr)
                return 1
            pins[name] = version
    out.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(f"{name}=={pins[name]}\n" for name in sorted(pins))
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=".constraints-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, out)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
