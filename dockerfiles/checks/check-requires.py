#!/usr/bin/env python3
"""check-requires.py WHEEL DIR... -- the built WHEEL requires exactly the wheels in the DIRs.

(In dockerfiles/checks/, copied by the one stage that runs it -- vllm.Dockerfile's build --
rather than with dockerfiles/scripts/ into every base image.)

For every ``*.whl`` in the DIRs (the cell's own torch, triton, amdsmi, ... wheels), WHEEL's
``Requires-Dist`` must name that distribution at exactly that version (``name==version``):
what upstream's pin_rocm_dependencies.py writes into vLLM's requirements before the vLLM wheel
is built, so that ``pip install vllm-*.whl`` alone installs the companion wheels it was built
with.  Each missing or different requirement is one line on stderr, and the exit status is 1;
a WHEEL that is not exactly one file is exit status 2.
"""

from __future__ import annotations

import re
import sys
import zipfile
from email.parser import HeaderParser
from pathlib import Path

from packaging.version import InvalidVersion, Version


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_pin(path: Path) -> tuple[str, str]:
    parts = path.name[: -len(".whl")].split("-")
    if len(parts) < 5:
        raise SystemExit(f"check-requires: {path.name} is not a wheel file name")
    return canonical(parts[0]), parts[1]


def requires(wheel: Path) -> dict[str, list[str]]:
    """Distribution -> the specifiers of each of its unconditional Requires-Dist lines."""
    with zipfile.ZipFile(wheel) as archive:
        name = next((n for n in archive.namelist()
                     if n.count("/") == 1 and n.endswith(".dist-info/METADATA")), None)
        if name is None:
            raise SystemExit(f"check-requires: {wheel.name} has no .dist-info/METADATA")
        text = archive.read(name).decode("utf-8")
    out: dict[str, list[str]] = {}
    for line in HeaderParser().parsestr(text).get_all("Requires-Dist") or []:
        requirement, _, marker = line.partition(";")
        if "extra ==" in marker:
            continue
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(.*)$",
                         requirement)
        if match:
            out.setdefault(canonical(match.group(1)), []).append(
                match.group(2).strip().strip("()").replace(" ", ""))
    return out


def _same(specifier: str, version: str) -> bool:
    """``specifier`` is exactly ``==version`` (compared as PEP 440 versions; packaging is in
    every image here, from the base lock)."""
    if not specifier.startswith("==") or "," in specifier:
        return False
    try:
        return Version(specifier[2:]) == Version(version)
    except InvalidVersion:
        return specifier[2:] == version


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: check-requires.py WHEEL DIR...", file=sys.stderr)
        return 2
    wheel = Path(argv[0])
    if not wheel.is_file():
        print(f"check-requires: no wheel {wheel}", file=sys.stderr)
        return 2
    have = requires(wheel)
    problems = []
    expected = sorted(wheel_pin(w) for d in argv[1:] for w in Path(d).glob("*.whl"))
    for name, version in expected:
        specifiers = have.get(name)
        if specifiers is None:
            problems.append(f"{wheel.name} does not require {name} (the cell built "
                            f"{name} {version})")
        elif not any(_same(s, version) for s in specifiers):
            problems.append(f"{wheel.name} requires {name}{','.join(specifiers)}, not "
                            f"{name}=={version} (the cell's wheel)")
    for problem in problems:
        print(f"check-requires: {problem}", file=sys.stderr)
    if not problems:
        print(f"check-requires: {wheel.name} requires "
              f"{', '.join(f'{n}=={v}' for n, v in expected)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
