"""Running git with ``--timeout`` applied to every operation, whatever the transport.

git has no connect or idle timeout of its own for ``git://``; a server that accepts and then
says nothing would hold ``git ls-remote`` forever. So each git process runs under a
no-progress watchdog: any output (stdout, or stderr, where ``fetch --progress`` reports)
restarts the idle timer, and ``timeout`` seconds of silence kill the process; the total
deadline kills it too. It is the one mechanism for git://, https and ssh alike (connect and
no progress), so the reason always names the limit that fired; ssh runs in batch mode (no
password prompt).

gitpython's ``execute`` only offers a total ``kill_after_timeout``, which would cut off a long
fetch that is still making progress, hence subprocess here.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO

from rocm_bake import redact

BASE_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true", "LC_ALL": "C"}


@dataclass(frozen=True)
class GitResult:
    status: int
    stdout: str
    stderr: str


class GitTimeoutError(Exception):
    """The watchdog killed git; the message names the limit that fired."""


def environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """git's environment: no prompts (terminal, askpass, ssh), C locale."""
    ssh = os.environ.get("GIT_SSH_COMMAND", "ssh")
    return {**os.environ, **BASE_ENV, **(extra or {}),
            "GIT_SSH_COMMAND": f"{ssh} -o BatchMode=yes"}


class _Pump(threading.Thread):
    """Reads one pipe to its end, noting when the last chunk came."""

    def __init__(self, pipe: IO[bytes]) -> None:
        super().__init__(daemon=True)
        self.pipe = pipe
        self.chunks: list[bytes] = []
        self.last = time.monotonic()

    def run(self) -> None:
        while chunk := self.pipe.read1(65536):  # type: ignore[attr-defined]
            self.chunks.append(chunk)
            self.last = time.monotonic()

    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", "replace")


def run(args: list[str], env: Mapping[str, str], idle: float, total: float,
        cwd: str | None = None) -> GitResult:
    """``git ARGS``; raises GitTimeoutError after ``idle`` s of silence or ``total`` s."""
    proc = subprocess.Popen(["git", *args], env=dict(env), cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)   # its helpers die with it
    assert proc.stdout is not None and proc.stderr is not None
    pumps = [_Pump(proc.stdout), _Pump(proc.stderr)]
    for pump in pumps:
        pump.start()
    fired = _watch(proc, pumps, idle, total)
    for pump in pumps:
        pump.join()
    if fired:
        raise GitTimeoutError(fired)
    return GitResult(proc.returncode, pumps[0].text(), pumps[1].text())


def _watch(proc: subprocess.Popen[bytes], pumps: list[_Pump], idle: float, total: float) -> str:
    """Wait for git to exit; kill it and say why when it falls silent or runs out of time."""
    end = time.monotonic() + total
    while True:
        now = time.monotonic()
        quiet_until = max(p.last for p in pumps) + idle
        try:
            proc.wait(timeout=max(0.0, min(quiet_until, end) - now))
            return ""
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if now >= end:
            fired = f"the total deadline ran out ({total:.1f} s left when git started)"
        elif now >= max(p.last for p in pumps) + idle:
            fired = f"no answer for {idle:g} s (--timeout)"
        else:
            continue
        _kill_group(proc)
        return fired


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
