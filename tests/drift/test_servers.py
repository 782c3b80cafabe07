"""The loopback servers of the test worlds end with their ``with`` block: no thread of theirs
is left blocked in ``accept`` on a closed socket. Such a thread takes, once a signal restarts
its call, a connection meant for whichever listener later gets its descriptor number (a
SIGCHLD does that whenever another thread starts a process), and drops it: a git client of
the next world reads "Connection reset by peer" (tests/loopback.py: silent_server)."""

from __future__ import annotations

import concurrent.futures as cf
import socket
import subprocess
import threading
from pathlib import Path

from tests.drift import gitworld
from tests.loopback import silent_server


def _alive(name: str) -> bool:
    return any(t.name == name for t in threading.enumerate())


def _signals() -> None:
    """Processes started and reaped from several threads: SIGCHLDs, some of which reach a
    thread blocked in a system call and restart it."""
    def start() -> None:
        for _ in range(50):
            subprocess.run(["true"], check=True)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_a_silent_server_leaves_no_thread_behind() -> None:
    accepted = threading.Semaphore(0)
    with silent_server(accepted.release) as port:
        socket.create_connection(("127.0.0.1", port)).close()
        accepted.acquire()                  # its thread is back in accept()
        assert _alive(f"silent-server-{port}")
    assert not _alive(f"silent-server-{port}")


def test_a_git_daemon_after_a_silent_server_serves_every_client(tmp_path: Path) -> None:
    """The order of a test run: a silent server, then a git world on the descriptor it had."""
    gitworld.build(tmp_path / "git" / "o" / "r.git", gitworld.Spec(
        tags=[("v1.0.0", "2024-01-01", "tag")]))
    accepted = threading.Semaphore(0)
    with silent_server(accepted.release) as port:
        socket.create_connection(("127.0.0.1", port)).close()
        accepted.acquire()
    with gitworld.daemon(tmp_path / "git") as url:
        _signals()

        def ls_remote(_: int) -> subprocess.CompletedProcess[str]:
            return subprocess.run(["git", "ls-remote", f"{url}o/r.git"], env=gitworld.GIT_ENV,
                                  capture_output=True, text=True, check=False)

        with cf.ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(ls_remote, range(12)))
        name = f"git-daemon-{url.rsplit(':', 1)[1].rstrip('/')}"
        assert _alive(name)
    assert [(a.returncode, a.stderr) for a in answers] == [(0, "")] * 12
    assert all("refs/tags/v1.0.0" in a.stdout for a in answers)
    assert not _alive(name)
