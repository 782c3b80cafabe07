"""One lint finding: where, which rule, what is wrong -- printed as ``file:line: rule: message``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rocm_bake.core.errors import RocmBakeError


class LintError(RocmBakeError):
    """The lint could not run (a bake file that does not evaluate, hadolint missing, ...)."""


@dataclass(frozen=True, order=True)
class Finding:
    file: str
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.rule}: {self.message}"


def merge_cells(findings: Iterable[tuple[Finding, str]]) -> list[Finding]:
    """Findings that differ only in the build cell they were seen in become one finding that
    names the cells (``torch-gfx950, torch-gfx1201: ...``)."""
    cells: dict[Finding, list[str]] = {}
    for finding, cell in findings:
        names = cells.setdefault(finding, [])
        if cell not in names:
            names.append(cell)
    return [Finding(f.file, f.line, f.rule, f"{', '.join(names)}: {f.message}")
            for f, names in cells.items()]
