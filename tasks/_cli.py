"""Shared glue for tasks: turn library errors into one line on stderr and exit status 2; a
report on stdout (a reader that left, a stdout that cannot take it) and in the GitHub step
summary; a task's flags made from a settings dataclass (rocm_bake.core.flags); ``inv TASK
--help`` for a task that takes a positional argument."""

from __future__ import annotations

import functools
import inspect
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from invoke.exceptions import Exit
from invoke.parser.parser import ParseMachine
from invoke.tasks import Task, task

from rocm_bake.core import flags as declared
from rocm_bake.core import redact
from rocm_bake.core.errors import HCLError, RocmBakeError

F = TypeVar("F", bound=Callable[..., Any])
S = TypeVar("S")


def reports_errors(func: F) -> F:
    """Run a task body; a RocmBakeError becomes ``error: <message>`` and its exit status."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except RocmBakeError as exc:
            raise Exit(f"error: {redact.text(str(exc))}", code=exc.exit_code) from None

    return wrapper  # type: ignore[return-value]


def to_stderr(line: str) -> None:
    """Where a task puts a build's report lines (``cache:``, ``arch:``, ``provenance:``)."""
    print(line, file=sys.stderr, flush=True)


def warn(warnings: list[HCLError]) -> None:
    """Print what buildx would silently ignore, one line each, on stderr."""
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)


def warn_lines(lines: Sequence[str]) -> None:
    """Print warnings (already one line each) on stderr."""
    for line in lines:
        print(f"warning: {line}", file=sys.stderr)


def table(rows: Sequence[Sequence[object]], headers: Sequence[str], error: str = "") -> None:
    """Print ``rows`` as a text table fitted to the terminal (rocm_bake.core.tables); then, when
    ``error`` says what failed, ``error: <it>`` on stderr and exit status 2."""
    from rocm_bake.core import tables

    print(tables.render(rows, headers))
    if error:
        raise Exit(f"error: {error}", code=2)


def print_report(text: str) -> bool:
    """A report on stdout, URL user-info masked. False when the reader left (``inv … |
    head``): stdout goes to /dev/null from then on and the task keeps its own exit status. A
    stdout that cannot take it (a full device, a closed file) is exit 2 naming it."""
    from rocm_bake.core.atomic import OutputError

    try:
        print(redact.text(text), end="", flush=True)
    except BrokenPipeError:
        _stdout_to_devnull()
        return False
    except OSError as exc:
        _stdout_to_devnull()   # no second complaint at exit
        raise OutputError(f"cannot write the report to stdout: {exc.strerror or exc}") \
            from None
    return True


def _stdout_to_devnull() -> None:
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def step_summary(env: Mapping[str, str], markdown: str) -> None:
    """In a GitHub Actions step: a Markdown report appended to the step summary (the file
    ``GITHUB_STEP_SUMMARY`` names), the step's earlier lines kept; one that cannot be written
    is exit 2 naming it."""
    from rocm_bake.core.atomic import OutputError

    path = env.get("GITHUB_STEP_SUMMARY", "")
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(redact.text(markdown))
    except OSError as exc:
        raise OutputError(f"cannot append to GITHUB_STEP_SUMMARY {path}: "
                          f"{exc.strerror or exc}") from None


def progress_line(line: str) -> None:
    """A check's progress on a terminal: ``line`` in place of the last one (``""`` clears)."""
    sys.stderr.write(f"\r\033[K{line}")
    sys.stderr.flush()


