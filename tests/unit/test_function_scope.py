"""The bake model's function library, fenced: which of buildx's functions this repository's bake
files call, and which the library keeps for buildx parity only (``registry.PARITY_ONLY``,
``rocm_bake.model.hcl.functions``' docstring). Recomputed here from the bake files themselves
(every function call of their parsed trees), so neither the mark nor the counts can drift."""

from __future__ import annotations

import re
from pathlib import Path

from rocm_bake.model.hcl import functions, syntax
from rocm_bake.model.hcl.functions import FUNCTIONS, PARITY_ONLY
from rocm_bake.model.hcl.tree import Rule
from tests.conftest import ROOT


def bake_files() -> list[Path]:
    """rocm-bake.hcl and every bake file of the tests."""
    return [ROOT / "rocm-bake.hcl", *sorted((ROOT / "tests").rglob("*.hcl"))]


def calls(rule: Rule) -> set[str]:
    """The name of every function a parsed HCL tree calls (type expressions' ``list(...)``
    included: only the library's own names are counted)."""
    found = set()
    stack = [rule]
    while stack:
        node = stack.pop()
        if node.kind == "FunctionCallRule":
            found.add("::".join(str(i.token.value) for i in node.identifiers))
        stack.extend(node.children)
    return found


def used_here() -> set[str]:
    out: set[str] = set()
    for path in bake_files():
        out |= calls(syntax.parse(path.read_text(encoding="utf-8"), str(path)))
    return out & set(FUNCTIONS)


def test_the_bake_files_are_found() -> None:
    names = {p.name for p in bake_files()}
    assert {"rocm-bake.hcl", "docker-bake.hcl"} <= names


def test_parity_only_is_every_function_no_bake_file_here_calls() -> None:
    used = used_here()
    assert used, "no function call found in the bake files: the walk is broken"
    unknown = PARITY_ONLY - set(FUNCTIONS)
    assert not unknown, f"PARITY_ONLY names no function of the table: {sorted(unknown)}"
    called = PARITY_ONLY & used
    assert not called, (f"a bake file here calls {sorted(called)}: remove them from "
                        "registry.PARITY_ONLY (and update the counts in functions/__init__.py)")
    unmarked = set(FUNCTIONS) - used - PARITY_ONLY
    assert not unmarked, (f"no bake file here calls {sorted(unmarked)}: add them to "
                          "registry.PARITY_ONLY (and update the counts in functions/__init__.py)")


def test_the_docstring_counts_are_the_bake_files() -> None:
    text = " ".join((functions.__doc__ or "").split())
    said = re.search(r"call (\d+) of its (\d+) functions\. The other (\d+) are parity-only",
                     text)
    assert said, "functions/__init__.py no longer states the counts"
    used = len(used_here())
    assert tuple(int(n) for n in said.groups()) == (used, len(FUNCTIONS), len(FUNCTIONS) - used)


def test_the_walk_finds_calls_inside_nested_expressions() -> None:
    tree = syntax.parse('x = join(",", [for v in split(" ", "a b") : upper(v)])\n', "t.hcl")
    assert {"join", "split", "upper"} <= calls(tree)
