"""Shell commands quoted by the docs: pulled out of Markdown, split as a shell would."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

_BLOCK = re.compile(r"^```(?:sh|bash|shell)\n(.*?)^```", re.M | re.S)
# A backslash-escaped backtick (\`) is text, not a code span (as Markdown reads it).
_INLINE = re.compile(r"(?<!\\)`((?:[A-Z_]+=\S+ )*(?:\./)?(?:inv|nox) [^`]*)(?<!\\)`")
_ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=")
_SUBSHELL = re.compile(r"\$\(([^)]*)\)")


@dataclass(frozen=True)
class Command:
    """One command line: where it is written, its environment assignments and argv."""

    where: str
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    runnable: bool = True  # from a code block (to run), or prose (to check only)

    @property
    def line(self) -> str:
        return shlex.join([*(f"{k}={v}" for k, v in self.env.items()), *self.argv])


def split(line: str, where: str, runnable: bool) -> Command | None:
    """A command line as argv; ``eval "$(...)"`` and ``sudo`` are unwrapped."""
    words = shlex.split(line, comments=True)
    if words[:1] == ["eval"] and len(words) == 2 and _SUBSHELL.search(words[1]):
        words = shlex.split(_SUBSHELL.search(words[1]).group(1))  # type: ignore[union-attr]
    if words[:1] == ["sudo"]:
        words = words[1:]
    env = {}
    while words and _ASSIGNMENT.match(words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    return Command(where, words, env, runnable) if words else None


def from_markdown(path: Path, root: Path) -> list[Command]:
    """Every command of a page: code-block lines (runnable) and inline ``inv``/``nox`` code."""
    text = path.read_text(encoding="utf-8")
    where = str(path.relative_to(root))
    out = []
    for block in _BLOCK.finditer(text):
        for line in block.group(1).splitlines():
            if line.strip() and (command := split(line, where, runnable=True)):
                out.append(command)
    for span in _INLINE.finditer(text):
        if command := split(span.group(1), where, runnable=False):
            out.append(command)
    return out
