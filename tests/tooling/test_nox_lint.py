"""`nox -s lint` passes in its own virtualenv, installed from pyproject.toml's dev group alone
(no copy of the list in noxfile.py): ruff, mypy --strict, hadolint and inv lint all run.

The env is installed once by the set-up (scripts/test.sh: ``nox --install-only -s lint``) and
reused here without installing (``-R``), so the test needs no package index.
"""

from __future__ import annotations

import pytest

from tests.conftest import ROOT, missing, run_cli


@pytest.fixture(scope="module")
def lint_env() -> None:
    if not (ROOT / ".nox" / "lint").is_dir():
        missing("the lint nox env", ".venv/bin/nox --install-only -s lint")


def test_nox_lint_session_passes(lint_env: None) -> None:
    result = run_cli(["nox", "-R", "-s", "lint"], timeout=1800)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    assert "nox > Session lint was successful" in out
    # every tool of the session ran, from the session's own env, and found nothing
    env_bin = ROOT / ".nox" / "lint" / "bin"
    assert "nox > python -m pip install" not in out          # -R: reused, nothing installed
    assert "All checks passed!" in out                                  # ruff
    assert "Success: no issues found" in out                            # mypy --strict
    hadolint = [line for line in out.splitlines() if line.startswith("nox > hadolint ")]
    assert hadolint, "hadolint did not run"
    assert all(str(p) in hadolint[0] for p in (ROOT / "dockerfiles").glob("*.Dockerfile"))
    assert "lint: clean" in out                                         # inv lint
    for tool in ("ruff", "mypy", "hadolint", "inv"):
        assert (env_bin / tool).is_file(), f"{tool} is not installed in .nox/lint"
