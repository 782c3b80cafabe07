#!/usr/bin/env python3
"""write-constraints.py [--wheels LIST] OUT WHEEL_DIR... -- the cell's constraints file, from its
own wheels.

Writes OUT with one ``name==version`` line per ``*.whl`` in the WHEEL_DIRs (the versions the
cell built: torch 2.12.0a0+git..., triton 3.7.1+git..., ...).  Every later ``pip install`` of
the stage runs with ``PIP_CONSTRAINT=OUT`` (an ENV set right after), so a requirements file
can never swap a built wheel for a PyPI one (e.g. the CUDA triton): pip fails instead.

When OUT already exists (a stage built FROM another cell image), its lines are kept and the
new wheels are added; one distribution with two versions is an error.  Written atomically.

With ``--wheels LIST``, also writes LIST: one ``name @ file:///...whl --hash=sha256:...`` line
per wheel of the WHEEL_DIRs given, for ``pip install --require-hashes -r LIST -r <the
component's lock>`` in the same RUN: pip then installs exactly these files, checked by sha256,
and everything else from the lock (dockerfiles/locks/, `inv lock`).
"""

from __future__ import annotations

import hashlib
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


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write(out: Path, text: str) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=".constraints-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, out)


def main(argv: list[str]) -> int:
    wheel_list = None
    if argv[:1] == ["--wheels"] and len(argv) > 1:
        wheel_list, argv = Path(argv[1]), argv[2:]
    if len(argv) < 2:
        print("usage: write-constraints.py [--wheels LIST] OUT WHEEL_DIR...", file=sys.stderr)
        return 2
    out = Path(argv[0])
    pins = read(out)
    listed = []
    for directory in argv[1:]:
        for wheel in sorted(Path(directory).glob("*.whl")):
            name, version = wheel_pin(wheel)
            if pins.get(name, version) != version:
                print(f"write-constraints: {name} is both {pins[name]} and {version}",
                      file=sys.stderr)
                return 1
            pins[name] = version
            listed.append(f"{name} @ {wheel.resolve().as_uri()} --hash=sha256:{sha256(wheel)}\n")
    text = "".join(f"{name}=={pins[name]}\n" for name in sorted(pins))
    write(out, text)
    print(text, end="")
    if wheel_list is not None:
        write(wheel_list, "".join(listed))
        print("".join(listed), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
