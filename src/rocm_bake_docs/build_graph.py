"""docs/snippets/build-graph.md: the build graph of rocm-bake.hcl as a Mermaid flowchart
(components, the ``target:`` contexts between them, which arches build each) plus the cell
table. Included by the Architecture page."""

from __future__ import annotations

from collections.abc import Sequence

from rocm_bake.model.graph import Cell
from rocm_bake_docs import markdown as md
from rocm_bake_docs import model
from rocm_bake_docs.source import Source

PATH = "snippets/build-graph.md"
EMPTY = "empty"


def _component_of(cells: Sequence[Cell]) -> dict[str, str]:
    return {c.target: c.component for c in cells if c.target}


def _reaches(links: dict[str, tuple[str, ...]], start: str, goal: str) -> bool:
    """Whether ``goal`` is among the (transitive) dependencies of ``start``."""
    seen, todo = set(), list(links.get(start, ()))
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            todo.extend(links.get(node, ()))
    return False


def direct_links(cells: Sequence[Cell]) -> list[tuple[str, str]]:
    """(dependency, cell) target pairs not implied by a longer path: the transitive reduction
    of the ``target:`` graph (a stage still mounts everything it lists; ``inv targets``)."""
    links = {c.target: c.depends for c in cells if c.target}
    out = []
    for target, depends in links.items():
        for dep in depends:
            if not any(_reaches(links, other, dep) for other in depends if other != dep):
                out.append((dep, target))
    return out


def edges(cells: Sequence[Cell]) -> dict[tuple[str, str], list[str]]:
    """(from component, to component) -> the arches whose cells have that direct link."""
    owner = _component_of(cells)
    arch_of = {c.target: c.arch for c in cells if c.target}
    out: dict[tuple[str, str], list[str]] = {}
    for dep, target in direct_links(cells):
        key = (owner.get(dep, dep), owner[target])
        out.setdefault(key, [])
        if arch_of[target] not in out[key]:
            out[key].append(arch_of[target])
    return out


def _node(component: str, cells: Sequence[Cell], archs: Sequence[str]) -> str:
    if component == EMPTY:
        return f'    {EMPTY}[/"empty (stand-in for a skipped component)"/]'
    built = [c.arch for c in cells if c.component == component and c.target]
    skipped = [a for a in archs if a not in built]
    bare = [c.arch for c in cells if c.component == component and c.without_kernels]
    label = "<br/>".join([component,
                          *([f"without kernels on {', '.join(bare)}"] if bare else []),
                          *([f"skipped on {', '.join(skipped)}"] if skipped else [])])
    return f'    {component}["{label}"]'


def mermaid(cells: Sequence[Cell], archs: Sequence[str]) -> str:
    components = list(dict.fromkeys(c.component for c in cells))
    links = edges(cells)
    if any(src == EMPTY for src, _ in links):
        components.append(EMPTY)
    lines = ["flowchart LR", *(_node(c, cells, archs) for c in components)]
    for (src, dst), on in links.items():
        arrow = "-.->" if src == EMPTY else "-->"
        label = "" if sorted(on) == sorted(archs) else f"|{', '.join(on)}|"
        lines.append(f"    {src} {arrow}{label} {dst}")
    lines.append(f"    class {EMPTY} stand_in" if EMPTY in components else "")
    lines.append("    classDef stand_in stroke-dasharray: 4 4")
    return "\n".join(line for line in lines if line)


def _cell_table(cells: Sequence[Cell], archs: Sequence[str]) -> str:
    rows = []
    for component in dict.fromkeys(c.component for c in cells):
        by_arch = {c.arch: c for c in cells if c.component == component}
        rows.append([component, *((md.code(by_arch[a].target or "")
                                   + (" (without kernels)" if by_arch[a].without_kernels else ""))
                                  if by_arch[a].target
                                  else f"skipped: {md.cell(by_arch[a].skipped or '')}"
                                  for a in archs)])
    return md.table(["component", *archs], rows)


def render(source: Source) -> str:
    archs = model.archs(source)
    cells = model.cells(source)
    return "\n".join([
        md.header("rocm-bake.hcl (ARCHS, SKIP and the targets' `target:` contexts)"),
        f"Arches: {', '.join(archs)} (default: {', '.join(model.default_archs(source))}). "
        "An arrow is a `target:` context (the later stage mounts the earlier one's wheels); "
        "arrows implied by a longer path are left out, though a stage mounts every earlier "
        "wheel it needs (the table and `./inv targets` list them all). A label names the "
        "arches an arrow holds for when not all of them.\n",
        md.fenced(mermaid(cells, archs), "mermaid"),
        _cell_table(cells, archs),
    ])
