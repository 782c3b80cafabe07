"""`inv lint` on the repository itself, and its command-line contract."""

from __future__ import annotations

from pathlib import Path

from rocm_bake_checks import lint
from tests.conftest import ROOT, run_cli
from tests.lint.cases import CASES
from tests.lint.test_rules import write

STAGES = ROOT / "tests" / "e2e" / "stages"
# inv finds the project's tasks from any directory (the lint still runs in cwd).
INV = ["inv", "--search-root", str(ROOT)]


def test_inv_lint_passes_on_the_repository() -> None:
    result = run_cli(["inv", "lint"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_the_engine_test_variant_is_consistent() -> None:
    # Its base is a local test image (no digest), so only the pin-free families apply.
    findings = lint.run(ROOT, [STAGES / "docker-bake.hcl"],
                        ["consistency", "downloads", "caching"])
    assert [str(f) for f in findings] == []


def test_findings_exit_1_one_line_each(tmp_path: Path) -> None:
    write(tmp_path, CASES["context-missing"].bad)
    result = run_cli([*INV, "lint", "--file", "docker-bake.hcl", "--only", "consistency"],
                     cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines == [
        "Dockerfile:1: context-missing: app: FROM base: no earlier stage and no bake context "
        "named 'base' (BuildKit would pull docker.io/library/base)",
        "Dockerfile:2: context-missing: app: COPY --from tools: no earlier stage and no bake "
        "context named 'tools' (BuildKit would pull docker.io/library/tools)"]
    assert "Traceback" not in result.stderr


def test_bad_input_exits_2_with_one_line(tmp_path: Path) -> None:
    for args in (["--file", "nope.hcl"], ["--only", "spelling"]):
        result = run_cli([*INV, "lint", *args], cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert result.stderr.strip().count("\n") == 0 and result.stderr.startswith("error: ")


def test_a_bake_file_that_does_not_evaluate_exits_2(tmp_path: Path) -> None:
    (tmp_path / "docker-bake.hcl").write_text('target "app" {\n  args = { A = nope }\n}\n')
    result = run_cli([*INV, "lint", "--file", "docker-bake.hcl", "--only", "consistency"],
                     cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr
