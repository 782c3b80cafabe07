"""Credentials in URLs never print: the one place that masks them.

Every output the project prints or records (dry-run lines, errors, health and doctor rows,
``run.json``, perf history) goes through :func:`text` or :func:`data`; a URL's user-info
(``http://user:password@host/`` -> ``http://****@host/``) and credential-like query
parameters (``?token=...``) are masked. :func:`split_credentials` takes them out of a URL
so they can travel as a BuildKit secret instead.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping
from typing import Any, TextIO
from urllib.parse import unquote, urlsplit, urlunsplit

MASK = "****"
# scheme://userinfo@ : the user-info runs to the last "@" before the path, query or fragment.
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^\s/?#]+)@")
_QUERY_SECRET = re.compile(
    r"(?P<key>[?&](?:[A-Za-z0-9_.-]*(?:token|secret|password|passwd|signature|credential|"
    r"api[_-]?key|access[_-]?key|auth)[A-Za-z0-9_.-]*)=)(?P<value>[^&#\s\"']+)", re.I)


def text(value: str) -> str:
    """``value`` with the user-info of every URL in it, and credential query values, masked."""
    if "://" not in value:
        return value
    masked = _USERINFO.sub(lambda m: f"{m.group('scheme')}{MASK}@", value)
    return _QUERY_SECRET.sub(lambda m: f"{m.group('key')}{MASK}", masked)


def data(value: object) -> object:
    """A JSON-like structure with :func:`text` applied to every string (keys included)."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, Mapping):
        return {text(str(k)) if isinstance(k, str) else k: data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [data(v) for v in value]
    return value


def has_credentials(url: str) -> bool:
    """Whether ``url`` carries user-info (``user[:password]@``)."""
    return "@" in urlsplit(url).netloc


def split_credentials(url: str) -> tuple[str, str, str]:
    """``(url without user-info, user, password)``; user and password percent-decoded."""
    parts = urlsplit(url)
    userinfo, at, host = parts.netloc.rpartition("@")
    if not at:
        return url, "", ""
    user, _, password = userinfo.partition(":")
    clean = urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    return clean, unquote(user), unquote(password)


class Stream:
    """A text stream that masks credentials in everything written to it (the tasks wrap
    stdout and stderr with it, so no printed line can carry a URL's password)."""

    def __init__(self, wrapped: TextIO) -> None:
        self.wrapped = wrapped

    def write(self, value: str) -> int:
        try:
            self.wrapped.write(text(value))
        except BrokenPipeError:
            self._reader_left()
        return len(value)

    def flush(self) -> None:
        try:
            self.wrapped.flush()
        except BrokenPipeError:
            self._reader_left()

    def _reader_left(self) -> None:
        """The reader closed the pipe (``inv … | head``): what is still written goes to
        /dev/null, and the task goes on to its own exit status, with no traceback."""
        os.dup2(os.open(os.devnull, os.O_WRONLY), self.wrapped.fileno())

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


def guard_output() -> None:
    """Wrap ``sys.stdout`` and ``sys.stderr`` in :class:`Stream` (once)."""
    for name in ("stdout", "stderr"):
        current = getattr(sys, name)
        if current is not None and not isinstance(current, Stream):
            setattr(sys, name, Stream(current))
