"""The layers of the code (ARCHITECTURE.md), read from the imports themselves (ast): no import
cycle between packages, and no import from a lower layer to a higher one.

A *unit* is a package of ``rocm_bake`` / ``rocm_bake_checks`` (``rocm_bake.model``,
``rocm_bake.docker``, ``rocm_bake_checks.drift``), the docs tooling ``rocm_bake_docs``, or
``tasks``; the modules of one package may import one another. Every import counts, also one
inside a function. A new module
goes into the package of its concern; a new package gets its layer in LAYERS below: the
lowest one whose units it needs, never lower.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT

OURS = ("rocm_bake", "rocm_bake_checks", "rocm_bake_docs", "tasks")

# Bottom to top; a unit may import its own layer and those below.
LAYERS: list[tuple[str, set[str]]] = [
    ("foundation", {"rocm_bake", "rocm_bake.core", "rocm_bake.net"}),
    ("bake model", {"rocm_bake.model"}),
    ("tools", {"rocm_bake.docker", "rocm_bake.oci", "rocm_bake.compilercache",
               "rocm_bake.archaudit"}),
    ("builds", {"rocm_bake.builds"}),
    ("perf, reproducible", {"rocm_bake.perf", "rocm_bake.reproducible"}),
    ("fleet builds", {"rocm_bake.fleetbuild"}),
    ("reports", {"rocm_bake.reports"}),
    ("checks", {"rocm_bake_checks", "rocm_bake_checks.bump", "rocm_bake_checks.drift",
                "rocm_bake_checks.rehearse",
                "rocm_bake_checks.lint"}),
    ("docs tooling", {"rocm_bake_docs"}),
    ("tasks", {"tasks"}),
]
LAYER = {unit: index for index, (_, units) in enumerate(LAYERS) for unit in units}
NAME = [name for name, _ in LAYERS]

# Tools of the tooling layers: the runtime library and the checks never import them.
TOOLING = ("invoke", "nox", "mkdocs", "material", "selenium", "rocm_bake_docs", "tasks")
RUNTIME = ("rocm_bake", "rocm_bake_checks")


def _files() -> list[Path]:
    return sorted([*(ROOT / "src").rglob("*.py"), *(ROOT / "tasks").rglob("*.py")])


def module_name(path: Path) -> str:
    base = ROOT / "src" if path.is_relative_to(ROOT / "src") else ROOT
    parts = list(path.relative_to(base).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in _files()}


def unit(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] in RUNTIME and len(parts) > 1 else parts[0]


def imports(path: Path) -> Iterator[tuple[int, str]]:
    """(line, imported module) for every import of a file, relative ones resolved."""
    me = module_name(path)
    package = me.split(".") if path.name == "__init__.py" else me.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package[:len(package) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            for alias in node.names:        # `from rocm_bake.builds import request` imports it
                sub = f"{base}.{alias.name}"
                yield node.lineno, sub if sub in MODULES else base


def edges() -> dict[tuple[str, str], str]:
    """(importing unit, imported unit) -> where, for every import between two of our units."""
    out: dict[tuple[str, str], str] = {}
    for module, path in MODULES.items():
        for line, target in imports(path):
            if target.split(".")[0] not in OURS:
                continue
            a, b = unit(module), unit(target)
            if a != b:
                out.setdefault((a, b), f"{path.relative_to(ROOT)}:{line} imports {target}")
    return out


def test_every_unit_has_a_layer() -> None:
    missing = sorted({unit(m) for m in MODULES} - LAYER.keys())
    assert not missing, (f"no layer for {', '.join(missing)}: add each to LAYERS in "
                         "tests/unit/test_layers.py (and ARCHITECTURE.md)")


def test_no_import_from_a_lower_layer_to_a_higher_one() -> None:
    upward = [f"{where} ({NAME[LAYER[a]]} -> {NAME[LAYER[b]]})"
              for (a, b), where in sorted(edges().items())
              if a in LAYER and b in LAYER and LAYER[b] > LAYER[a]]
    assert not upward, "imports pointing upward:\n" + "\n".join(upward)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one unit (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def test_no_import_cycle_between_packages() -> None:
    graph: dict[str, set[str]] = {}
    found = edges()
    for a, b in found:
        graph.setdefault(a, set()).add(b)
    loops = cycles(graph)
    detail = [" <-> ".join(loop) + ": " + "; ".join(
        where for (a, b), where in sorted(found.items()) if a in loop and b in loop)
        for loop in loops]
    assert not loops, "import cycles:\n" + "\n".join(detail)


def test_the_runtime_library_and_the_checks_import_no_tooling() -> None:
    bad = [f"{path.relative_to(ROOT)}:{line} imports {target}"
           for module, path in MODULES.items() if module.split(".")[0] in RUNTIME
           for line, target in imports(path) if target.split(".")[0] in TOOLING]
    assert not bad, "tooling imported by the runtime library or the checks:\n" + "\n".join(bad)


@pytest.mark.parametrize(("graph", "expected"), [
    ({"a": {"b"}, "b": {"c"}}, []),
    ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
])
def test_the_cycle_finder_finds_cycles(graph: dict[str, set[str]],
                                       expected: list[list[str]]) -> None:
    assert cycles(graph) == expected


def test_the_walk_sees_relative_imports_and_imports_inside_functions() -> None:
    found = dict(edges())
    assert ("tasks", "rocm_bake_docs") in found          # inside the docs task's function
    assert ("rocm_bake.builds", "rocm_bake.model") in found
