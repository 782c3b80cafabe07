"""Shared glue for tasks: turn library errors into one line on stderr and exit status 2."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from invoke.exceptions import Exit

from rocm_bake import redact
from rocm_bake.errors import HCLError, RocmBakeError

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


def warn(warnings: list[HCLError]) -> None:
    """Print what buildx would silently ignore, one line each, on stderr."""
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)


def table(rows: Sequence[Sequence[object]], headers: Sequence[str], error: str = "",
          **options: Any) -> None:
    """Print ``rows`` as a text table (tabulate); then, when ``error`` says what failed,
    ``error: <it>`` on stderr and exit status 2."""
    from tabulate import tabulate

    print(tabulate(rows, headers=list(headers), **options))
    if error:
        raise Exit(f"error: {error}", code=2)
