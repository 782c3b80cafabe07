"""The docs' commands, followed literally as far as this machine allows: every ``inv`` task and
flag a page names exists (``inv --help TASK``), and every command of a code block runs — a
build or push in its ``--dry-run`` form, ``inv docs`` as ``--check``."""

from __future__ import annotations

import functools
import json
import re
import shlex

import pytest

from rocm_bake_docs import commands
from tests.conftest import ROOT, run_cli
from tests.docs.commands import Command, from_markdown

PAGES = sorted(p for p in (ROOT / "docs").rglob("*.md") if "snippets" not in p.parts)
SOURCES = [*PAGES, ROOT / "README.md"]
_FLAG = re.compile(r"(?<![\w-])(--?[a-zA-Z][\w-]*)")
INV = ("inv", "./inv")
# Invoke's own usage-line placeholders, and metavariables such as `nox -s NAME`.
_PLACEHOLDERS = frozenset({"[--options]", "[--core-opts]"})
_METAVAR = re.compile(r"^[A-Z][A-Z_]*$")
_TASK_LINE = re.compile(r"^  (\S+)")  # `inv --list`: a task; help continues further in


def _commands() -> list[Command]:
    return [c for path in SOURCES for c in from_markdown(path, ROOT)]


@functools.cache
def inv_tasks() -> frozenset[str]:
    result = run_cli(["inv", "--list"])
    assert result.returncode == 0, result.stderr
    names = [m.group(1) for ln in result.stdout.splitlines() if (m := _TASK_LINE.match(ln))]
    return frozenset(names)


@functools.cache
def inv_flags(task: str) -> frozenset[str]:
    """The flags ``inv --help TASK`` lists (``inv --help`` alone: the core flags)."""
    result = run_cli(["inv", "--help", *([task] if task else [])])
    assert result.returncode == 0, result.stderr
    options = result.stdout.split("Options:", 1)[-1]
    return frozenset(_FLAG.findall(options)) | {"--help", "-h"}


@functools.cache
def nox_sessions() -> frozenset[str]:
    result = run_cli(["nox", "-l", "--json", "-k", "not no_such_session"])
    assert result.returncode == 0, result.stderr
    return frozenset(str(s["name"]) for s in json.loads(result.stdout))


def _flags_used(argv: list[str]) -> list[str]:
    words = [word for word in argv if word not in _PLACEHOLDERS]
    return [word.strip("[]").split("=")[0] for word in words if word.strip("[").startswith("-")]


def check_inv(command: Command, argv: list[str]) -> None:
    task = argv[0] if argv and not argv[0].startswith("-") else ""
    if task:
        assert task in inv_tasks(), f"{command.where}: `{command.line}`: no task {task!r}"
    unknown = [f for f in _flags_used(argv) if f not in inv_flags(task)]
    assert not unknown, (f"{command.where}: `{command.line}`: inv {task or ''} has no flag "
                         f"{', '.join(unknown)} (see inv --help {task})")


def check_nox(command: Command) -> None:
    argv = command.argv[1:]
    posargs = argv[argv.index("--") + 1:] if "--" in argv else []
    before = argv[:argv.index("--")] if "--" in argv else argv
    for flag in ("-s", "--session", "--sessions"):
        if flag in before:
            name = before[before.index(flag) + 1]
            if _METAVAR.match(name):
                continue
            assert name in nox_sessions(), f"{command.where}: `{command.line}`: no session {name}"
            if name.startswith("build-"):
                check_inv(command, ["build", *posargs])


def check_script(command: Command) -> None:
    argv = command.argv[1:] if command.argv[0] == "bash" else command.argv
    script = ROOT / argv[0]
    assert script.is_file(), f"{command.where}: `{command.line}`: no script {argv[0]}"
    if len(argv) > 1:
        usage = script.read_text(encoding="utf-8")
        assert re.search(rf"^\s+{re.escape(argv[1])}\b", usage, re.M), (
            f"{command.where}: `{command.line}`: {argv[0]} documents no command {argv[1]}")


def check(command: Command) -> None:
    head = command.argv[0]
    if head in INV:
        check_inv(command, command.argv[1:])
    elif head == "nox":
        check_nox(command)
    elif head.startswith("scripts/") or head == "bash":
        check_script(command)
    else:
        pytest.fail(f"{command.where}: `{command.line}`: the docs test does not know {head!r}; "
                    "teach tests/docs/test_quickstart.py how to check it")


