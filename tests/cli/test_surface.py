"""The task and nox surface: documented tasks, the targets table, nox sessions per arch."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.conftest import ROOT, VENV_BIN, minimal_env, missing, run_cli

TASKS = ["build", "push", "list-vars", "targets", "version-check", "services", "doctor"]


def test_every_task_is_listed_with_help() -> None:
    result = run_cli(["inv", "--list"])
    assert result.returncode == 0, result.stderr
    for name in TASKS:
        line = next((ln for ln in result.stdout.splitlines() if ln.split()[:1] == [name]), "")
        assert line.split(maxsplit=1)[1:], f"task {name} has no help line: {result.stdout}"


def test_every_task_answers_help_after_its_name(tmp_path: Path, path_without_docker: str
                                                ) -> None:
    """`inv TASK --help` for every task `inv --list` shows, also one that takes a positional
    argument (verify-repro's TARGET, audit-arch's PATH): the task's usage, exit 0, and nothing
    run: no temporary directory, nothing in HOME, no docker (it is not on PATH)."""
    listing = run_cli(["inv", "--list"])
    names = [line.split()[0] for line in listing.stdout.splitlines()
             if line.startswith("  ") and line[2:3].strip()]
    assert {"build", "verify-repro", "audit-arch", "fleet.build"} <= set(names), listing.stdout
    # -h too where the task has no -h of its own (fleet.build's -h is --history, as invoke has it)
    asked = [(name, "--help") for name in names] + [("verify-repro", "-h"), ("audit-arch", "-h")]
    for name, flag in asked:
        scratch, home = tmp_path / name / "tmp", tmp_path / name / "home"
        scratch.mkdir(parents=True, exist_ok=True)
        home.mkdir(exist_ok=True)
        result = run_cli(["inv", name, flag], env={"PATH": path_without_docker,
                                                   "TMPDIR": str(scratch),
                                                   "HOME": str(home)})
        assert result.returncode == 0, (name, flag, result.stdout, result.stderr)
        assert result.stdout.startswith(f"Usage: inv[oke] [--core-opts] {name} "), \
            (name, flag, result.stdout)
        assert result.stderr == "", (name, flag, result.stderr)
        assert not any(scratch.iterdir()) and not any(home.iterdir()), (name, flag)


def test_print_needs_no_docker(path_without_docker: str) -> None:
    result = run_cli(["inv", "build", "--target", "vllm", "--arch", "gfx1201", "--print"],
                     env={"PATH": path_without_docker})
    assert result.returncode == 0, result.stderr
    plan = json.loads(result.stdout)
    assert plan["group"]["default"] == {"targets": ["vllm"]}
    assert "vllm-gfx1201" in plan["target"]
    # MoRI has no gfx1201 build (its skip); AITER's is the Triton-only one
    assert plan["target"]["vllm-gfx1201"]["contexts"]["mori"] == "target:empty"
    assert plan["target"]["vllm-gfx1201"]["contexts"]["aiter"] == "target:aiter-gfx1201"


def test_dry_run_shows_env_and_argv() -> None:
    result = run_cli(["inv", "build", "--target", "vllm", "--arch", "gfx950,gfx1201",
                      "--set", "MAX_JOBS=8", "--set", "vllm-gfx950.args.X=1", "--dry-run"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "GPU_ARCHS=gfx950,gfx1201 MAX_JOBS=8 docker buildx bake --file rocm-bake.hcl "
        "--set vllm-gfx950.args.X=1 "
        # Each image exported as verify-repro exports it, loaded from its archive after.
        + " ".join(f"--set vllm-{arch}.output=type=docker,dest=.rocm-bake-load/vllm-{arch}.tar,"
                   "oci-mediatypes=true,rewrite-timestamp=true" for arch in ("gfx950", "gfx1201"))
        + " vllm")


def test_targets_table_shows_skips_with_reasons() -> None:
    result = run_cli(["inv", "targets"])
    assert result.returncode == 0, result.stderr
    rows = [line.split(maxsplit=3) for line in result.stdout.splitlines()[2:]
            if not line.startswith(" ")]  # a wrapped reason's next lines start blank
    by_cell = {(r[0], r[1]): r for r in rows}
    assert by_cell[("vllm", "gfx950")][2] == "vllm-gfx950"
    assert "torch-gfx950" in by_cell[("vllm", "gfx950")][3]
    assert by_cell[("mori", "gfx1201")][2] == "-"
    assert "skipped:" in by_cell[("mori", "gfx1201")][3]
    assert by_cell[("aiter", "gfx1201")][2] == "aiter-gfx1201"
    assert "without kernels:" in by_cell[("aiter", "gfx1201")][3]


def test_targets_table_fits_the_terminal_and_json_has_every_reason_whole() -> None:
    """Long skip reasons wrap to COLUMNS (the terminal's width); --json keeps each whole."""
    for columns in (80, 120):
        table = run_cli(["inv", "targets"], env={"COLUMNS": str(columns)})
        assert table.returncode == 0, table.stderr
        assert max(len(line) for line in table.stdout.splitlines()) <= columns, table.stdout
    records = json.loads(run_cli(["inv", "targets", "--json"]).stdout)
    mori = next(r for r in records if (r["component"], r["arch"]) == ("mori", "gfx1201"))
    assert mori["target"] is None and "_supported_arch_list" in mori["skipped"]
    aiter = next(r for r in records if (r["component"], r["arch"]) == ("aiter", "gfx1201"))
    assert aiter["skipped"] is None and "AITER_TRITON_ONLY=1" in aiter["without_kernels"]
    reasons = [r["skipped"] for r in records if r["skipped"]]
    assert max(len(r) for r in reasons) > 120  # the table above wrapped something real


def test_list_vars_table() -> None:
    result = run_cli(["inv", "list-vars"])
    assert result.returncode == 0, result.stderr
    assert "GPU_ARCHS" in result.stdout and "list of string" in result.stdout


def test_nox_lists_one_build_session_per_arch() -> None:
    result = run_cli(["nox", "-l"])
    assert result.returncode == 0, result.stderr
    for arch in ("gfx950", "gfx1201", "gfx1250"):
        assert f"build-{arch}" in result.stdout


def test_nox_build_session_passes_posargs_to_inv_build() -> None:
    """Reuses the session's virtualenv that scripts/test.sh installed (no network in tests)."""
    if not (ROOT / ".nox" / "build-gfx950").is_dir():
        missing("the build-gfx950 nox env", ".venv/bin/nox --install-only -s build-gfx950")
    result = run_cli(["nox", "-R", "-s", "build-gfx950", "--", "--dry-run"], timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    output = result.stdout + result.stderr
    assert "GPU_ARCHS=gfx950 docker buildx bake --file rocm-bake.hcl" in output


def test_a_reader_that_left_costs_no_traceback() -> None:
    """`inv TASK … | head`: the reader has gone before anything is written (the pipe's read
    end is closed before the task starts), so every write fails with EPIPE; the task still
    ends with its own status and prints no traceback."""
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run([str(VENV_BIN / "inv"), "list-vars"], cwd=ROOT, env=minimal_env(),
                              stdout=write, stderr=subprocess.PIPE, text=True, timeout=120,
                              check=False)
    finally:
        os.close(write)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr, proc.stderr
