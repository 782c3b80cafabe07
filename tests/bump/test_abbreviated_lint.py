"""An abbreviated pin in ``inv lint``: declared in ABBREVIATED it is a warning naming
``inv bump --resolve``, not a finding; undeclared it stays the pin-source finding."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rocm_bake_checks import lint
from rocm_bake_checks.lint import LintError
from tests.conftest import ROOT

SHORT = "6bbd260"
VALIDATION = 'condition     = can(regex("^[0-9a-f]{40}$", PYTORCH_COMMIT))'


def _bake(tmp: Path, declared: bool) -> Path:
    text = (ROOT / "tests/fixtures/bump/old.hcl").read_text()
    text = text.replace('default     = "a7925a4e477147878c7ca1547dd4a20f36dda156"',
                        f'default     = "{SHORT}"')
    text = text.replace(VALIDATION, VALIDATION.removesuffix(")") + ") || "
                        '(contains(ABBREVIATED, "PYTORCH_COMMIT") && '
                        'can(regex("^[0-9a-f]{4,39}$", PYTORCH_COMMIT)))')
    names = '"PYTORCH_COMMIT"' if declared else ""
    text = text.replace('variable "PYTORCH_REPO" {', 'variable "ABBREVIATED" {\n'
                        f'  type    = list(string)\n  default = [{names}]\n}}\n\n'
                        'variable "PYTORCH_REPO" {', 1)
    path = tmp / "rocm-bake.hcl"
    path.write_text(text)
    return path


def _pin_source(path: Path) -> list[str]:
    return [f.message for f in lint.run(ROOT, [path], ("pins",)) if f.rule == "pin-source"]


def test_a_declared_abbreviated_pin_is_a_warning(tmp_path: Path) -> None:
    path = _bake(tmp_path, declared=True)
    assert not [m for m in _pin_source(path) if "PYTORCH_COMMIT" in m]
    done = subprocess.run([str(Path(sys.executable).parent / "inv"), "lint", "--only", "pins",
                           "--file", str(path)], cwd=ROOT, capture_output=True, text=True,
                          check=False)
    assert (f"warning: PYTORCH_COMMIT = '{SHORT}' is upstream's abbreviated commit (declared "
            "in ABBREVIATED); the build resolves it on PYTORCH_REF: where the host is "
            "reachable, `inv bump --resolve` replaces it with the full commit") \
        in done.stderr.splitlines(), done.stderr


def test_an_undeclared_short_pin_is_refused_by_its_validation(tmp_path: Path) -> None:
    path = _bake(tmp_path, declared=False)
    with pytest.raises(LintError, match="Validation failed; PYTORCH_COMMIT must be a full "
                                        "40-hex commit"):
        _pin_source(path)
