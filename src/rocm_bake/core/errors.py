"""Errors that end a command with a clear one-line message and exit status 2."""

from __future__ import annotations

EXIT_FAILED = 2


class RocmBakeError(Exception):
    """Something could not be done; the message says what, on one line."""

    exit_code = EXIT_FAILED


class HCLError(RocmBakeError):
    """An error in a bake file, located at file:line:column when known."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None,
                 column: int | None = None) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = self.file
            if self.line:
                where += f":{self.line}"
                if self.column:
                    where += f":{self.column}"
            where += ": "
        return f"{where}{self.message}"


class UsageError(RocmBakeError):
    """Bad input on the command line (an unknown target, a malformed override...)."""


class StoppedError(RocmBakeError):
    """The user stopped the command (Ctrl-C): what it started is stopped, nothing written."""

    exit_code = 130
