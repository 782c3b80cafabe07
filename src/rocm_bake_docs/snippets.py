"""Generated regions inside hand-written files (README.md, docs/index.md, the manual pages that
list the components): the component lists
and the component x arch table, read from the bake file's component table, so a new
component appears in them by ``./inv docs`` and ``./inv docs --check`` fails until then.

A region is written between two markers; everything outside them stays as written::

    <!-- generated: components -->`base`, `torch`, ...<!-- /generated: components -->
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.model import bakefile, components, graph
from rocm_bake_docs.source import Source

# Files with generated regions, relative to docs/ (as pages.Page paths are).
FILES = ("../README.md", "index.md", "manual/recipes.md", "manual/tests.md")
_REGION = re.compile(r"(<!-- generated: ([a-z0-9-]+) -->)(.*?)(<!-- /generated: \2 -->)",
                     re.DOTALL)


def _names(source: Source) -> list[str]:
    return components.names(bakefile.load([source.bake_path], {}))


def _cells(source: Source) -> list[graph.Cell]:
    return graph.cells([str(source.bake_path)], env={})


def _code(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def component_list(source: Source) -> str:
    """Every component, in the bake file's order."""
    return _code(_names(source))


def skipped_on(arch: str) -> Callable[[Source], str]:
    def render(source: Source) -> str:
        return _code([c.component for c in _cells(source) if c.arch == arch and not c.target])
    return render


def arch_table(source: Source) -> str:
    """Component x arch: built, built without GPU kernels of its own (TRITON_ONLY) or skipped,
    components with the same row on one line."""
    cells = _cells(source)
    archs = list(dict.fromkeys(c.arch for c in cells))
    rows: dict[tuple[str, ...], list[str]] = {}
    for name in dict.fromkeys(c.component for c in cells):
        row = tuple(("built without kernels" if c.without_kernels else "built")
                    if c.target else "skipped" for a in archs for c in cells
                    if c.component == name and c.arch == a)
        rows.setdefault(row, []).append(name)
    lines = [f"| component | {' | '.join(archs)} |", "|---" * (len(archs) + 1) + "|"]
    lines += [f"| {', '.join(names)} | {' | '.join(row)} |" for row, names in rows.items()]
    return "\n" + "\n".join(lines) + "\n"


SNIPPETS: dict[str, Callable[[Source], str]] = {
    "components": component_list,
    "gfx1250-skipped": skipped_on("gfx1250"),
    "arch-table": arch_table,
}


def fill(text: str, source: Source, where: str) -> str:
    """``text`` with every generated region rendered afresh."""
    def region(match: re.Match[str]) -> str:
        render = SNIPPETS.get(match.group(2))
        if render is None:
            raise RocmBakeError(f"{where}: unknown generated region {match.group(2)!r} "
                                f"(known: {', '.join(SNIPPETS)})")
        return f"{match.group(1)}{render(source)}{match.group(4)}"
    return _REGION.sub(region, text)


def renderer(path: str) -> Callable[[Source], str]:
    """A pages.Page renderer: the committed file with its regions filled."""
    def render(source: Source) -> str:
        return fill((source.docs / path).read_text(encoding="utf-8"), source, path)
    return render
