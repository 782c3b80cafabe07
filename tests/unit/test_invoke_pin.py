"""invoke is pinned to the releases whose parser tasks/_cli.py patches (``inv TASK --help``
before a task's positional arguments, pyinvoke/invoke#982) and whose ``Task.argspec`` reads a
task's flags from its signature (``flags_task``): pyproject.toml's range has an upper bound, and
the installed invoke is inside it. tests/cli/test_surface.py runs the patch; test_flags.py the
flags."""

from __future__ import annotations

import importlib.metadata
import tomllib

from packaging.requirements import Requirement

from tests.conftest import ROOT


def _invoke() -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return next(r for r in map(Requirement, project["dependencies"]) if r.name == "invoke")


def test_invoke_has_an_upper_bound() -> None:
    bounds = [spec for spec in _invoke().specifier if spec.operator in ("<", "<=", "==", "~=")]
    assert bounds, f"{_invoke()}: no upper bound, a newer parser would meet the patch unchecked"


def test_the_installed_invoke_is_the_pinned_one() -> None:
    installed = importlib.metadata.version("invoke")
    assert _invoke().specifier.contains(installed, prereleases=True), \
        f"invoke {installed} is outside {_invoke()}: check tasks/_cli.py's patch against it"
