"""The library returns, the tasks print: no module of ``rocm_bake`` prints a report line itself.
A build's ``cache:``, ``arch:`` and ``provenance:`` lines go to the ``report`` callback the task
gives (``rocm_bake.builds.request.run``), a fleet run's exit status is the library's
(``rocm_bake.fleetbuild.request.conclude``). Two writers are deliberate: the note that the
project's engine is being started (``docker/preflight.py``, before a task has output of its
own), and buildx's progress passed through as it streams (``builds/request.py``); the fleet's
live table writes to the stream it is given."""

from __future__ import annotations

import ast

from tests.conftest import ROOT

LIBRARY = ROOT / "src" / "rocm_bake"
ALLOWED = {"docker/preflight.py": 1, "builds/request.py": 1, "fleetbuild/progress.py": 1}


def _writes(tree: ast.AST) -> int:
    count = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        printed = isinstance(func, ast.Name) and func.id == "print"
        written = (isinstance(func, ast.Attribute) and func.attr == "write"
                   and isinstance(func.value, ast.Attribute)
                   and func.value.attr in ("stdout", "stderr"))
        count += printed or written
    return count


def test_the_library_prints_only_where_it_must() -> None:
    found = {}
    for path in sorted(LIBRARY.rglob("*.py")):
        writes = _writes(ast.parse(path.read_text(encoding="utf-8")))
        if writes:
            found[path.relative_to(LIBRARY).as_posix()] = writes
    assert found == ALLOWED