def flags_task(settings: type[Any], **options: Any) -> Callable[[Callable[..., Any]], Task[Any]]:
    """``@task`` for a body ``(c, **flags)`` whose flags are the fields of the dataclass
    ``settings`` (rocm_bake.core.flags: each declared once, with its default and help line).
    The body gets the parsed flags; ``from_flags`` maps them onto ``settings``."""
    parameters = [inspect.Parameter("c", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    helps: dict[str, str] = {}
    many: list[str] = []
    optional: list[str] = []

    def add(name: str, help_line: str, default: Any = inspect.Parameter.empty) -> None:
        parameters.append(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                            default=default))
        helps[name] = help_line

    for field in declared.flags(settings):
        meta = field.metadata
        name = meta[declared.NAME] or field.name
        if meta[declared.CHOICES]:
            for choice, help_line in meta[declared.CHOICES].items():
                add(choice, help_line, False)
        elif meta[declared.MANY]:   # no default: invoke's repeatable flags start as []
            add(name, meta[declared.HELP])
            many.append(name)
        else:
            add(name, meta[declared.HELP], field.default)
            if meta[declared.OPTIONAL]:
                optional.append(name)

    def decorate(body: Callable[..., Any]) -> Task[Any]:
        body.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        made: Task[Any] = task(help=helps, iterable=many, optional=optional,
                          auto_shortflags=False, **options)(body)
        return made

    return decorate


def from_flags(settings: type[S], parsed: Mapping[str, Any]) -> S:
    """The dataclass ``settings`` from the flags invoke parsed (``flags_task``'s body's)."""
    values: dict[str, Any] = {}
    for field in declared.flags(settings):
        meta = field.metadata
        if meta[declared.CHOICES]:
            chosen = [choice for choice in meta[declared.CHOICES] if parsed[choice]]
            values[field.name] = chosen[0] if chosen else field.default
            continue
        given = parsed[meta[declared.NAME] or field.name]
        if meta[declared.OPTIONAL]:   # absent: None; alone: True; with a value: the value
            given = None if given is None or given is False else \
                "" if given is True else str(given)
        values[field.name] = list(given) if meta[declared.MANY] else given
    return settings(**values)


# invoke (3.0.3) hands a token to a task's missing positional argument before it looks at the
# core flags, so `inv verify-repro --help` ran the task with target "--help" and `inv audit-arch
# --help` tried to read an image named "--help" (pyinvoke/invoke#982, open). Its parse machine
# is a fluidity state machine, which cannot be subclassed (the states are the class's own), so
# help_after_positionals() wraps the two methods involved.
_handle = ParseMachine.handle
_complete_context = ParseMachine.complete_context


def _asks_for_help(machine: ParseMachine, token: str) -> bool:
    """``--help`` / ``-h`` after a task name while the task still waits for a positional
    argument (a task's own flag of that name still wins, as in invoke)."""
    context, initial = machine.context, machine.initial
    return (_has_help(machine) and machine.current_state != "unknown" and context is not None
            and context is not initial and bool(context.missing_positional_args)
            and token not in context.flags and not machine.waiting_for_flag_value
            and token in initial.flags and initial.flags[token].name == "help")


def _has_help(machine: ParseMachine) -> bool:
    """A parse with invoke's core flags, ``--help`` among them (a parser made without them,
    as a test makes one for a task's own flags, is left to invoke)."""
    return machine.initial is not None and "help" in machine.initial.args


def _handle_help_first(machine: ParseMachine, token: str) -> None:
    if _asks_for_help(machine, token):
        # What invoke does with --help after a task's positional arguments: the task's name
        # becomes the flag's value, and invoke prints that task's help.
        machine.initial.flags[token].value = machine.context.name
        return
    _handle(machine, token)


def _complete_context_for_help(machine: ParseMachine) -> None:
    """A task whose help is asked for needs none of its positional arguments: invoke prints
    the help and runs nothing."""
    context = machine.context
    if _has_help(machine) and context is not None and context is not machine.initial \
            and machine.initial.args["help"].value:
        if context not in machine.result:
            machine.result.append(context)
        return
    _complete_context(machine)


def help_after_positionals() -> None:
    """``inv TASK --help`` prints the task's help for every task, also one that takes a
    positional argument. ``import tasks`` calls it: invoke loads the collection before it
    parses the task arguments."""
    machine: Any = ParseMachine       # its methods are typed as taking `self` twice
    machine.handle = _handle_help_first
    machine.complete_context = _complete_context_for_help
