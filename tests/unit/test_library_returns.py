"""The library returns, the tasks print: no module of ``rocm_bake``, ``rocm_bake_checks`` or
``rocm_bake_docs`` prints a report line itself, writes stdout or stderr, or redirects them.

A build's ``cache:``, ``arch:`` and ``provenance:`` lines go to the ``report`` callback the task
gives (``rocm_bake.builds.request.run``), a fleet run's exit status is the library's
(``rocm_bake.fleetbuild.request.conclude``). Two writers of the library are deliberate: the note
that the project's engine is being started (``docker/preflight.py``, before a task has output of
its own), and buildx's progress passed through as it streams (``builds/request.py``); the
fleet's live table writes to the stream it is given.

The checks write nothing: ``inv version-check``, ``inv lint`` and ``inv bump`` get reports
back (``drift.run.check``, ``lint.run``, ``bump.run.run``) and the renderers' text
(``drift.run.render_report``, ``lint.locks.newer.render_report``); the task prints it, appends it
to the step summary, keeps its exit status when the reader left (tasks/versions.py,
tasks/_cli.py). A check's warnings and progress line go to the callbacks the task gives.
``rehearse/standin/`` is not the project's Python: it runs inside the rehearsed images, and
what it prints is the stand-in build's own log."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import ROOT

SRC = ROOT / "src"
ALLOWED = {"rocm_bake": {"docker/preflight.py": 1, "builds/request.py": 1,
                         "fleetbuild/progress.py": 1},
           "rocm_bake_checks": {},
           "rocm_bake_docs": {}}
NOT_OURS = ("rocm_bake_checks/rehearse/standin/",)
STREAM_WRITES = ("write", "writelines", "flush")   # sys.stdout.<one of them>(...)
REDIRECTS = ("redirect_stdout", "redirect_stderr")


def _stream(node: ast.expr) -> bool:
    """``sys.stdout`` / ``sys.stderr`` (also ``sys.__stdout__``)."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
        and node.value.id == "sys" and node.attr.strip("_") in ("stdout", "stderr")


def _dup2_onto_stream(node: ast.Call) -> bool:
    """``os.dup2(fd, sys.stdout.fileno())``: a standard stream replaced (``/dev/null`` after a
    reader left)."""
    func, args = node.func, node.args
    return isinstance(func, ast.Attribute) and func.attr == "dup2" and len(args) == 2 \
        and isinstance(args[1], ast.Call) and isinstance(args[1].func, ast.Attribute) \
        and args[1].func.attr == "fileno" and _stream(args[1].func.value)


def _writes(tree: ast.AST) -> int:
    """print(...), a write to a standard stream (``<any>.stdout.write``, as the library's own
    test always counted), a dup2 onto one, a redirect of one."""
    count = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        printed = isinstance(func, ast.Name) and func.id == "print"
        written = (isinstance(func, ast.Attribute) and func.attr in STREAM_WRITES
                   and (_stream(func.value) or (func.attr == "write"
                                                and isinstance(func.value, ast.Attribute)
                                                and func.value.attr in ("stdout", "stderr"))))
        redirected = (isinstance(func, ast.Attribute) and func.attr in REDIRECTS) or \
            (isinstance(func, ast.Name) and func.id in REDIRECTS)
        count += printed or written or redirected or _dup2_onto_stream(node)
    return count


def found(package: Path) -> dict[str, int]:
    """Each module of ``package`` that writes a standard stream, with how many times."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        if any(path.relative_to(SRC).as_posix().startswith(p) for p in NOT_OURS):
            continue
        writes = _writes(ast.parse(path.read_text(encoding="utf-8")))
        if writes:
            out[path.relative_to(package).as_posix()] = writes
    return out


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_the_library_prints_only_where_it_must(package: str) -> None:
    assert found(SRC / package) == ALLOWED[package]


@pytest.mark.parametrize(("source", "writes"), [
    ("print('x')", 1),
    ("import sys\nprint('x', file=sys.stderr)", 1),
    ("import sys\nsys.stdout.write('x')", 1),
    ("import sys\nsys.stderr.flush()", 1),
    ("import os, sys\nos.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())", 1),
    ("import contextlib, io\nwith contextlib.redirect_stdout(io.StringIO()):\n    pass", 1),
    ("from contextlib import redirect_stderr\nredirect_stderr(None)", 1),
    ("self.stream.write('x')", 0),                  # a stream the caller gave
    ("import sys\nwide = sys.stdout.isatty()", 0),  # asking, not writing
    ("import os, sys\nos.get_terminal_size(sys.stdout.fileno())", 0),
    ("text = render(report)\n", 0),
])
def test_what_counts_as_a_write(source: str, writes: int) -> None:
    assert _writes(ast.parse(source)) == writes
