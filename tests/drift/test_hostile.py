"""``inv version-check`` against hostile values and careless hands (issue 41): a value from
the command line or the bake file never reaches git as an option, ``--pr`` against a base that
moved on compares with the merge base and says so, a cache directory that is a file and a bake
file with a UTF-8 byte order mark are read as they should be, and Ctrl-C stops at once."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from pathlib import Path

import pytest

from tests.conftest import ROOT, VENV_BIN, Buildx, minimal_env
from tests.drift.conftest import Checker, Run, pin
from tests.drift.gitworld import GIT_ENV
from tests.drift.test_behaviour import _pr_repo
from tests.loopback import silent_server

GOOD = pin("TRITON_VERSION", "3.9.0", pypi="triton")
V3 = r"^v(?P<version>[0-9]+\.[0-9]+\.[0-9]+)$"


def git(repo: Path, *args: str) -> str:
    env = {**GIT_ENV, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True,
                          check=True).stdout


def one_line(result: Run, text: str) -> None:
    assert "Traceback" not in result.out + result.err, result
    assert result.code == 2 and result.err == f"error: {text}\n", result


# -- values git would read as options --------------------------------------------------------------
def test_a_pr_ref_git_would_read_as_an_option_writes_nothing(checker: Checker,
                                                             tmp_path: Path) -> None:
    repo = _pr_repo(checker, GOOD)
    written = tmp_path / "FILE"
    ref = f"--output={written}"
    result = checker.run(files=[str(repo / "rocm-bake.hcl")], pr=ref)
    one_line(result, f"--pr {ref}: cannot read rocm-bake.hcl at {ref} (it names no commit of "
                     "this repository)")
    assert not written.exists()


@pytest.mark.parametrize("name", ["CUPY_COMMIT", "CUPY_REF"])
def test_a_repository_git_would_read_as_an_option_runs_nothing(
        checker: Checker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    # run where git has a remote to fall back on (a local one: its upload-pack is a command)
    (tmp_path / "up.git").mkdir()
    git(tmp_path / "up.git", "init", "-q", "--bare")
    (tmp_path / "work").mkdir()
    git(tmp_path / "work", "init", "-q")
    git(tmp_path / "work", "remote", "add", "origin", str(tmp_path / "up.git"))
    monkeypatch.chdir(tmp_path / "work")
    canary = tmp_path / "ran"
    hostile = f"--upload-pack=touch {canary};"
    value = "0" * 40 if name == "CUPY_COMMIT" else "v14.1.0"
    result = checker.run(GOOD + pin(name, value, git=hostile, tags=V3))
    assert not canary.exists()
    assert result.code == 2 and "Traceback" not in result.err, result
    detail = result.pin(name)["detail"]
    assert detail.startswith(f"git ls-remote failed for {hostile}: ") and "blocked" in detail, \
        detail


# -- --pr against a base that moved on -------------------------------------------------------------
def test_a_pr_base_that_moved_on_is_read_at_the_merge_base(checker: Checker) -> None:
    base = pin("TRITON_VERSION", "3.7.1", pypi="triton") + pin("VLLM_VERSION", "0.33.0",
                                                              pypi="vllm")
    repo = _pr_repo(checker, base)
    bake = repo / "rocm-bake.hcl"
    forked = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "change")
    bake.write_text(base.replace("0.33.0", "0.32.0"))          # the change: VLLM_VERSION
    git(repo, "commit", "-qam", "the change")
    git(repo, "checkout", "-q", "main")
    bake.write_text(base.replace("3.7.1", "3.7.0"))            # main moves on: TRITON_VERSION
    git(repo, "commit", "-qam", "main moves on")
    tip = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "change")
    result = checker.run(files=[str(bake)], pr="main")
    data = result.json()
    assert [p["name"] for p in data["pins"]] == ["VLLM_VERSION"], result.out
    assert data["unchanged"] == ["TRITON_VERSION"], result.out
    assert result.err == (f"warning: --pr main: {tip[:12]} is not an ancestor of HEAD (it moved "
                          "on since this change forked): compared with their merge base "
                          f"{forked[:12]}\n"), result.err


def test_a_pr_base_that_shares_no_history_is_one_line(checker: Checker) -> None:
    repo = _pr_repo(checker, GOOD)
    git(repo, "checkout", "-q", "--orphan", "other")
    git(repo, "commit", "-qm", "unrelated")
    result = checker.run(files=[str(repo / "rocm-bake.hcl")], pr="main")
    one_line(result, "--pr main: it shares no history with HEAD")


# -- the cache directory and the bake file ---------------------------------------------------------
def test_a_cache_dir_that_is_a_file_is_one_line(checker: Checker, tmp_path: Path) -> None:
    taken = tmp_path / "cache-file"
    taken.write_text("kept\n")
    before = len(checker.world.web.requests)
    for where in (taken, taken / "drift"):
        result = checker.run(GOOD, cache_dir=str(where))
        one_line(result, f"--cache-dir {where}: {taken} is not a directory")
    assert taken.read_text() == "kept\n" and len(checker.world.web.requests) == before


def test_a_bake_file_with_a_byte_order_mark_is_read_as_buildx_reads_it(
        checker: Checker, buildx: Buildx) -> None:
    text = "\ufeff" + GOOD
    path = checker.bake(text, "bom.hcl")
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    listed = buildx.bake(["--file", path.name, "--list=type=variables,format=json"],
                         path.parent)
    assert listed.returncode == 0, listed.stderr
    assert '"value":"3.9.0"' in listed.stdout.replace(" ", ""), listed.stdout
    result = checker.run(text)
    assert result.code == 0, result
    assert result.pin("TRITON_VERSION")["status"] == "up to date"


# -- Ctrl-C ----------------------------------------------------------------------------------------
def _in_flight(proc: subprocess.Popen[str], arrived: threading.Semaphore, count: int) -> None:
    """Wait until ``count`` requests are in (the process ending first fails the test): the
    process's end releases ``arrived`` too, so nothing waits on a clock."""
    def ended() -> None:
        proc.wait()
        arrived.release()

    threading.Thread(target=ended, daemon=True).start()
    for _ in range(count):
        arrived.acquire()
        assert proc.poll() is None, proc.communicate()


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_ctrl_c_stops_at_once_killing_its_git_processes(checker: Checker) -> None:
    text = pin("HUNG_REF", "v1.0.0", git="https://github.com/hung/repo.git", tags=V3) + \
        pin("HUNG_VERSION", "1.0.0", pypi="hung")
    bake = checker.bake(text)
    arrived = threading.Semaphore(0)
    with silent_server(arrived.release) as git_port, \
            silent_server(arrived.release) as web_port:
        argv = [str(VENV_BIN / "inv"), "--search-root", str(ROOT), "version-check", "--file",
                str(bake), "--cache-dir", str(checker.cache), "--timeout", "600", "--deadline",
                "600", "--rewrite",
                f"https://github.com/hung/=git://127.0.0.1:{git_port}/", "--pypi",
                f"http://127.0.0.1:{web_port}"]
        proc = subprocess.Popen(argv, cwd=checker.tmp, env=minimal_env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            _in_flight(proc, arrived, 2)    # git ls-remote and the PyPI request
            gits = [p for p in _children(proc.pid)
                    if (Path("/proc") / str(p) / "comm").read_text().strip() == "git"]
            assert gits, "git is not at work"
            os.kill(proc.pid, signal.SIGINT)
            out, err = proc.communicate(timeout=60)   # a hang guard: 600 s upstreams
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, (out, err)
    assert err == "error: interrupted: every upstream request stopped, nothing written\n"
    assert out == ""
    assert not [p for p in gits if _alive(p)]
