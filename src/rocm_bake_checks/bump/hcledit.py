"""The one edit ``inv bump`` makes to a bake file: the string literal of a variable's
``default = "..."`` line, nothing else (comments, layout and every other line as they were)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from rocm_bake.core.errors import HCLError

_BLOCK = re.compile(r'^variable\s+"([A-Za-z_][A-Za-z0-9_]*)"\s*\{\s*$')
_DEFAULT = re.compile(r'^(\s*default\s*=\s*)"((?:[^"\\]|\\.)*)"(\s*(?:#.*)?)$')


def quote(value: str) -> str:
    """``value`` as an HCL string literal's contents."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("${", "$${") \
        .replace("%{", "%%{")


def defaults(text: str) -> dict[str, tuple[int, str]]:
    """Each variable whose default is a one-line string literal: (line index, raw literal)."""
    out: dict[str, tuple[int, str]] = {}
    current = ""
    for index, line in enumerate(text.splitlines()):
        block = _BLOCK.match(line)
        if block is not None:
            current = block.group(1)
            continue
        if current and line.startswith("}"):
            current = ""
            continue
        found = _DEFAULT.match(line) if current else None
        if found is not None and current not in out:
            out[current] = (index, found.group(2))
    return out


def rewrite(text: str, values: Mapping[str, str], file: str) -> str:
    """``text`` with each variable of ``values`` defaulting to its new value; a variable
    without a one-line string default is an HCLError naming the file."""
    lines = text.splitlines(keepends=True)
    found = defaults(text)
    for name, value in values.items():
        if name not in found:
            raise HCLError(f"variable {name!r} has no one-line string default to rewrite",
                           file)
        index, _ = found[name]
        line = lines[index]
        ending = line[len(line.rstrip("\r\n")):]
        match = _DEFAULT.match(line.rstrip("\r\n"))
        assert match is not None
        lines[index] = f'{match.group(1)}"{quote(value)}"{match.group(3)}{ending}'
    return "".join(lines)
