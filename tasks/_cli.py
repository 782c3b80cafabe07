"""Shared glue for tasks: turn library errors into one line on stderr and exit status 2;
``inv TASK --help`` for a task that takes a positional argument."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from invoke.exceptions import Exit
from invoke.parser.parser import ParseMachine

from rocm_bake.core import redact
from rocm_bake.core.errors import HCLError, RocmBakeError

F = TypeVar("F", bound=Callable[..., Any])


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
    return (machine.current_state != "unknown" and context is not None
            and context is not initial and bool(context.missing_positional_args)
            and token not in context.flags and not machine.waiting_for_flag_value
            and token in initial.flags and initial.flags[token].name == "help")


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
    if context is not None and context is not machine.initial \
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
