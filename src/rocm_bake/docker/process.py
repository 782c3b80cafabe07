"""Running a docker command: started in its own process group, stopped with a grace period, or
bounded by a watchdog."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from rocm_bake.core.errors import RocmBakeError

STOP_GRACE = 15.0


class WatchdogError(RocmBakeError):
    """A build ran past its time limit and was stopped."""


def start(argv: Sequence[str], env: Mapping[str, str], stdout: IO[str] | IO[bytes] | int | None,
          stderr: IO[str] | IO[bytes] | int | None = subprocess.STDOUT, cwd: Path | None = None,
          own_group: bool = False) -> subprocess.Popen[bytes]:
    """Start a build, stdin closed. With ``own_group`` it runs in its own process group (so
    :func:`stop` ends all of it); without, it stays in the caller's (Ctrl-C reaches it)."""
    return subprocess.Popen(list(argv), env=dict(env), stdout=stdout, stderr=stderr, cwd=cwd,
                            stdin=subprocess.DEVNULL, start_new_session=own_group)


def stop(proc: subprocess.Popen[bytes], grace: float = STOP_GRACE) -> None:
    """SIGTERM a build's process group; SIGKILL it when it is still there after ``grace``."""
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def run_with_watchdog(argv: Sequence[str], env: Mapping[str, str], timeout: float,
                      stdout: IO[str] | int | None = None, stderr: IO[str] | int | None = None,
                      cwd: Path | None = None) -> int:
    """Run a build; past ``timeout`` seconds stop its whole process group and raise
    :class:`WatchdogError` (a hanging cache backend must not hold a builder forever)."""
    with start(argv, env, stdout, stderr, cwd, own_group=True) as proc:
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            stop(proc)
            raise WatchdogError(f"the build exceeded its {timeout:.0f} s watchdog and was "
                                "stopped (a hanging cache backend?)") from None