def as_run_here(command: Command) -> list[str] | None:
    """The form of a runnable command this machine can run, or None (checked only)."""
    if command.argv[0] not in INV:
        return ["nox", "-l"] if command.argv[:2] == ["nox", "-l"] else None
    argv = ["inv", *command.argv[1:]]
    task = argv[1] if len(argv) > 1 else ""
    if task in ("build", "push") and not {"--dry-run", "-d", "--print", "-r"} & set(argv):
        argv.append("--dry-run")
    if task == "docs":
        argv = ["inv", "docs", "--check"]
    if task in ("doctor", "services"):
        return None  # they inspect a fleet this machine may not have
    if task == "version-check" and "--offline" not in argv:
        return None  # it asks the upstream projects, and tests reach no network
    if task == "rehearse":
        return None  # it builds the stack: the rehearsal stage and tests/rehearse run it
    return argv


COMMANDS = _commands()


def test_the_docs_quote_commands() -> None:
    lines = {c.line for c in COMMANDS}
    for expected in ("./inv build --target vllm", "scripts/test.sh",
                     "./inv push --target torch --set REGISTRY=registry.example.com:5000",
                     "./inv targets", "./inv list-vars", "./inv docs --check"):
        assert expected in lines, f"the docs no longer show `{expected}`"


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: f"{c.where}:{c.line}")
def test_names_and_flags_exist(command: Command) -> None:
    check(command)


# One test per distinct command run here (`inv docs`, `--check` and `--serve` all run as
# `inv docs --check`).
RUNNABLE = list({shlex.join([*c.env, *(as_run_here(c) or [])]): c
                 for c in COMMANDS if c.runnable and as_run_here(c)}.values())


@pytest.mark.parametrize("command", RUNNABLE, ids=lambda c: c.line)
def test_command_runs(command: Command) -> None:
    argv = as_run_here(command)
    assert argv is not None
    result = run_cli(argv, env=command.env)
    assert result.returncode == 0, f"`{command.line}` (run as {argv}): {result.stderr[-1500:]}"
    assert result.stdout.strip(), f"`{command.line}` printed nothing"


def test_snippets_show_what_the_commands_print() -> None:
    for snippet in sorted((ROOT / "docs" / "snippets").glob("cmd-*.md")):
        body = snippet.read_text(encoding="utf-8").split("```text\n", 1)[1].rsplit("```", 1)[0]
        typed, _, shown = body.partition("\n")
        argv = shlex.split(typed.removeprefix("$ ./"))
        # as the page captured it: tables at the page's width (into a pipe nothing wraps)
        result = run_cli(argv, env={"COLUMNS": str(commands.PAGE_COLUMNS)})
        assert result.returncode == 0, result.stderr
        if "more lines)" not in shown:
            assert result.stdout.rstrip() == shown.rstrip(), f"{snippet.name} is stale"


def test_the_quick_start_has_no_manual_engine_step() -> None:
    """The README's promise: `./inv build` finds or starts the engine itself, so the Quick
    start neither starts one by hand nor exports DOCKER_HOST."""
    page = ROOT / "docs" / "quickstart.md"
    commands = [c for c in COMMANDS if c.where == str(page.relative_to(ROOT))]
    assert commands, f"no commands read from {page}"
    for command in commands:
        assert "engine.sh" not in command.line, f"{command.where}: `{command.line}`"
    text = page.read_text(encoding="utf-8")
    assert "export DOCKER_HOST" not in text and "eval " not in text


def test_run_here_never_builds() -> None:
    command = Command("x", ["./inv", "build", "--target", "vllm"])
    assert as_run_here(command) == ["inv", "build", "--target", "vllm", "--dry-run"]


def test_the_tasks_reference_lists_every_task_and_flag() -> None:
    page = (ROOT / "docs" / "reference" / "tasks.md").read_text(encoding="utf-8")
    for task in inv_tasks():
        assert f"\n## {task}\n" in page, f"reference/tasks.md lacks the task {task}"
        section = page.split(f"\n## {task}\n", 1)[1].split("\n## ", 1)[0]
        for flag in inv_flags(task) - {"--help", "-h"}:
            assert flag in section, f"reference/tasks.md: {task} lacks {flag}"
