"""Every test directory runs in exactly one stage of scripts/test.sh: its stage lines are read
(a stage that calls one of the script's functions runs the pytest paths in that function's
body) and compared with the directories under tests/ that hold a test_*.py. A directory in no
stage never runs in CI; one in two runs twice; both fail, naming the directory."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from pathlib import Path

from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "test.sh"
TESTS = ROOT / "tests"
PYTEST = "${pytest[@]}"
_FUNCTION = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)\(\)\s*\{(?P<rest>.*)$")


def logical_lines(text: str) -> list[str]:
    """The script's lines with backslash continuations joined and comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", text)
    return [line.split(" #", 1)[0].strip() for line in joined.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def functions(lines: list[str]) -> dict[str, list[str]]:
    """Each shell function ``name() { ... }`` of the script: its body's lines."""
    bodies: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines:
        text = line
        if current is None and (match := _FUNCTION.match(line)):
            current = bodies.setdefault(match["name"], [])
            text = match["rest"].strip()
        if current is not None and text == "}":
            current = None
        elif current is not None and text:
            current.append(text)
    return bodies


def paths_run_by_pytest(words: Iterable[str]) -> list[str]:
    """The tests/ paths a command line hands to pytest (``"${pytest[@]}" tests/a tests/b``)."""
    paths: list[str] = []
    running = False
    for word in words:
        if word == PYTEST:
            running = True
        elif running and word.startswith("tests/"):
            paths.append(word.rstrip("/"))
        elif running and word in {"&&", "||", ";", "|"}:
            running = False
    return paths


def stages(text: str) -> dict[str, list[str]]:
    """Each ``stage NAME COMMAND...`` (and ``stage_into RECORD NAME COMMAND...``) line: the
    stage's name and the tests/ paths it runs."""
    lines = logical_lines(text)
    bodies = functions(lines)
    found: dict[str, list[str]] = {}
    for line in lines:
        if line.startswith("stage "):
            _, name, *command = shlex.split(line)
        elif line.startswith("stage_into "):          # stage_into RECORD NAME COMMAND...
            _, _, name, *command = shlex.split(line)
        else:
            continue
        if command and command[0] in bodies:
            words = [w for body in bodies[command[0]] for w in shlex.split(body)]
        else:
            words = command
        found[name] = paths_run_by_pytest(words)
    return found


def directories_with_tests(root: Path) -> list[str]:
    """Every directory under root's tests/ that holds a test_*.py, relative to root."""
    return sorted({str(p.parent.relative_to(root)) for p in (root / "tests").rglob("test_*.py")})


def unrun(directories: list[str], by_stage: Mapping[str, list[str]]) -> list[str]:
    """A line per test directory in no stage, or in more than one, and per stage path that is
    no directory of tests (a path runs a directory when it is the directory or an ancestor)."""
    problems: list[str] = []
    for directory in directories:
        running = [name for name, paths in by_stage.items()
                   if any(directory == p or directory.startswith(p + "/") for p in paths)]
        if not running:
            problems.append(f"{directory}: in no stage of scripts/test.sh")
        elif len(running) > 1:
            problems.append(f"{directory}: in {len(running)} stages: {'; '.join(running)}")
    for name, paths in by_stage.items():
        problems += [f"stage {name!r}: {p} holds no test_*.py" for p in paths
                     if not any(d == p or d.startswith(p + "/") for d in directories)]
    return problems


def test_every_test_directory_runs_in_exactly_one_stage() -> None:
    by_stage = stages(SCRIPT.read_text())
    assert by_stage, "no stage line read from scripts/test.sh"
    assert unrun(directories_with_tests(ROOT), by_stage) == []


def test_a_directory_in_no_stage_or_in_two_is_named() -> None:
    script = """
pytest=(.venv/bin/pytest -p no:cacheprovider)
docs() {
    .venv/bin/inv docs --check &&
        "${pytest[@]}" tests/docs
}
stage "unit" "${pytest[@]}" tests/unit tests/e2e
stage "docs" docs
stage "again" \\
    "${pytest[@]}" tests/unit tests/gone
"""
    by_stage = stages(script)
    assert by_stage == {"unit": ["tests/unit", "tests/e2e"], "docs": ["tests/docs"],
                        "again": ["tests/unit", "tests/gone"]}
    directories = ["tests/docs", "tests/e2e/stages", "tests/lint", "tests/unit"]
    assert unrun(directories, by_stage) == [
        "tests/lint: in no stage of scripts/test.sh",
        "tests/unit: in 2 stages: unit; again",
        "stage 'again': tests/gone holds no test_*.py",
    ]
