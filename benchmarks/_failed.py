"""What a benchmark does when a run fails: one line on stderr (what failed, and the fix when the
failed command said one), exit status 2, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

EXIT_FAILED = 2


class RunError(Exception):
    """A step of the benchmark could not run; the message is the one line to print."""


def run(argv: Sequence[str], **options: Any) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(argv)`` (text); its stderr is captured unless ``options`` say where it
    goes. A command that cannot start or exits non-zero is :class:`RunError`, naming the
    command and its last line of error output (the project's commands print one
    ``error: ...`` line that says the fix)."""
    options.setdefault("stderr", subprocess.PIPE)
    command = _shown(argv)
    try:
        proc = subprocess.run(list(argv), text=True, check=False, **options)
    except FileNotFoundError:
        raise RunError(f"{command}: {argv[0]} not found (install it, or put it on PATH)"
                       ) from None
    except OSError as exc:
        raise RunError(f"{command}: cannot run: {exc.strerror or exc}") from None
    if proc.returncode != 0:
        lines = [ln.strip() for ln in (proc.stderr or "").splitlines() if ln.strip()]
        last = lines[-1].removeprefix("error: ") if lines else "no error output"
        raise RunError(f"{command} failed (exit {proc.returncode}): {last}")
    return proc


def _shown(argv: Sequence[str]) -> str:
    """The command on one line: the program's name, a long or multi-line argument cut."""
    words = [Path(argv[0]).name, *argv[1:]]
    return " ".join(w if len(w) <= 60 and "\n" not in w else w.splitlines()[0][:57] + "..."
                    for w in words)


def main(body: Callable[[], int | None]) -> NoReturn:
    """Run a benchmark's main: its exit status, or a :class:`RunError` as one line and exit 2."""
    try:
        code = body()
    except RunError as exc:
        print(f"{Path(sys.argv[0]).name}: error: {exc}", file=sys.stderr)
        sys.exit(EXIT_FAILED)
    sys.exit(code or 0)
