"""Where python-hcl2 is more lenient than Go's HCL, the model must still reject what buildx
rejects (and accept what it accepts): layout rules, and the set of functions."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_bake.model.hcl.functions import FUNCTIONS
from tests.buildx.oracle import assert_same_error, model, oracle
from tests.conftest import Buildx

LAYOUTS = {
    "closing-brace-after-object": 'target "t" {\n  args = { A = "1" } }\n',
    "argument-on-opening-line": 'target "t" { dockerfile = "x"\n  context = "." }\n',
    "single-line-not-closed": 'target "t" { dockerfile = "x"\n}\n',
    "closing-brace-after-argument": 'target "t" {\n  dockerfile = "x" }\n',
    "single-line-block": 'target "t" { dockerfile = "x" }\n',
    "empty-block": 'target "t" {}\n',
    "two-arguments-one-line": 'target "t" { dockerfile = "x", context = "." }\n',
    "two-blocks-one-line": ('variable "A" { default = 1 }\n'
                            'variable "B" { default = 2 } target "t" {}\n'),
    "object-elements-mixed": ('target "t" {\n  args = {\n    A = "1", B = "2"\n'
                              '    C = "3" }\n}\n'),
    "object-newline-separated": 'target "t" {\n  args = { A = "1"\n B = "2" }\n}\n',
    "tuple-over-lines": 'target "t" {\n  tags = ["a",\n"b"]\n}\n',
    "heredoc-then-brace": 'target "t" {\n  dockerfile-inline = <<EOT\nFROM scratch\nEOT\n}\n',
    "comment-before-brace": 'target "t" {\n  context = "."\n  # done\n}\n',
    "condition-then-brace": ('variable "A" {\n  default = 1\n  validation {\n'
                             '    condition = A > 0\n    error_message = "x"\n  }\n}\n'
                             'target "t" {}\n'),
}


@pytest.mark.buildx
@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_layout_accepted_or_rejected_like_buildx(name: str, buildx: Buildx,
                                                 tmp_path: Path) -> None:
    (tmp_path / "docker-bake.hcl").write_text(LAYOUTS[name])
    expected = oracle(buildx, ["--print", "t"], tmp_path, {})
    got = model(["--print", "t"], tmp_path, {})
    assert got.ok == expected.ok, f"buildx: {expected.error or 'ok'}; model: {got.error or 'ok'}"
    if expected.ok:
        assert got.data == expected.data
    else:
        assert_same_error(f"layout/{name}", got, expected)


@pytest.mark.buildx
def test_every_function_the_model_knows_exists_in_buildx(buildx: Buildx, tmp_path: Path) -> None:
    """Calling a function buildx lacks must fail in both; so the model may know no extras."""
    unknown = []
    for name in sorted(FUNCTIONS):
        call = f'target "t" {{\n  args = {{ X = {name}() }}\n}}\n'
        (tmp_path / "docker-bake.hcl").write_text(call)
        result = buildx.bake(["--print", "t"], tmp_path)
        if "There is no function named" in result.stderr or "does not exist" in result.stderr:
            unknown.append(name)
    assert unknown == [], f"functions buildx does not have: {unknown}"
