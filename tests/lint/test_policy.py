"""The committed policy: exceptions need reasons, stale exceptions are findings."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_bake_checks import lint
from tests.lint.cases import CASES
from tests.lint.test_rules import write


def policy(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.toml"
    path.write_text(text)
    return path


def test_an_exception_with_a_reason_drops_its_finding(tmp_path: Path) -> None:
    bake_file = write(tmp_path, CASES["pin-version"].bad)
    rules = policy(tmp_path, '[[exception]]\nrule = "pin-version"\nfile = "docker-bake.hcl"\n'
                             'contains = "TOOL_VERSION"\nreason = "a range on purpose"\n')
    assert lint.run(tmp_path, [bake_file], ["pins"], policy_file=rules) == []


def test_a_stale_exception_is_a_finding(tmp_path: Path) -> None:
    bake_file = write(tmp_path, CASES["pin-version"].good)
    rules = policy(tmp_path, '[[exception]]\nrule = "pin-version"\nfile = "docker-bake.hcl"\n'
                             'reason = "no longer needed"\n')
    findings = lint.run(tmp_path, [bake_file], ["pins"], policy_file=rules)
    assert [f.rule for f in findings] == ["lint-policy"]


def test_an_exception_without_a_reason_is_refused(tmp_path: Path) -> None:
    bake_file = write(tmp_path, CASES["pin-version"].bad)
    rules = policy(tmp_path, '[[exception]]\nrule = "pin-version"\nfile = "docker-bake.hcl"\n'
                             'reason = " "\n')
    with pytest.raises(lint.LintError, match="non-empty reason"):
        lint.run(tmp_path, [bake_file], ["pins"], policy_file=rules)


def test_hadolint_excludes_need_reasons(tmp_path: Path) -> None:
    bake_file = write(tmp_path, CASES["hadolint"].bad)
    rules = policy(tmp_path, '[hadolint]\nexclude = [{ path = "Dockerfile" }]\n')
    with pytest.raises(lint.LintError, match="reason"):
        lint.run(tmp_path, [bake_file], ["hadolint"], policy_file=rules)
    rules.write_text('[hadolint]\nexclude = [{ path = "Dockerfile", reason = "fixture" }]\n')
    assert lint.run(tmp_path, [bake_file], ["hadolint"], policy_file=rules) == []
