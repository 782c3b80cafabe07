"""Outputs that never destroy what is at their path, and that fail as "could not do it": a
FIFO or a symlink given to ``--record`` / ``--docs-file`` stays what it is (the link's target
replaced, the pipe written), a stdout that cannot be written and a step summary in a missing
directory are exit 2 in one line naming the output, never a traceback, and the step summary is
written only with ``--markdown``, as the help says."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

from tests.conftest import ROOT, VENV_BIN, device, minimal_env, run_cli
from tests.drift.conftest import Checker, pin
from tests.drift.webworld import World

SNAPSHOT = "src/rocm_bake_checks/drift/snapshots/upstream.json"
SMALL = pin("SMALL_VERSION", "1.0", pypi="small-project")


def _small(checker: Checker) -> None:
    checker.world.web.pypi("small-project", World.sdists("small-project", "1.0"))


def one_line(stderr: str, code: int, *fragments: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (code, stderr)
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


# -- --record / --docs-file onto what is not a plain file ---------------------------------------
def test_record_onto_a_symlink_replaces_its_target_and_keeps_the_link(checker: Checker) -> None:
    _small(checker)
    target = checker.tmp / "target.json"
    target.write_text("old\n")
    link = checker.tmp / "record.json"
    link.symlink_to("target.json")
    result = checker.run(SMALL, record=str(link))
    assert result.code == 0 and "Traceback" not in result.out + result.err, result
    assert link.is_symlink() and os.readlink(link) == "target.json"
    assert json.loads(target.read_text())["format"] == "rocm-bake-drift-snapshot/1"


def test_record_onto_a_fifo_writes_through_it(checker: Checker) -> None:
    _small(checker)
    fifo = checker.tmp / "record.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)   # a reader waits: the writer does not
    try:
        result = checker.run(SMALL, record=str(fifo))
        received = os.read(reader, 1 << 16)
    finally:
        os.close(reader)
    assert result.code == 0 and "Traceback" not in result.out + result.err, result
    assert stat.S_ISFIFO(fifo.stat().st_mode)                 # still a pipe
    assert json.loads(received)["answers"]


def test_record_onto_a_directory_is_refused_in_one_line(checker: Checker) -> None:
    _small(checker)
    taken = checker.tmp / "taken"
    taken.mkdir()
    result = checker.run(SMALL, record=str(taken))
    one_line(result.err, result.code, f"cannot write {taken}: it is a directory")
    assert taken.is_dir() and list(taken.iterdir()) == []


def test_docs_file_onto_a_symlink_replaces_its_target(checker: Checker) -> None:
    _small(checker)
    (checker.tmp / "page.md").write_text("old\n")
    link = checker.tmp / "variables.md"
    link.symlink_to("page.md")
    result = checker.run(SMALL, docs=True, docs_file=str(link))
    assert result.code == 0, result
    assert link.is_symlink() and "`SMALL_VERSION`" in (checker.tmp / "page.md").read_text()


# -- outputs that cannot be written ---------------------------------------------------------------
def test_a_full_stdout_is_exit_2_in_one_line() -> None:
    with open("/dev/full", "w") as full:
        proc = subprocess.run([str(VENV_BIN / "inv"), "version-check", "--offline", SNAPSHOT],
                              cwd=ROOT, env=minimal_env(), stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=120, check=False)
    one_line(proc.stderr, proc.returncode,
             "cannot write the report to stdout: No space left on device")


def test_record_onto_a_full_device_is_exit_2_and_leaves_the_device(checker: Checker) -> None:
    _small(checker)
    full = device(checker.tmp, "full", 7)   # /dev/full's node, made here: never the machine's
    result = checker.run(SMALL, record=str(full))
    one_line(result.err, result.code, f"cannot write {full}: No space left on device")
    assert stat.S_ISCHR(full.stat().st_mode)


def test_a_step_summary_in_a_missing_directory_is_exit_2_in_one_line(tmp_path: Path) -> None:
    summary = tmp_path / "nonexistent" / "summary.md"
    result = run_cli(["inv", "version-check", "--offline", SNAPSHOT, "--markdown"],
                     env={"GITHUB_STEP_SUMMARY": str(summary)})
    one_line(result.stderr, result.returncode,
             f"cannot append to GITHUB_STEP_SUMMARY {summary}: No such file or directory")


def test_the_step_summary_is_written_only_with_markdown(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    env = {"GITHUB_STEP_SUMMARY": str(summary)}
    for extra in ([], ["--json"]):
        result = run_cli(["inv", "version-check", "--offline", SNAPSHOT, *extra], env=env)
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert summary.read_text() == "earlier step\n"
    markdown = run_cli(["inv", "version-check", "--offline", SNAPSHOT, "--markdown"], env=env)
    assert markdown.returncode == 1, markdown.stderr
    assert summary.read_text() == "earlier step\n" + markdown.stdout
    help_text = run_cli(["inv", "version-check", "--help"]).stdout
    assert "only --markdown does" in " ".join(help_text.split())
