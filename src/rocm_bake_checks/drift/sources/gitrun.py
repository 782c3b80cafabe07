"""Running git under a bound, whatever the transport.

git has no connect or overall timeout of its own for ``git://``; a server that accepts and
then says nothing would hold ``git ls-remote`` forever, and one that trickles would hold a
fetch for as long as it likes. So each git process runs under a watchdog that kills it (and
the helpers it started) once ``seconds`` have passed: the caller gives it what is left of the
repository's ``--timeout`` budget or of the total deadline, whichever ends first, and the
reason to report. It is the one mechanism for git://, https and ssh alike; ssh runs in batch
mode (no password prompt), and no transport ever prompts (credentials come in the
environment, see credentials.py).

git runs in a session of its own, so the watchdog kills its whole process group: the
helpers it started (git-remote-https, ssh) hold its pipes and would outlive it otherwise.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO

from rocm_bake.core import redact

BASE_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true", "LC_ALL": "C"}


@dataclass(frozen=True)
class GitResult:
    status: int
    stdout: str
    stderr: str


class GitTimeoutError(Exception):
    """The watchdog killed git; the message names the limit that fired."""


class _Live:
    """The git processes at work, so a run that is stopped (Ctrl-C) kills them all at once:
    each runs in a session of its own and never sees the terminal's SIGINT. Once stopped, no
    new one starts."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.procs: set[subprocess.Popen[bytes]] = set()
        self.stopped = False


_LIVE = _Live()


def stop_all() -> None:
    """Kill every git process at work (and the helpers each started); start no new one."""
    with _LIVE.lock:
        _LIVE.stopped = True
        procs = list(_LIVE.procs)
    for proc in procs:
        _kill_group(proc)


def environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """git's environment: no prompts (terminal, askpass, ssh), C locale."""
    ssh = os.environ.get("GIT_SSH_COMMAND", "ssh")
    return {**os.environ, **BASE_ENV, **(extra or {}),
            "GIT_SSH_COMMAND": f"{ssh} -o BatchMode=yes"}


class _Pump(threading.Thread):
    """Reads one pipe to its end."""

    def __init__(self, pipe: IO[bytes]) -> None:
        super().__init__(daemon=True)
        self.pipe = pipe
        self.chunks: list[bytes] = []

    def run(self) -> None:
        while chunk := self.pipe.read1(65536):  # type: ignore[attr-defined]
            self.chunks.append(chunk)

    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", "replace")


def run(args: list[str], env: Mapping[str, str], seconds: float, reason: str,
        cwd: str | None = None) -> GitResult:
    """``git ARGS``; raises GitTimeoutError(``reason``) when it is not done in ``seconds``."""
    with _LIVE.lock:
        if _LIVE.stopped:
            raise GitTimeoutError("stopped")
        proc = subprocess.Popen(["git", *args], env=dict(env), cwd=cwd,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE,
                                start_new_session=True)   # its helpers die with it
        _LIVE.procs.add(proc)
    try:
        return _finish(proc, seconds, reason)
    finally:
        with _LIVE.lock:
            _LIVE.procs.discard(proc)


def _finish(proc: subprocess.Popen[bytes], seconds: float, reason: str) -> GitResult:
    assert proc.stdout is not None and proc.stderr is not None
    pumps = [_Pump(proc.stdout), _Pump(proc.stderr)]
    for pump in pumps:
        pump.start()
    try:
        proc.wait(timeout=max(0.0, seconds))
        fired = False
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        fired = True
    for pump in pumps:
        pump.join()
        pump.pipe.close()
    if fired:
        raise GitTimeoutError(reason)
    return GitResult(proc.returncode, pumps[0].text(), pumps[1].text())


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill git and every helper it started (git-remote-https, ssh), which hold its pipes."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def error_line(stderr: str, status: int) -> str:
    """git's error lines in full, joined into one line (progress lines left out); URL
    user-info masked."""
    lines = [ln.strip() for ln in stderr.replace("\r", "\n").splitlines() if ln.strip()]
    kept = [ln for ln in lines if not _progress(ln)]
    text = " ".join(kept) if kept else f"exit status {status}"
    return redact.text(text)


def _progress(line: str) -> bool:
    return line.startswith(("remote: Counting", "remote: Compressing", "remote: Enumerating",
                            "remote: Total", "Receiving objects", "Resolving deltas",
                            "remote: Finding sources"))
